// CustomResourceDefinition x-kubernetes-validations: each rule's CEL
// program run on the value (and oldSelf on an update), its failures in the
// apiserver's wording (apiextensions-apiserver pkg/apiserver/schema/cel).
#include "base/strings.h"
#include "cel/cel.h"
#include "crd/field_error.h"
#include "crd/schema_walks.h"

namespace recon::crd {
namespace {

using cel::CelValue;

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

}  // namespace

void ValidateCelRules(const Json& v, const Json* old, const SchemaNode& n, const std::string& path, bool top,
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
        ValidateCelRules(*it, o, prop->second, Child(path, it.key()), false, out);
      } else if (n.additional_properties) {
        ValidateCelRules(*it, o, *n.additional_properties, Key(path, it.key()), false, out);
      }
    }
  } else if (v.is_array() && n.items) {
    for (size_t i = 0; i < v.size(); ++i)
      ValidateCelRules(v[i], CorrelatedItem(v[i], old, n), *n.items, Index(path, i), false, out);
  }
}

// Does any node of the tree carry CEL rules (so the walk can be skipped)?
bool HasRules(const SchemaNode& n) {
  if (!n.rules.empty()) return true;
  for (const auto& [name, c] : n.properties)
    if (HasRules(c)) return true;
  return (n.additional_properties && HasRules(*n.additional_properties)) || (n.items && HasRules(*n.items));
}

}  // namespace recon::crd
