#include "domains/aro/subnet_discovery.h"

#include <set>

#include "absl/strings/str_split.h"
#include "base/strings.h"
#include "domains/aro/common.h"

namespace recon::aro {

absl::StatusOr<std::string> SubscriptionOf(std::string_view resource_id) {
  std::vector<std::string> parts = absl::StrSplit(Av(resource_id), '/');
  if (parts.size() < 3 || !parts[0].empty() || !EqualFold(parts[1], "subscriptions") || parts[2].empty()) {
    return absl::InvalidArgumentError(
        recon::StrCat("parsing failed for ", resource_id, ". Invalid resource Id format"));
  }
  return parts[2];
}

namespace {

absl::Status AddFromProviderSpec(const Json& value, std::string_view what, std::string_view subscription,
                                 bool is_master, std::vector<ClusterSubnet>* out) {
  // Upstream decodes the raw providerSpec JSON; anything but an object fails.
  if (!value.is_object()) {
    return absl::InvalidArgumentError(
        recon::StrCat(what, ": providerSpec.value is not an Azure machine provider spec"));
  }
  out->push_back(
      {recon::StrCat("/subscriptions/", subscription, "/resourceGroups/", Str(value, "networkResourceGroup"),
                     "/providers/Microsoft.Network/virtualNetworks/", Str(value, "vnet"), "/subnets/",
                     Str(value, "subnet")),
       is_master});
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<ClusterSubnet>> DiscoverSubnets(const engine::World& world,
                                                           std::string_view subscription) {
  std::vector<ClusterSubnet> all;
  for (const engine::Object* ms : world.ListIn(kMachineGroup, "MachineSet", kMachineApiNs)) {
    // Upstream's selector is `role != master`: unlabelled and infra sets count.
    if (ms->Label(kRoleLabel) == "master") continue;
    const Json& value = engine::Path(ms->json(), {"spec", "template", "spec", "providerSpec", "value"});
    if (auto s =
            AddFromProviderSpec(value, recon::StrCat("machineset ", ms->name()), subscription, false, &all);
        !s.ok()) {
      return s;
    }
  }
  for (const engine::Object* m : world.ListIn(kMachineGroup, "Machine", kMachineApiNs)) {
    if (m->Label(kRoleLabel) != "master") continue;
    const Json& value = engine::Path(m->json(), {"spec", "providerSpec", "value"});
    if (auto s = AddFromProviderSpec(value, recon::StrCat("machine ", m->name()), subscription, true, &all);
        !s.ok()) {
      return s;
    }
  }
  std::vector<ClusterSubnet> out;
  std::set<std::string> seen;
  for (auto& s : all) {
    if (seen.insert(Lower(s.id)).second) out.push_back(std::move(s));
  }
  return out;
}

absl::StatusOr<std::string> ExpectedNsgId(const Json& spec, bool is_master) {
  int64_t arch = 0;
  const Json& v = engine::Path(spec, {"architectureVersion"});
  if (v.is_number_integer()) {
    arch = v.get<int64_t>();
  } else if (!v.is_null()) {
    return absl::InvalidArgumentError(recon::StrCat("unknown architecture version ", engine::Dump(v)));
  }
  std::string prefix = recon::StrCat(Str(spec, "clusterResourceGroupId"),
                                     "/providers/Microsoft.Network/networkSecurityGroups/");
  std::string infra = Str(spec, "infraId");
  if (arch == 0) return recon::StrCat(prefix, infra, is_master ? "-controlplane-nsg" : "-node-nsg");
  if (arch == 1) return recon::StrCat(prefix, infra, "-nsg");
  return absl::InvalidArgumentError(recon::StrCat("unknown architecture version ", arch));
}

absl::Status CheckAzEnvironment(const Json& spec) {
  std::string name = Str(spec, "azEnvironment");
  if (EqualFold(name, "AzurePublicCloud") || EqualFold(name, "AzureUSGovernmentCloud"))
    return absl::OkStatus();
  return absl::InvalidArgumentError(recon::StrCat("cloud environment \"", name, "\" is unsupported by ARO"));
}

std::vector<AzureResourceRef> AzureReads(const engine::World& world) {
  std::vector<AzureResourceRef> out;
  const engine::Object* cluster = GetCluster(world);
  if (cluster == nullptr) return out;
  const Json& spec = engine::Path(cluster->json(), {"spec"});
  auto subscription = SubscriptionOf(Str(spec, "resourceId"));
  if (!subscription.ok()) return out;
  // A bad provider spec fails the whole round in the controller: nothing to read.
  auto subnets = DiscoverSubnets(world, *subscription);
  if (subnets.ok()) {
    for (auto& s : *subnets) out.push_back({"Subnet", std::move(s.id)});
  }
  if (engine::Path(spec, {"architectureVersion"}) == Json(1)) {
    if (auto nsg = ExpectedNsgId(spec, false); nsg.ok()) out.push_back({"NetworkSecurityGroup", *nsg});
  }
  return out;
}

const engine::Object* FindAzureObject(const engine::World& world, std::string_view kind,
                                      std::string_view id) {
  if (const engine::Object* exact = world.Get(kAzureGroup, kind, "", id)) return exact;
  for (const engine::Object* o : world.List(kAzureGroup, kind)) {
    if (EqualFold(o->name(), id)) return o;
  }
  return nullptr;
}

}  // namespace recon::aro
