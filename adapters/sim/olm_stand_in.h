// What a cluster's other parts do for an OLM install that recon's olm
// domain carries out as both of OLM's operators (olm.executePlans, issue
// 49; olm.csvLifecycle, issue 50). The simulated cluster plays no part of
// OLM, only Kubernetes and the kubelet:
//   - a kubelet running bundle unpack Jobs: the ConfigMap the Job names
//     filled with a CSV built from the bundle (one Deployment and its
//     permissions) and its owned CRDs' manifests, the Job Complete (Failed
//     for an image no bundle has);
//   - kube-apiserver's CRD controller: a new CRD Established;
//   - kube-controller-manager with a kubelet: a Deployment's status
//     observed, its replicas updated and Available;
//   - Kubernetes' garbage collector: a deleted Subscription's orphaned
//     InstallPlans deleted, a deleted CSV's OperatorCondition,
//     ServiceAccounts, Roles, RoleBindings and Deployments deleted (or
//     their dangling owner references patched out), an OperatorCondition's
//     Role and RoleBinding with it.
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

// The stand-in for a cluster with these bundles (by CSV name).
Controller OlmClusterStandIn(std::shared_ptr<const OlmBundles> bundles);

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_OLM_STAND_IN_H_
