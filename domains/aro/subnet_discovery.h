// Which Azure subnets belong to the cluster (reference §2.4/§2.5): worker
// subnets from MachineSets, master subnets from master Machines, and the
// NSG each one should have.
#ifndef RECON_DOMAINS_ARO_SUBNET_DISCOVERY_H_
#define RECON_DOMAINS_ARO_SUBNET_DISCOVERY_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/json.h"
#include "engine/world.h"

namespace recon::aro {

struct ClusterSubnet {
  std::string id;  // ARM ID as built from the provider spec
  bool is_master = false;
};

// The subscription of an ARM resource ID ("/subscriptions/<s>/...").
absl::StatusOr<std::string> SubscriptionOf(std::string_view resource_id);

// Workers first (MachineSets whose role label is not "master"), then
// master Machines; deduplicated by lower-cased ID, first one kept.
absl::StatusOr<std::vector<ClusterSubnet>> DiscoverSubnets(const engine::World& world,
                                                           std::string_view subscription);

// The ARO NSG a subnet should carry, from the Cluster spec.
absl::StatusOr<std::string> ExpectedNsgId(const engine::Json& cluster_spec, bool is_master);

// Whether spec.azEnvironment names a cloud ARO runs in.
absl::Status CheckAzEnvironment(const engine::Json& cluster_spec);

// The Azure resources the aro domain reads, a pure function of the world:
// what a live adapter GETs from ARM on each aro/subnets round (every
// cluster subnet, and for architecture version 1 the cluster NSG whose
// default rules may be restored). Empty while the Cluster is unknown.
struct AzureResourceRef {
  std::string kind;  // "Subnet" or "NetworkSecurityGroup"
  std::string id;    // ARM ID
};
std::vector<AzureResourceRef> AzureReads(const engine::World& world);

// A Subnet object in the world whose ARM ID equals `id` ignoring case.
const engine::Object* FindAzureObject(const engine::World& world, std::string_view kind, std::string_view id);

}  // namespace recon::aro

#endif  // RECON_DOMAINS_ARO_SUBNET_DISCOVERY_H_
