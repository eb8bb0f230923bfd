#include "crd/schema.h"

#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "base/strings.h"
#include "cel/cel_strings.h"
#include "crd/field_error.h"
#include "crd/formats.h"
#include "crd/schema_walks.h"

namespace recon::crd {
namespace {

using cel::CelType;
using cel::CelValue;
using TK = CelType::Kind;

// ---- compiling ----------------------------------------------------------

const Json& Get(const Json& j, const char* key) { return engine::Path(j, {key}); }
std::string Str(const Json& j, const char* key) { return engine::GetString(j, {key}); }

bool Bool(const Json& j, const char* key) {
  const Json& v = Get(j, key);
  return v.is_boolean() && v.get<bool>();
}

std::optional<int64_t> Int(const Json& j, const char* key) {
  const Json& v = Get(j, key);
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) return static_cast<int64_t>(v.get<double>());
  return std::nullopt;
}

std::optional<double> Num(const Json& j, const char* key) {
  const Json& v = Get(j, key);
  if (v.is_number()) return v.get<double>();
  return std::nullopt;
}

// The CEL type `self` has at a node, from its schema (cel-go's Kubernetes
// declarations, with objects of declared properties as map(string, dyn)).
CelType SelfType(const SchemaNode& n) {
  if (n.int_or_string) return CelType::Of(TK::kDyn);
  if (n.type == "string") return CelType::Of(TK::kString);
  if (n.type == "integer") return CelType::Of(TK::kInt);
  if (n.type == "number") return CelType::Of(TK::kDouble);
  if (n.type == "boolean") return CelType::Of(TK::kBool);
  if (n.type == "array") return CelType::List(n.items ? SelfType(*n.items) : CelType::Of(TK::kDyn));
  if (n.type == "object") {
    if (n.additional_properties && n.properties.empty())
      return CelType::Map(CelType::Of(TK::kString), SelfType(*n.additional_properties));
    return CelType::Map(CelType::Of(TK::kString), CelType::Of(TK::kDyn));
  }
  return CelType::Of(TK::kDyn);
}

class Compiler {
 public:
  explicit Compiler(std::string_view where) : where_(where) {}

  absl::Status Node(const Json& j, const std::string& path, SchemaNode& n) {
    if (!j.is_object()) return Fail(path, "must be an object");
    n.type = Str(j, "type");
    n.nullable = Bool(j, "nullable");
    n.preserve_unknown = Bool(j, "x-kubernetes-preserve-unknown-fields");
    n.embedded_resource = Bool(j, "x-kubernetes-embedded-resource");
    n.int_or_string = Bool(j, "x-kubernetes-int-or-string");
    if (j.contains("default")) {
      n.has_default = true;
      n.default_value = j["default"];
    }
    n.format = Str(j, "format");
    if (const Json& e = Get(j, "enum"); e.is_array()) n.enum_values.assign(e.begin(), e.end());
    n.minimum = Num(j, "minimum");
    n.maximum = Num(j, "maximum");
    n.exclusive_minimum = Bool(j, "exclusiveMinimum");
    n.exclusive_maximum = Bool(j, "exclusiveMaximum");
    n.min_length = Int(j, "minLength");
    n.max_length = Int(j, "maxLength");
    n.min_items = Int(j, "minItems");
    n.max_items = Int(j, "maxItems");
    n.min_properties = Int(j, "minProperties");
    n.max_properties = Int(j, "maxProperties");
    n.unique_items = Bool(j, "uniqueItems");
    n.pattern = Str(j, "pattern");
    if (!n.pattern.empty()) {
      re2::RE2::Options o;
      o.set_log_errors(false);
      auto re = std::make_shared<const re2::RE2>(n.pattern, o);
      if (!re->ok())
        return Fail(StrCat(path, ".pattern"), StrCat("invalid pattern '", n.pattern, "': ", re->error()));
      n.regex = std::move(re);
    }
    if (const Json& r = Get(j, "required"); r.is_array())
      for (const Json& x : r)
        if (x.is_string()) n.required.push_back(x.get<std::string>());
    if (const Json& p = Get(j, "properties"); p.is_object()) {
      for (auto it = p.begin(); it != p.end(); ++it) {
        auto s = Node(it.value(), StrCat(path, ".properties[", it.key(), "]"), n.properties[it.key()]);
        if (!s.ok()) return s;
      }
    }
    if (const Json& a = Get(j, "additionalProperties"); a.is_object()) {
      n.additional_properties = std::make_unique<SchemaNode>();
      auto s = Node(a, StrCat(path, ".additionalProperties"), *n.additional_properties);
      if (!s.ok()) return s;
    }
    if (const Json& i = Get(j, "items"); i.is_object()) {
      n.items = std::make_unique<SchemaNode>();
      auto s = Node(i, StrCat(path, ".items"), *n.items);
      if (!s.ok()) return s;
    }
    n.list_type = Str(j, "x-kubernetes-list-type");
    if (const Json& k = Get(j, "x-kubernetes-list-map-keys"); k.is_array())
      for (const Json& x : k)
        if (x.is_string()) n.list_map_keys.push_back(x.get<std::string>());
    for (auto [key, list] :
         {std::pair{"anyOf", &n.any_of}, std::pair{"allOf", &n.all_of}, std::pair{"oneOf", &n.one_of}}) {
      const Json& arr = Get(j, key);
      if (!arr.is_array()) continue;
      list->resize(arr.size());
      for (size_t i = 0; i < arr.size(); ++i) {
        auto s = Node(arr[i], StrCat(path, ".", key, "[", i, "]"), (*list)[i]);
        if (!s.ok()) return s;
      }
    }
    if (const Json& x = Get(j, "not"); x.is_object()) {
      n.not_schema = std::make_unique<SchemaNode>();
      auto s = Node(x, StrCat(path, ".not"), *n.not_schema);
      if (!s.ok()) return s;
    }
    if (const Json& v = Get(j, "x-kubernetes-validations"); v.is_array()) {
      for (size_t i = 0; i < v.size(); ++i) {
        auto s = Rule(v[i], StrCat(path, ".x-kubernetes-validations[", i, "]"), n);
        if (!s.ok()) return s;
      }
    }
    return absl::OkStatus();
  }

 private:
  absl::Status Fail(const std::string& path, std::string_view msg) const {
    return absl::InvalidArgumentError(StrCat(where_, ": ", path, ": ", msg));
  }

  absl::Status Rule(const Json& j, const std::string& path, SchemaNode& n) {
    CelRule r;
    r.rule = Str(j, "rule");
    r.message = Str(j, "message");
    r.message_expression = Str(j, "messageExpression");
    r.reason = Str(j, "reason");
    r.field_path = Str(j, "fieldPath");
    auto env = std::make_shared<cel::CelEnv>();
    CelType self = SelfType(n);
    env->Declare("self", self).Declare("oldSelf", self);
    cel::AddStringsExtension(*env);
    auto program = cel::CelProgram::Compile(r.rule, env);
    if (!program.ok()) {
      return Fail(StrCat(path, ".rule"), StrCat("Invalid value: ", GoQuote(r.rule),
                                                ": compilation failed: ", program.status().message()));
    }
    r.uses_old_self = program->References("oldSelf");
    r.program = std::make_shared<const cel::CelProgram>(std::move(*program));
    if (!r.message_expression.empty()) {
      auto m = cel::CelProgram::CompileExpression(r.message_expression, env);
      if (!m.ok() || (m->type().kind != TK::kString && m->type().kind != TK::kDyn)) {
        return Fail(StrCat(path, ".messageExpression"),
                    StrCat("Invalid value: ", GoQuote(r.message_expression), ": ",
                           m.ok() ? "must evaluate to a string"
                                  : StrCat("compilation failed: ", m.status().message())));
      }
      r.message_program = std::make_shared<const cel::CelProgram>(std::move(*m));
    }
    n.rules.push_back(std::move(r));
    return absl::OkStatus();
  }

  std::string_view where_;
};

bool KeptAtTop(const std::string& key) { return key == "apiVersion" || key == "kind" || key == "metadata"; }

// ---- pruning and defaulting ------------------------------------------------

// `path`: where `v` is ("" at the top, "spec.items[0]" below), for the
// dropped fields' names (null: not wanted).
void PruneValue(Json& v, const SchemaNode& n, bool top, const std::string& path,
                std::vector<std::string>* dropped) {
  auto below = [&](std::string_view step, bool index) {
    if (dropped == nullptr) return std::string();
    return index ? StrCat(path, "[", step, "]") : path.empty() ? std::string(step) : StrCat(path, ".", step);
  };
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end();) {
      const std::string& key = it.key();
      if ((top || n.embedded_resource) && KeptAtTop(key)) {
        ++it;  // metadata is the caller's (top) or validated as ObjectMeta (embedded)
        continue;
      }
      if (const SchemaNode* child = n.Field(key)) {
        PruneValue(it.value(), *child, false, below(key, false), dropped);
        ++it;
      } else if (n.preserve_unknown) {
        ++it;
      } else {
        if (dropped != nullptr) dropped->push_back(below(key, false));
        it = v.erase(it);
      }
    }
  } else if (v.is_array() && n.items) {
    for (size_t i = 0; i < v.size(); ++i)
      PruneValue(v[i], *n.items, false, below(std::to_string(i), true), dropped);
  }
}

void DefaultValue(Json& v, const SchemaNode& n, bool top) {
  if (v.is_object()) {
    for (const auto& [name, child] : n.properties) {
      if (top && name == "metadata") continue;
      auto it = v.find(name);
      if (it != v.end() && it->is_null() && !child.nullable) {
        if (child.has_default) {
          *it = child.default_value;
        } else {
          v.erase(it);  // a null for a non-nullable field without default is dropped
        }
      } else if (it == v.end() && child.has_default) {
        v[name] = child.default_value;
      }
    }
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (top && it.key() == "metadata") continue;
      if (const SchemaNode* child = n.Field(it.key())) DefaultValue(it.value(), *child, false);
    }
  } else if (v.is_array() && n.items) {
    for (Json& x : v) {
      if (x.is_null() && n.items->has_default && !n.items->nullable) x = n.items->default_value;
      DefaultValue(x, *n.items, false);
    }
  }
}

}  // namespace

std::string Child(const std::string& path, const std::string& name) {
  return path.empty() ? name : StrCat(path, ".", name);
}
std::string Index(const std::string& path, size_t i) { return StrCat(path, "[", i, "]"); }
std::string Key(const std::string& path, const std::string& k) { return StrCat(path, "[", k, "]"); }

bool JsonEqual(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
  if (a.type() != b.type()) return false;
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!JsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it) {
      auto o = b.find(it.key());
      if (o == b.end() || !JsonEqual(*it, *o)) return false;
    }
    return true;
  }
  return a == b;
}

const SchemaNode* SchemaNode::Field(const std::string& name) const {
  auto it = properties.find(name);
  if (it != properties.end()) return &it->second;
  return additional_properties.get();
}

absl::StatusOr<std::shared_ptr<const Schema>> Schema::Compile(const Json& open_api_v3_schema,
                                                              std::string_view where) {
  auto s = std::make_shared<Schema>();
  auto st = Compiler(where).Node(open_api_v3_schema, "openAPIV3Schema", s->root_);
  if (!st.ok()) return st;
  s->has_rules_ = HasRules(s->root_);
  s->has_list_types_ = HasListTypes(s->root_);
  return std::shared_ptr<const Schema>(std::move(s));
}

void Schema::Prune(Json& object, std::vector<std::string>* dropped) const {
  PruneValue(object, root_, true, std::string(), dropped);
}

void Schema::Default(Json& object) const { DefaultValue(object, root_, true); }

std::vector<FieldError> Schema::Validate(const Json& object, const Json* old) const {
  std::vector<FieldError> out;
  ValidateOpenApi(object, root_, "", true, out);
  // The root has no name; its own errors (a wrong type) read "<root>" upstream.
  for (FieldError& e : out)
    if (e.field.empty()) e.field = "<root>";
  if (has_list_types_) ValidateListTypes(object, root_, "", true, out);
  if (has_rules_) ValidateCelRules(object, old, root_, "", true, out);
  return out;
}

}  // namespace recon::crd
