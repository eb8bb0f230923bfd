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
#include "domains/aro/requeue.h"
#include "engine/emit.h"
#include "engine/event.h"
#include "engine/world.h"

namespace recon::aro {

// library-go's union of the conditions whose type ends with `suffix`;
// `default_status` is the healthy value ("True" for Available).
Condition UnionCondition(const std::vector<Condition>& conds, std::string_view suffix,
                         std::string_view out_type, std::string_view default_status);

inline constexpr std::string_view kClusterOperatorTimer = "aro/clusteroperator";

class ClusterOperatorAro {
 public:
  ClusterOperatorAro() : requeue_(std::string(kClusterOperatorTimer)) {}

  void Reconcile(const engine::Event& event, const engine::World& world, engine::Emit& emit,
                 const ClusterStatus& status, const Options& options);
  // The answer to one of our ClusterOperator writes: a 409 is upstream's
  // returned error, so the key goes again after a backoff (a conflict that
  // brings no newer ClusterOperator or Cluster would leave its status
  // unwritten: four-domain soak, seed 13). True when it was ours.
  bool OnActionResult(const engine::Event& event, const engine::World& world, engine::Emit& emit);
  // aro/clusteroperator: true when the backoff is due (reconcile now).
  bool OnTimer(const engine::Event& event);

  // What it wrote and whether the world shows it yet is the engine's write
  // tracker's; only the backoff is state (snapshots before it had no
  // "requeue": none scheduled).
  Json ToJson() const { return {{"requeue", requeue_.ToJson()}}; }
  void FromJson(const Json& j) { requeue_.FromJson(engine::Path(j, {"requeue"})); }
  const Requeue& requeue() const { return requeue_; }

 private:
  Requeue requeue_;
};

}  // namespace recon::aro

#endif  // RECON_DOMAINS_ARO_CLUSTER_OPERATOR_H_
