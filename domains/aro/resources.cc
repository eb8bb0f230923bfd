// The resource types the ARO operator's reducers read and write. Azure
// subnets and NSGs are objects of the network.azure.com group (DESIGN.md);
// a live cluster needs an ARM adapter to serve them.
#include "domains/aro/aro_reducer.h"

namespace recon::aro {

std::vector<engine::ResourceUse> AroReducer::Resources() const {
  using engine::ResourceType;
  const std::vector<std::string> watch = {"get", "list", "watch"};
  const std::vector<std::string> create = {"get", "list", "watch", "create"};
  const std::vector<std::string> write = {"get", "list", "watch", "create", "update"};
  return {
      {ResourceType{"aro.openshift.io", "v1alpha1", "Cluster", "clusters", false, true, {}},
       {"get", "list", "watch", "update"},
       {"update"},
       {}},
      {ResourceType{"config.openshift.io", "v1", "ClusterOperator", "clusteroperators", false, true, {"co"}},
       create,
       {"update"},
       {}},
      {ResourceType{"config.openshift.io", "v1", "ClusterVersion", "clusterversions", false, true, {}},
       watch,
       {},
       {}},
      {ResourceType{"machine.openshift.io", "v1beta1", "Machine", "machines", true, true, {}}, watch, {}, {}},
      {ResourceType{"machine.openshift.io", "v1beta1", "MachineSet", "machinesets", true, true, {}},
       watch,
       {},
       {}},
      {ResourceType{"network.azure.com", "v1", "Subnet", "subnets", false, false, {}},
       {"get", "list", "watch", "update"},
       {},
       {}},
      {ResourceType{
           "network.azure.com", "v1", "NetworkSecurityGroup", "networksecuritygroups", false, false, {}},
       {"get", "list", "watch", "update"},
       {},
       {}},
      {ResourceType{"security.openshift.io",
                    "v1",
                    "SecurityContextConstraints",
                    "securitycontextconstraints",
                    false,
                    false,
                    {"scc"}},
       create,
       {},
       {}},
      {ResourceType{"", "v1", "ConfigMap", "configmaps", true, false, {"cm"}}, write, {}, {}},
      {ResourceType{"", "v1", "Namespace", "namespaces", false, true, {"ns"}}, create, {}, {}},
      {ResourceType{"", "v1", "Secret", "secrets", true, false, {}}, write, {}, {}},
      {ResourceType{"", "v1", "ServiceAccount", "serviceaccounts", true, false, {"sa"}}, create, {}, {}},
      {ResourceType{"apps", "v1", "DaemonSet", "daemonsets", true, true, {"ds"}}, write, {}, {}},
  };
}

}  // namespace recon::aro
