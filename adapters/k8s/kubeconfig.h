// Where the API server is and how to authenticate: a kubeconfig file or the
// pod's service account (in-cluster). Parsing is a pure function over the
// file's bytes (fuzzable); loading reads env and files and lives only here
// and in cli/, never in reducers. Secrets (token, key) never appear in
// messages or logs: Describe() names the auth kind only.
#ifndef RECON_ADAPTERS_K8S_KUBECONFIG_H_
#define RECON_ADAPTERS_K8S_KUBECONFIG_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "adapters/http/rest_config.h"

namespace YAML {
class Node;
}

namespace recon::k8s {

using http::ReadFile;
using http::RestConfig;

// A kubeconfig file parsed once; its contexts resolve one by one.
class Kubeconfig {
 public:
  // `source` names the file in errors.
  static absl::StatusOr<Kubeconfig> Parse(std::string_view yaml, std::string_view source);
  // `context` "" means current-context. Relative file paths resolve against
  // `base_dir`.
  absl::StatusOr<RestConfig> Resolve(std::string_view context, std::string_view base_dir = "") const;

 private:
  std::string source_;
  std::shared_ptr<const YAML::Node> root_;
};

// Kubeconfig::Parse, then Resolve(context, base_dir).
absl::StatusOr<RestConfig> ParseKubeconfig(std::string_view yaml, std::string_view source,
                                           std::string_view context, std::string_view base_dir = "");

// The kubeconfig path to use: `flag` if set, else the first entry of
// `kubeconfig_env` (KUBECONFIG, ':'-separated), else `home`/.kube/config.
std::string KubeconfigPath(std::string_view flag, std::string_view kubeconfig_env, std::string_view home);

// Reads and parses a kubeconfig file.
absl::StatusOr<RestConfig> LoadKubeconfig(const std::string& path, std::string_view context);

struct InClusterPaths {
  std::string token = "/var/run/secrets/kubernetes.io/serviceaccount/token";
  std::string ca = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";
  std::string ns = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
};

// The service-account config: `host`/`port` are KUBERNETES_SERVICE_HOST
// and _PORT (passed in, so tests need no environment).
absl::StatusOr<RestConfig> InClusterConfig(std::string_view host, std::string_view port,
                                           const InClusterPaths& paths = {});

}  // namespace recon::k8s

#endif  // RECON_ADAPTERS_K8S_KUBECONFIG_H_
