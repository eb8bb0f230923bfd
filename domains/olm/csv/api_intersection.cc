#include "domains/olm/csv/api_intersection.h"

#include <algorithm>

namespace recon::olm {

GroupTargets TargetsOfGroup(const engine::Json& og) {
  GroupTargets t;
  const engine::Json& seen = engine::Path(og, {"status", "namespaces"});
  if (seen.is_array() && seen.size() == 1 && seen[0] == engine::Json("")) {
    t.all = true;
    return t;
  }
  if (seen.is_array())
    for (const engine::Json& n : seen)
      if (n.is_string() && !n.get_ref<const std::string&>().empty())
        t.namespaces.insert(n.get<std::string>());
  const std::string own = engine::GetString(og, {"metadata", "namespace"});
  if (!own.empty()) t.namespaces.insert(own);
  return t;
}

bool Intersect(const GroupTargets& a, const GroupTargets& b) {
  if (a.all) return b.all || !b.namespaces.empty();
  if (b.all) return !a.namespaces.empty();
  const auto& small = a.namespaces.size() <= b.namespaces.size() ? a.namespaces : b.namespaces;
  const auto& large = &small == &a.namespaces ? b.namespaces : a.namespaces;
  return std::any_of(small.begin(), small.end(), [&](const std::string& n) { return large.contains(n); });
}

ApiReconcile ReconcileApis(const std::set<std::string>& add, const std::set<std::string>& group,
                           const std::set<std::string>& others) {
  const bool conflict =
      std::any_of(add.begin(), add.end(), [&](const std::string& a) { return others.contains(a); });
  const bool recorded = std::includes(group.begin(), group.end(), add.begin(), add.end());
  if (conflict) return recorded ? ApiReconcile::kRemoveApis : ApiReconcile::kConflict;
  return recorded ? ApiReconcile::kNoConflict : ApiReconcile::kAddApis;
}

}  // namespace recon::olm
