#include "crd/schema.h"

#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "base/strings.h"
#include "cel/cel_strings.h"
#include "crd/field_error.h"
#include "crd/formats.h"

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

// ---- paths --------------------------------------------------------------

// kube-openapi names fields "a.b" and items "a[0]"; field.Path renders map
// keys as "a[key]" (the CEL and list-type errors use field.Path).
std::string Child(const std::string& path, const std::string& name) {
  return path.empty() ? name : StrCat(path, ".", name);
}
std::string Index(const std::string& path, size_t i) { return StrCat(path, "[", i, "]"); }
std::string Key(const std::string& path, const std::string& k) { return StrCat(path, "[", k, "]"); }

bool KeptAtTop(const std::string& key) { return key == "apiVersion" || key == "kind" || key == "metadata"; }

// ---- pruning and defaulting ------------------------------------------------

void PruneValue(Json& v, const SchemaNode& n, bool top) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end();) {
      const std::string& key = it.key();
      if ((top || n.embedded_resource) && KeptAtTop(key)) {
        ++it;  // metadata is the caller's (top) or validated as ObjectMeta (embedded)
        continue;
      }
      if (const SchemaNode* child = n.Field(key)) {
        PruneValue(it.value(), *child, false);
        ++it;
      } else if (n.preserve_unknown) {
        ++it;
      } else {
        it = v.erase(it);
      }
    }
  } else if (v.is_array() && n.items) {
    for (Json& x : v) PruneValue(x, *n.items, false);
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

// ---- OpenAPI validation -----------------------------------------------------

// The swag type name kube-openapi reports for a decoded value.
std::string TypeName(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "integer";
    case Json::value_t::number_float:
      return "number";
    case Json::value_t::string:
      return "string";
    case Json::value_t::array:
      return "array";
    default:
      return "object";
  }
}

bool TypeMatches(const std::string& type, const Json& v) {
  if (type.empty()) return true;
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "string") return v.is_string();
  if (type == "boolean") return v.is_boolean();
  if (type == "integer") return v.is_number_integer() || v.is_number_unsigned();
  if (type == "number") return v.is_number();
  return true;
}

size_t CodePoints(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Go's JSON-decoded equality (numbers by value, so 1 equals 1.0).
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

// The "%v" of a schema bound: an integral value prints as an integer.
std::string Bound(double d) { return GoFloat(d); }

class OpenApiValidator {
 public:
  explicit OpenApiValidator(std::vector<FieldError>& out) : out_(out) {}

  // `path` is kube-openapi's name for the value ("spec.replicas").
  void Validate(const Json& v, const SchemaNode& n, const std::string& path, bool top) {
    const std::string& p = path;
    if (v.is_null()) {
      if (n.nullable || n.type.empty()) return;
      out_.push_back(TypeInvalid(p, "null", StrCat(p, " in body must be of type ", n.type, ": \"null\"")));
      return;
    }
    if (!TypeMatches(n.type, v)) {
      std::string got = TypeName(v);
      out_.push_back(TypeInvalid(p, got, StrCat(p, " in body must be of type ", n.type, ": ", GoQuote(got))));
      return;
    }
    SchemaProps(v, n, p);
    if (v.is_string()) {
      const std::string& s = v.get_ref<const std::string&>();
      if (n.max_length && static_cast<int64_t>(CodePoints(s)) > *n.max_length) {
        out_.push_back(TooLong(p, *n.max_length));
      }
      if (n.min_length && static_cast<int64_t>(CodePoints(s)) < *n.min_length) {
        out_.push_back(
            Invalid(p, v, StrCat(p, " in body should be at least ", *n.min_length, " chars long")));
      }
      if (n.regex && !re2::RE2::PartialMatch(s, *n.regex)) {
        out_.push_back(Invalid(p, v, StrCat(p, " in body should match '", n.pattern, "'")));
      }
      if (!n.format.empty() && !MatchesFormat(n.format, s)) {
        out_.push_back(TypeInvalid(p, v, StrCat(p, " in body must be of type ", n.format, ": ", GoQuote(s))));
      }
    }
    if (v.is_number()) Number(v, n, p);
    if (v.is_array()) {
      if (n.items)
        for (size_t i = 0; i < v.size(); ++i) Validate(v[i], *n.items, Index(p, i), false);
      int64_t size = static_cast<int64_t>(v.size());
      if (n.min_items && size < *n.min_items) {
        out_.push_back(Invalid(p, size, StrCat(p, " in body should have at least ", *n.min_items, " items")));
      }
      if (n.max_items && size > *n.max_items) out_.push_back(TooMany(p, size, *n.max_items));
      if (n.unique_items) {
        for (size_t i = 0; i < v.size(); ++i) {
          bool dup = false;
          for (size_t k = 0; k < i && !dup; ++k) dup = JsonEqual(v[i], v[k]);
          if (dup) {
            out_.push_back(Invalid(p, "", StrCat(p, " in body shouldn't contain duplicates")));
            break;
          }
        }
      }
    }
    if (!n.enum_values.empty()) {
      bool found = false;
      for (const Json& e : n.enum_values) found = found || JsonEqual(e, v);
      if (!found) out_.push_back(NotSupported(p, v, n.enum_values));
    }
    if (v.is_object()) Object(v, n, p, top);
  }

  // Does `v` satisfy `n` (for anyOf/oneOf/not)? Errors are discarded.
  static bool Passes(const Json& v, const SchemaNode& n, const std::string& path) {
    std::vector<FieldError> errs;
    OpenApiValidator(errs).Validate(v, n, path, false);
    return errs.empty();
  }

 private:
  void Number(const Json& v, const SchemaNode& n, const std::string& p) {
    double d = v.get<double>();
    if (n.maximum) {
      bool bad = n.exclusive_maximum ? d >= *n.maximum : d > *n.maximum;
      if (bad)
        out_.push_back(Invalid(p, v,
                               StrCat(p, " in body should be less than ",
                                      n.exclusive_maximum ? "" : "or equal to ", Bound(*n.maximum))));
    }
    if (n.minimum) {
      bool bad = n.exclusive_minimum ? d <= *n.minimum : d < *n.minimum;
      if (bad)
        out_.push_back(Invalid(p, v,
                               StrCat(p, " in body should be greater than ",
                                      n.exclusive_minimum ? "" : "or equal to ", Bound(*n.minimum))));
    }
  }

  // allOf, anyOf, oneOf, not (kube-openapi's schemaPropsValidator).
  void SchemaProps(const Json& v, const SchemaNode& n, const std::string& p) {
    for (const SchemaNode& s : n.all_of) Validate(v, s, p, false);
    if (!n.any_of.empty()) {
      bool any = false;
      for (const SchemaNode& s : n.any_of) any = any || Passes(v, s, p);
      if (!any) {
        out_.push_back(Invalid(p, "", StrCat(p, " must validate at least one schema (anyOf)")));
        Validate(v, n.any_of.front(), p, false);  // the first branch's errors, as the best failure
      }
    }
    if (!n.one_of.empty()) {
      int passed = 0;
      for (const SchemaNode& s : n.one_of) passed += Passes(v, s, p);
      if (passed == 0)
        out_.push_back(Invalid(p, "", StrCat(p, " must validate one and only one schema (oneOf)")));
      if (passed > 1)
        out_.push_back(Invalid(p, "",
                               StrCat(p, " must validate one and only one schema (oneOf). Found ", passed,
                                      " valid alternatives")));
    }
    if (n.not_schema && Passes(v, *n.not_schema, p)) {
      out_.push_back(Invalid(p, "", StrCat(p, " must not validate the schema (not)")));
    }
  }

  void Object(const Json& v, const SchemaNode& n, const std::string& p, bool top) {
    int64_t size = static_cast<int64_t>(v.size());
    if (n.max_properties && size > *n.max_properties) out_.push_back(TooMany(p, size, *n.max_properties));
    if (n.min_properties && size < *n.min_properties) {
      out_.push_back(Invalid(p, *n.min_properties,
                             StrCat(p, " in body should have at least ", *n.min_properties, " properties")));
    }
    for (const std::string& r : n.required)
      if (!v.contains(r)) out_.push_back(Required(Child(p, r)));
    for (const auto& [name, child] : n.properties) {
      if (top && name == "metadata") continue;  // the caller's (ObjectMeta validation)
      auto it = v.find(name);
      if (it != v.end()) Validate(*it, child, Child(p, name), false);
    }
    if (n.additional_properties) {
      for (auto it = v.begin(); it != v.end(); ++it)
        if (!n.properties.count(it.key())) Validate(*it, *n.additional_properties, Child(p, it.key()), false);
    }
  }

  std::vector<FieldError>& out_;
};

// ---- list-type set and map (structurallisttype.ValidateListSetsAndMaps) ---

void ListTypes(const Json& v, const SchemaNode& n, const std::string& path, bool top,
               std::vector<FieldError>& out) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (top && it.key() == "metadata") continue;
      auto prop = n.properties.find(it.key());
      if (prop != n.properties.end()) {
        ListTypes(*it, prop->second, Child(path, it.key()), false, out);
      } else if (n.additional_properties) {
        ListTypes(*it, *n.additional_properties, Key(path, it.key()), false, out);
      }
    }
    return;
  }
  if (!v.is_array()) return;
  if (n.list_type == "set") {
    for (size_t i = 0; i < v.size(); ++i) {
      bool first_repeat = false;  // report the second appearance of a value once
      int seen = 0;
      for (size_t k = 0; k < i; ++k) seen += JsonEqual(v[k], v[i]);
      first_repeat = seen == 1;
      if (first_repeat) out.push_back(Duplicate(Index(path, i), v[i]));
    }
  } else if (n.list_type == "map") {
    bool objects = true;
    for (size_t i = 0; i < v.size() && objects; ++i) {
      if (!v[i].is_null() && !v[i].is_object()) {
        out.push_back(Invalid(Index(path, i), v[i], "must be an object for an array of list-type map"));
        objects = false;
      }
    }
    if (objects) {
      std::vector<Json> keys;
      for (const Json& x : v) {
        Json key = Json::object();
        if (x.is_object())
          for (const std::string& k : n.list_map_keys)
            if (auto it = x.find(k); it != x.end()) key[k] = *it;
        keys.push_back(std::move(key));
      }
      for (size_t i = 0; i < keys.size(); ++i) {
        int seen = 0;
        for (size_t k = 0; k < i; ++k) seen += JsonEqual(keys[k], keys[i]);
        if (seen == 1) out.push_back(Duplicate(Index(path, i), keys[i]));
      }
    }
  }
  if (n.items)
    for (size_t i = 0; i < v.size(); ++i) ListTypes(v[i], *n.items, Index(path, i), false, out);
}

// ---- CEL rules (apiextensions-apiserver pkg/apiserver/schema/cel) --------

// Go's strings.TrimSpace (ASCII white space).
std::string TrimSpace(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n\r\v\f");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\n\r\v\f");
  return s.substr(b, e - b + 1);
}

CelValue ToCel(const Json& v, const SchemaNode* n) {
  switch (v.type()) {
    case Json::value_t::null:
      return CelValue::Null();
    case Json::value_t::boolean:
      return CelValue::Bool(v.get<bool>());
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      if (n && n->type == "number") return CelValue::Double(v.get<double>());
      return CelValue::Int(v.get<int64_t>());
    case Json::value_t::number_float:
      return CelValue::Double(v.get<double>());
    case Json::value_t::string:
      return CelValue::String(v.get<std::string>());
    case Json::value_t::array: {
      CelValue::List out;
      out.reserve(v.size());
      for (const Json& x : v) out.push_back(ToCel(x, n && n->items ? n->items.get() : nullptr));
      return CelValue::MakeList(std::move(out));
    }
    default: {
      CelValue::Map out;
      for (auto it = v.begin(); it != v.end(); ++it)
        out.emplace_back(CelValue::String(it.key()), ToCel(*it, n ? n->Field(it.key()) : nullptr));
      return CelValue::MakeMap(std::move(out));
    }
  }
}

// The old element a list-type map item correlates with (same key values).
const Json* CorrelatedItem(const Json& item, const Json* old_list, const SchemaNode& n) {
  if (!old_list || !old_list->is_array() || n.list_type != "map" || !item.is_object()) return nullptr;
  for (const Json& o : *old_list) {
    if (!o.is_object()) continue;
    bool same = true;
    for (const std::string& k : n.list_map_keys) {
      auto a = item.find(k);
      auto b = o.find(k);
      bool ha = a != item.end(), hb = b != o.end();
      same = same && ha == hb && (!ha || JsonEqual(*a, *b));
    }
    if (same) return &o;
  }
  return nullptr;
}

void Rules(const Json& v, const Json* old, const SchemaNode& n, const std::string& path, bool top,
           std::vector<FieldError>& out) {
  if (v.is_null()) return;  // rules validate non-null values only
  if (!n.rules.empty()) {
    CelValue self = ToCel(v, &n);
    CelValue old_self = old && !old->is_null() ? ToCel(*old, &n) : CelValue();
    bool has_old = old && !old->is_null();
    cel::CelActivation vars{{"self", &self}};
    if (has_old) vars.emplace_back("oldSelf", &old_self);
    // apiextensions reports the schema type as the bad value.
    const Json type = n.type;
    for (const CelRule& r : n.rules) {
      if (r.uses_old_self && !has_old) continue;  // a transition rule runs on updates only
      auto ok = r.program->Evaluate(vars);
      std::string rule_text = r.message.empty() ? TrimSpace(r.rule) : TrimSpace(r.message);
      if (!ok.ok()) {
        std::string_view err = Sv(ok.status().message());
        if (err.substr(0, 16) == "no such overload") {
          out.push_back(Invalid(path, type,
                                StrCat("'", err,
                                       "': call arguments did not match a supported operator, "
                                       "function or macro signature for rule: ",
                                       rule_text)));
        } else {
          out.push_back(Invalid(path, type, StrCat(err, " evaluating rule: ", rule_text)));
        }
        continue;
      }
      if (*ok) continue;
      std::string field = path;
      if (!r.field_path.empty()) {
        field = r.field_path.front() == '.' || r.field_path.front() == '[' ? StrCat(path, r.field_path)
                                                                           : Child(path, r.field_path);
      }
      std::string detail;
      if (r.message_program) {
        auto m = r.message_program->EvaluateValue(vars);
        if (m.ok() && m->is(CelValue::Kind::kString)) {
          detail = TrimSpace(m->AsString());
        }
      }
      if (detail.empty()) detail = r.message.empty() ? StrCat("failed rule: ", rule_text) : rule_text;
      if (r.reason == "FieldValueForbidden") {
        out.push_back(Forbidden(field, detail));
      } else if (r.reason == "FieldValueRequired") {
        out.push_back(Required(field, detail));
      } else if (r.reason == "FieldValueDuplicate") {
        out.push_back(Duplicate(field, type));
      } else {
        out.push_back(Invalid(field, type, detail));
      }
    }
  }
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (top && it.key() == "metadata") continue;
      const Json* o = nullptr;
      if (old && old->is_object())
        if (auto oi = old->find(it.key()); oi != old->end()) o = &*oi;
      auto prop = n.properties.find(it.key());
      if (prop != n.properties.end()) {
        Rules(*it, o, prop->second, Child(path, it.key()), false, out);
      } else if (n.additional_properties) {
        Rules(*it, o, *n.additional_properties, Key(path, it.key()), false, out);
      }
    }
  } else if (v.is_array() && n.items) {
    for (size_t i = 0; i < v.size(); ++i)
      Rules(v[i], CorrelatedItem(v[i], old, n), *n.items, Index(path, i), false, out);
  }
}

// Does any node of the tree carry CEL rules (so the walk can be skipped)?
bool HasRules(const SchemaNode& n) {
  if (!n.rules.empty()) return true;
  for (const auto& [name, c] : n.properties)
    if (HasRules(c)) return true;
  return (n.additional_properties && HasRules(*n.additional_properties)) || (n.items && HasRules(*n.items));
}

bool HasListTypes(const SchemaNode& n) {
  if (n.list_type == "set" || n.list_type == "map") return true;
  for (const auto& [name, c] : n.properties)
    if (HasListTypes(c)) return true;
  return (n.additional_properties && HasListTypes(*n.additional_properties)) ||
         (n.items && HasListTypes(*n.items));
}

}  // namespace

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

void Schema::Prune(Json& object) const { PruneValue(object, root_, true); }

void Schema::Default(Json& object) const { DefaultValue(object, root_, true); }

std::vector<FieldError> Schema::Validate(const Json& object, const Json* old) const {
  std::vector<FieldError> out;
  OpenApiValidator(out).Validate(object, root_, "", true);
  // The root has no name; its own errors (a wrong type) read "<root>" upstream.
  for (FieldError& e : out)
    if (e.field.empty()) e.field = "<root>";
  if (has_list_types_) ListTypes(object, root_, "", true, out);
  if (has_rules_) Rules(object, old, root_, "", true, out);
  return out;
}

}  // namespace recon::crd
