// Azure resources as objects (network.azure.com/v1 Subnet,
// NetworkSecurityGroup; metadata.name = ARM ID): ARM get/put semantics. A
// PUT replaces the resource and needs it to exist (404 otherwise, as for a
// subnet whose vnet is gone); there are no finalizers, no status subresource
// and no preconditions (a PUT's resourceVersion is ignored). Each change
// gets the server's next resourceVersion, as any object served through the
// Kubernetes API does (the simulated ARM's etag is a hash of the properties).
#ifndef RECON_ADAPTERS_SIM_AZURE_H_
#define RECON_ADAPTERS_SIM_AZURE_H_

#include "adapters/sim/api.h"

namespace recon::sim {

inline constexpr std::string_view kAzureGroup = "network.azure.com";

bool IsAzure(const ObjectKey& key);

// verb: create (PUT that may create), update (PUT of an existing resource),
// delete; updateStatus is refused (405).
ApiResult AzureApply(ObjectStore& objects, std::string_view verb, const ObjectKey& key, const Json& object,
                     int64_t now_ns);

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_AZURE_H_
