// Provided-API bookkeeping between OperatorGroups (reference olm-operator.md
// §B.1.4, upstream's olm/groups.go ReconcileAPIIntersection at v0.24.0): a
// CSV's owned APIs against those its group records (`olm.providedAPIs`)
// and those of every other group whose targets intersect its group's. Two
// groups that could both serve an API in one namespace must not both own
// it: the second CSV fails with InterOperatorGroupOwnerConflict.
#ifndef RECON_DOMAINS_OLM_CSV_API_INTERSECTION_H_
#define RECON_DOMAINS_OLM_CSV_API_INTERSECTION_H_

#include <set>
#include <string>

#include "engine/json.h"

namespace recon::olm {

// A group's target set as the intersection sees it: status.namespaces plus
// its own namespace, or every namespace (status.namespaces == [""]).
struct GroupTargets {
  bool all = false;
  std::set<std::string> namespaces;
};
GroupTargets TargetsOfGroup(const engine::Json& og);
// All namespaces meets any non-empty set.
bool Intersect(const GroupTargets& a, const GroupTargets& b);

enum class ApiReconcile {
  kNoConflict,  // the group records the CSV's APIs, no intersecting group does
  kAddApis,     // the group lacks some, no intersecting group has them
  kRemoveApis,  // an intersecting group has some, and so does the CSV's group
  kConflict,    // an intersecting group has some, the CSV's group lacks some
};

// `add`: the CSV's owned APIs ("Kind.version.group", CsvProvidedApis);
// `group`: its group's olm.providedAPIs; `others`: the union of the
// intersecting groups'.
ApiReconcile ReconcileApis(const std::set<std::string>& add, const std::set<std::string>& group,
                           const std::set<std::string>& others);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CSV_API_INTERSECTION_H_
