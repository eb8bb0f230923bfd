// The resource types the samples operator reads and writes (its upstream
// ClusterRole, narrowed to what this reducer really does).
#include "domains/samples/reducer.h"

namespace recon::samples {

std::vector<engine::ResourceUse> SamplesReducer::Resources() const {
  using engine::ResourceType;
  const std::vector<std::string> watch = {"get", "list", "watch"};
  const std::vector<std::string> own = {"get", "list", "watch", "create", "update", "delete"};
  return {
      {ResourceType{"samples.operator.openshift.io", "v1", "Config", "configs", false, true, {}},
       {"get", "list", "watch", "create", "update"},
       {"update"},
       {}},
      {ResourceType{"image.openshift.io", "v1", "ImageStream", "imagestreams", true, true, {"is"}},
       own,
       {},
       {"imagestreamimports"}},
      {ResourceType{"template.openshift.io", "v1", "Template", "templates", true, false, {}}, own, {}, {}},
      {ResourceType{"", "v1", "ConfigMap", "configmaps", true, false, {"cm"}}, own, {}, {}},
      // openshift-config/pull-secret, for the registry credential check.
      {ResourceType{"", "v1", "Secret", "secrets", true, false, {}}, watch, {}, {}},
      {ResourceType{"config.openshift.io", "v1", "ClusterOperator", "clusteroperators", false, true, {"co"}},
       {"get", "list", "watch", "create"},
       {"update"},
       {}},
      {ResourceType{"config.openshift.io", "v1", "Image", "images", false, true, {}}, watch, {}, {}},
      {ResourceType{"config.openshift.io", "v1", "Proxy", "proxies", false, true, {}}, watch, {}, {}},
  };
}

}  // namespace recon::samples
