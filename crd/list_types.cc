// Duplicates in list-type set and map arrays, as the apiserver reports
// them (structurallisttype.ValidateListSetsAndMaps).
#include "base/strings.h"
#include "crd/field_error.h"
#include "crd/schema_walks.h"

namespace recon::crd {

void ValidateListTypes(const Json& v, const SchemaNode& n, const std::string& path, bool top,
                       std::vector<FieldError>& out) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (top && it.key() == "metadata") continue;
      auto prop = n.properties.find(it.key());
      if (prop != n.properties.end()) {
        ValidateListTypes(*it, prop->second, Child(path, it.key()), false, out);
      } else if (n.additional_properties) {
        ValidateListTypes(*it, *n.additional_properties, Key(path, it.key()), false, out);
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
    for (size_t i = 0; i < v.size(); ++i) ValidateListTypes(v[i], *n.items, Index(path, i), false, out);
}

bool HasListTypes(const SchemaNode& n) {
  if (n.list_type == "set" || n.list_type == "map") return true;
  for (const auto& [name, c] : n.properties)
    if (HasListTypes(c)) return true;
  return (n.additional_properties && HasListTypes(*n.additional_properties)) ||
         (n.items && HasListTypes(*n.items));
}

}  // namespace recon::crd
