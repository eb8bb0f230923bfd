// The Kubernetes resource types a domain reads and writes. Domains declare
// them (Reducer::Resources); the cli hands the union to an adapter, which
// lists and watches them (adapters/k8s), serves them (adapters/sim's HTTP
// API) and derives least-privilege RBAC from the verbs (deploy/).
#ifndef RECON_ENGINE_RESOURCE_H_
#define RECON_ENGINE_RESOURCE_H_

#include <string>
#include <vector>

namespace recon::engine {

struct ResourceType {
  std::string group;    // "" for the core group
  std::string version;  // "v1"
  std::string kind;     // "ConfigMap"
  std::string plural;   // "configmaps"
  bool namespaced = true;
  bool status_subresource = false;
  std::vector<std::string> short_names;

  // "samples.operator.openshift.io/v1", or "v1" for the core group.
  std::string ApiVersion() const { return group.empty() ? version : group + "/" + version; }
};

// What a domain needs of one resource type. `verbs` are Kubernetes RBAC
// verbs on the resource itself (get, list, watch, create, update, patch,
// delete); `status_verbs` those on its status subresource (update).
// Every watched type needs get, list and watch.
struct ResourceUse {
  ResourceType type;
  std::vector<std::string> verbs;
  std::vector<std::string> status_verbs;
  // Objects the domain writes are created under this subresource instead
  // (e.g. imagestreamimports for importImage); empty when none.
  std::vector<std::string> create_subresources;
};

// Merges uses of the same type (by group and plural): verbs are unioned and
// sorted, the result is ordered by (group, plural) so it is stable.
std::vector<ResourceUse> MergeResourceUses(const std::vector<ResourceUse>& uses);

}  // namespace recon::engine

#endif  // RECON_ENGINE_RESOURCE_H_
