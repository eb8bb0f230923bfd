#include "domains/olm/csv/component_labels.h"

#include <algorithm>

namespace recon::olm {

using engine::Json;

std::optional<std::string> ComponentLabelKey(std::string_view name) {
  if (name.size() > 63) name = name.substr(0, 63);
  while (!name.empty() && (name.back() == '.' || name.back() == '_' || name.back() == '-'))
    name.remove_suffix(1);
  if (name.empty()) return std::nullopt;
  return std::string(kComponentLabelPrefix) + std::string(name);
}

std::vector<std::string> CsvComponentKeys(const Json& csv) {
  std::vector<std::string> out;
  const Json& labels = engine::Path(csv, {"metadata", "labels"});
  if (!labels.is_object()) return out;
  for (auto it = labels.begin(); it != labels.end(); ++it)
    if (it.key().starts_with(kComponentLabelPrefix) && it.key().size() > kComponentLabelPrefix.size())
      out.push_back(it.key());
  std::sort(out.begin(), out.end());
  return out;
}

bool IsCsvComponent(const Json& object, const Json& csv) {
  const std::string uid = engine::GetString(csv, {"metadata", "uid"});
  for (const Json& ref : engine::Path(object, {"metadata", "ownerReferences"}))
    if (!uid.empty() && engine::GetString(ref, {"uid"}) == uid) return true;
  const Json& labels = engine::Path(object, {"metadata", "labels"});
  return engine::GetString(labels, {"olm.owner.kind"}) == "ClusterServiceVersion" &&
         engine::GetString(labels, {"olm.owner"}) == engine::GetString(csv, {"metadata", "name"}) &&
         engine::GetString(labels, {"olm.owner.namespace"}) ==
             engine::GetString(csv, {"metadata", "namespace"});
}

bool HasLabel(const Json& object, std::string_view key) {
  const Json& labels = engine::Path(object, {"metadata", "labels"});
  return labels.is_object() && labels.contains(std::string(key));
}

}  // namespace recon::olm
