// Which OperatorGroups' target sets meet (reference olm-operator.md §B.1.4),
// kept beside the world as ClusterRefs is: the groups by target namespace
// and the all-namespaces ones, so that a CSV's sync finds the groups that
// intersect its own without walking every group of the cluster (one per
// namespace in `recon bench olm`). Kept in the reducer's snapshot: rebuilt
// from the world after a restore, it would not know a group's targets
// before the event that changed them, and miss the CSVs they met.
#ifndef RECON_DOMAINS_OLM_GROUP_TARGETS_H_
#define RECON_DOMAINS_OLM_GROUP_TARGETS_H_

#include <map>
#include <set>
#include <string>
#include <string_view>

#include "domains/olm/csv/api_intersection.h"
#include "engine/world.h"

namespace recon::olm {

class GroupTargetIndex {
 public:
  void Build(const engine::World& w);
  void Clear();
  bool ready() const { return ready_; }
  // After an event of the group ns/name: its targets read again; `wake`
  // gets the namespaces of the groups its old or new targets met.
  void Update(const engine::World& w, std::string_view ns, std::string_view name,
              std::set<std::string>* wake);
  // The groups ("<ns>/<name>") whose targets meet those of ns/name, itself
  // left out, in name order.
  std::set<std::string> Intersecting(std::string_view ns, std::string_view name) const;
  // For the snapshot: null when not built yet; FromJson of null leaves it unbuilt.
  engine::Json ToJson() const;
  void FromJson(const engine::Json& j);

 private:
  void Put(const std::string& key, GroupTargets t);
  void Drop(const std::string& key);
  std::set<std::string> Meeting(const std::string& key, const GroupTargets& t) const;

  std::map<std::string, GroupTargets, std::less<>> targets_;         // by "<ns>/<name>"
  std::map<std::string, std::set<std::string>, std::less<>> by_ns_;  // target namespace -> groups
  std::set<std::string> all_;                                        // all-namespaces groups
  bool ready_ = false;
};

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_GROUP_TARGETS_H_
