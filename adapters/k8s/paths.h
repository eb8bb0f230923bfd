// REST paths of resource types and objects on a Kubernetes API server.
#ifndef RECON_ADAPTERS_K8S_PATHS_H_
#define RECON_ADAPTERS_K8S_PATHS_H_

#include <string>
#include <string_view>

#include "engine/resource.h"

namespace recon::k8s {

// "/api/v1/namespaces/ns/configmaps", "/apis/g/v/plural" (cluster-scoped or ns "").
std::string CollectionPath(const engine::ResourceType& type, std::string_view ns);
std::string ObjectPath(const engine::ResourceType& type, std::string_view ns, std::string_view name);
// "/api/v1" or "/apis/group/version".
std::string GroupVersionPath(std::string_view group, std::string_view version);

}  // namespace recon::k8s

#endif  // RECON_ADAPTERS_K8S_PATHS_H_
