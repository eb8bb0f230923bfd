// GenevaLogging, mdsd era (reference §6.1/§6.2): ensures the logging
// objects (SCC, Namespace, ConfigMap, Secret, ServiceAccount, DaemonSet
// mdsd), each owned by the Cluster, and re-creates or repairs them when
// they are deleted or changed. Conditions GenevaLoggingController* via
// the controller-status setter; errors back off on aro/genevalogging.
#ifndef RECON_DOMAINS_ARO_GENEVA_LOGGING_H_
#define RECON_DOMAINS_ARO_GENEVA_LOGGING_H_

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "domains/aro/cluster_status.h"
#include "domains/aro/geneva_objects.h"
#include "domains/aro/requeue.h"
#include "engine/emit.h"
#include "engine/event.h"
#include "engine/world.h"

namespace recon::aro {

inline constexpr std::string_view kGenevaTimer = "aro/genevalogging";

class GenevaLogging {
 public:
  GenevaLogging() : requeue_(std::string(kGenevaTimer)) {}

  // Whether an object event is one of ours (an ownership watch).
  static bool Owns(const engine::Event& event);
  static bool OwnsObject(std::string_view group, std::string_view kind, std::string_view ns,
                         std::string_view name);
  void Reconcile(const engine::Event& event, const engine::World& world, engine::Emit& emit,
                 ClusterStatus& status);
  void OnTimer(const engine::Event& event, const engine::World& world, engine::Emit& emit,
               ClusterStatus& status);
  void OnOwnedEvent(const engine::Event& event, const engine::World& world, engine::Emit& emit,
                    ClusterStatus& status);
  // A failed write of ours (a refused secret value, a conflict, an API
  // error) is an error of the reconcile: Degraded, backed-off retry, as the
  // upstream controller's returned error. False if the action is not ours.
  bool OnActionResult(const engine::Event& event, const engine::World& world, engine::Emit& emit,
                      ClusterStatus& status);

  engine::Json ToJson() const;
  void FromJson(const engine::Json& j);

 private:
  int write_failures_ = 0;  // in a row; the retry backs off on these
  Requeue requeue_;
};

}  // namespace recon::aro

#endif  // RECON_DOMAINS_ARO_GENEVA_LOGGING_H_
