// ClusterOperatorARO (reference §9): projects the Cluster's *Available and
// *Progressing conditions onto the OpenShift ClusterOperator `aro`
// (Degraded is always False so the operator never blocks upgrades).
#ifndef RECON_DOMAINS_ARO_CLUSTER_OPERATOR_H_
#define RECON_DOMAINS_ARO_CLUSTER_OPERATOR_H_

#include <string>
#include <string_view>
#include <vector>

#include "domains/aro/cluster_status.h"
#include "domains/aro/options.h"
#include "engine/emit.h"
#include "engine/event.h"
#include "engine/world.h"

namespace recon::aro {

// library-go's union of the conditions whose type ends with `suffix`;
// `default_status` is the healthy value ("True" for Available).
Condition UnionCondition(const std::vector<Condition>& conds, std::string_view suffix,
                         std::string_view out_type, std::string_view default_status);

class ClusterOperatorAro {
 public:
  void Reconcile(const engine::Event& event, const engine::World& world, engine::Emit& emit,
                 const ClusterStatus& status, const Options& options);
  // Stateless: what it wrote and whether the world shows it yet is the
  // engine's write tracker's (snapshots before issue 19 had a
  // "clusterOperator" entry; it is ignored).
};

}  // namespace recon::aro

#endif  // RECON_DOMAINS_ARO_CLUSTER_OPERATOR_H_
