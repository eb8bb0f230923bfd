// What a cluster's other parts do for an OLM install that recon's olm
// domain carries out (olm.executePlans; issue 49): the simulated cluster no
// longer plays OLM's catalog operator, only
//   - a kubelet running bundle unpack Jobs: the ConfigMap the Job names
//     filled with a CSV built from the bundle, the Job Complete (Failed for
//     an image no bundle has);
//   - OLM's olm operator, until recon has it (issue 50): a CSV created
//     without a phase labelled with its operator (package.namespace) and
//     turned Succeeded; a CSV another Succeeded one replaces deleted. Off
//     when recon moves CSVs itself (olm.csvLifecycle): the cluster then
//     plays what that needs instead, kube-apiserver's CRD controller (a
//     new CRD Established) and kube-controller-manager with a kubelet (a
//     Deployment's status: observed, its replicas updated and Available),
//     and the CSVs it unpacks carry one Deployment and its permissions;
//   - Kubernetes' garbage collector: a deleted Subscription's orphaned
//     InstallPlans deleted; with recon as the olm operator, a deleted
//     CSV's OperatorCondition, and that one's Role and RoleBinding.
// `recon soak`, `recon sim serve --olm-catalog`, `recon bench olm`.
#ifndef RECON_ADAPTERS_SIM_OLM_STAND_IN_H_
#define RECON_ADAPTERS_SIM_OLM_STAND_IN_H_

#include <map>
#include <memory>
#include <string>

#include "adapters/sim/simulator.h"
#include "engine/json.h"

namespace recon::sim {

// What the stand-in knows of one bundle: enough to build its CSV.
struct OlmBundle {
  std::string package, version;
  std::string image;                           // the bundle image ("": inline content only)
  std::string replaces;                        // the default channel entry's replaces
  engine::Json owned = engine::Json::array();  // spec.customresourcedefinitions.owned
};
using OlmBundles = std::map<std::string, OlmBundle>;  // by CSV name

struct OlmStandInOptions {
  bool olm_operator = true;  // false: recon is OLM's olm operator (olm.csvLifecycle)
};

// The stand-in for a cluster with these bundles (by CSV name).
Controller OlmClusterStandIn(std::shared_ptr<const OlmBundles> bundles, OlmStandInOptions options = {});

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_OLM_STAND_IN_H_
