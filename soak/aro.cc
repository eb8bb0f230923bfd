#include "soak/aro.h"

#include <string>

#include "base/strings.h"
#include "engine/json.h"

namespace recon::soak {
namespace {

using engine::Json;

constexpr char kSubnetPrefix[] =
    "/subscriptions/sub-1/resourceGroups/vnet-rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/";
constexpr char kNsgId[] =
    "/subscriptions/sub-1/resourceGroups/aro-infra/providers/Microsoft.Network/networkSecurityGroups/"
    "c1-abcde-nsg";
constexpr char kMachineNamespace[] = "openshift-machine-api";
constexpr char kMachineSet[] = "c1-worker-eastus1";
constexpr int kWorkers = 3;
const char* const kSubnets[] = {"master", "worker"};

Json Endpoints(bool storage) {
  Json e = Json::array({Json{{"service", "Microsoft.ContainerRegistry"},
                             {"locations", Json::array({"*"})},
                             {"provisioningState", "Succeeded"}}});
  if (storage)
    e.push_back(Json{{"service", "Microsoft.Storage"},
                     {"locations", Json::array({"*"})},
                     {"provisioningState", "Succeeded"}});
  return e;
}

// A subnet as ARM shows it; `nsg` false: detached, `storage` false: its
// Microsoft.Storage endpoint gone.
Json Subnet(const char* name, int index, bool nsg, bool storage) {
  Json spec = {{"addressPrefix", recon::StrCat("10.0.", 2 * index, ".0/23")},
               {"serviceEndpoints", Endpoints(storage)}};
  if (nsg) spec["networkSecurityGroup"] = Json{{"id", kNsgId}};
  return Json{{"apiVersion", "network.azure.com/v1"},
              {"kind", "Subnet"},
              {"metadata", {{"name", recon::StrCat(kSubnetPrefix, name)}}},
              {"spec", std::move(spec)}};
}

Json ProviderSpec(const char* subnet) {
  return Json{{"value",
               {{"apiVersion", "machine.openshift.io/v1beta1"},
                {"kind", "AzureMachineProviderSpec"},
                {"networkResourceGroup", "vnet-rg"},
                {"vnet", "vnet"},
                {"subnet", subnet}}}};
}

sim::Edit ScaleWorkers(int64_t at_ns, int replicas) {
  sim::Edit e;
  e.at_ns = at_ns;
  e.op = sim::Edit::Op::kSet;
  // A set edit names its object at the top level (sim::Edit).
  e.object = Json{{"apiVersion", "machine.openshift.io/v1beta1"},
                  {"kind", "MachineSet"},
                  {"namespace", kMachineNamespace},
                  {"name", kMachineSet}};
  e.path = "spec.replicas";
  e.value = replicas;
  return e;
}

}  // namespace

void AddSoakAroObjects(sim::Scenario* s, bool arm) {
  for (int i = 0; i < 2; ++i) s->objects.push_back(Subnet(kSubnets[i], i, true, true));
  s->objects.push_back(Json{{"apiVersion", "network.azure.com/v1"},
                            {"kind", "NetworkSecurityGroup"},
                            {"metadata", {{"name", kNsgId}}},
                            {"spec", {{"securityRules", Json::array()}}}});
  for (int i = 0; i < 3; ++i) {
    s->objects.push_back(Json{{"apiVersion", "machine.openshift.io/v1beta1"},
                              {"kind", "Machine"},
                              {"metadata",
                               {{"name", recon::StrCat("c1-master-", i)},
                                {"namespace", kMachineNamespace},
                                {"labels", {{"machine.openshift.io/cluster-api-machine-role", "master"}}}}},
                              {"spec", {{"providerSpec", ProviderSpec("master")}}}});
  }
  s->objects.push_back(
      Json{{"apiVersion", "machine.openshift.io/v1beta1"},
           {"kind", "MachineSet"},
           {"metadata",
            {{"name", kMachineSet},
             {"namespace", kMachineNamespace},
             {"labels", {{"machine.openshift.io/cluster-api-machine-role", "worker"}}}}},
           {"spec",
            {{"replicas", kWorkers}, {"template", {{"spec", {{"providerSpec", ProviderSpec("worker")}}}}}}}});
  // The service principal as OpenShift on Azure stores it (base64 of client-1,
  // secret-1, tenant-1, sub-1, c1-abcde, eastus): what the sim's probe and its
  // simulated AAD accept.
  s->objects.push_back(Json{{"apiVersion", "v1"},
                            {"kind", "Secret"},
                            {"metadata", {{"name", "azure-credentials"}, {"namespace", "kube-system"}}},
                            {"data",
                             {{"azure_client_id", "Y2xpZW50LTE="},
                              {"azure_client_secret", "c2VjcmV0LTE="},
                              {"azure_tenant_id", "dGVuYW50LTE="},
                              {"azure_subscription_id", "c3ViLTE="},
                              {"azure_resource_prefix", "YzEtYWJjZGU="},
                              {"azure_region", "ZWFzdHVz"}}}});
  s->objects.push_back(
      Json{{"apiVersion", "aro.openshift.io/v1alpha1"},
           {"kind", "Cluster"},
           {"metadata", {{"name", "cluster"}}},
           {"spec",
            {{"resourceId",
              "/subscriptions/sub-1/resourceGroups/rg-cluster/providers/Microsoft.RedHatOpenShift/"
              "openShiftClusters/c1"},
             {"clusterResourceGroupId", "/subscriptions/sub-1/resourceGroups/aro-infra"},
             {"infraId", "c1-abcde"},
             {"architectureVersion", 1},
             {"azEnvironment", "AzurePublicCloud"},
             {"location", "eastus"},
             {"acrDomain", "arosvc.azurecr.io"},
             {"domain", "c1.eastus.aroapp.io"},
             {"internetChecker",
              {{"urls", Json::array({"https://arosvc.azurecr.io/", "https://management.azure.com/"})}}},
             {"operatorflags",
              {{"aro.azuresubnets.enabled", "true"},
               {"aro.azuresubnets.nsg.managed", "true"},
               {"aro.azuresubnets.serviceendpoint.managed", "true"},
               {"aro.checker.enabled", "true"},
               {"aro.alertwebhook.enabled", "false"},
               {"aro.genevalogging.enabled", "false"}}}}}});
  sim::ProbeRule sp;
  sp.probe = "aro/serviceprincipal";
  sp.ok = true;
  sp.data = Json{{"aud", "https://graph.microsoft.com"}, {"appid", "client-1"}, {"roles", Json::array()}};
  s->probes.push_back(std::move(sp));
  // A drift is repaired within a minute of the agent's clock even when no
  // Machine event comes (the final MachineSet edit repairs what is left).
  // Shorter, the rounds' requests would keep the run from ever being quiet
  // (soak.h, quiet_ms). Through ARM a drift is seen only by a poll, so
  // they are frequent; a poll that finds no new etag does not count as
  // activity (soak.cc).
  s->options.emplace_back("aro.subnetsInterval", arm ? kSoakArmPollInterval : "1m");
}

void SoakAroEdit(SplitMix64& rng, int64_t at_ns, std::vector<sim::Edit>* edits) {
  const uint64_t roll = rng.Next() % 3;
  const int subnet = static_cast<int>(rng.Next() % 2);
  if (roll == 2) {
    edits->push_back(ScaleWorkers(at_ns, kWorkers + static_cast<int>(rng.Next() % 3)));
    return;
  }
  // An ARM PUT outside the operator: the subnet without its NSG (roll 0)
  // or without its storage endpoint (roll 1).
  sim::Edit e;
  e.at_ns = at_ns;
  e.op = sim::Edit::Op::kUpdate;
  e.object = Subnet(kSubnets[subnet], subnet, roll != 0, roll != 1);
  edits->push_back(std::move(e));
}

sim::Edit SoakAroRotateSecret(int64_t at_ns) {
  sim::Edit e;
  e.at_ns = at_ns;
  e.op = sim::Edit::Op::kSet;
  e.object = Json{
      {"apiVersion", "v1"}, {"kind", "Secret"}, {"namespace", "kube-system"}, {"name", "azure-credentials"}};
  e.path = "data.azure_client_secret";
  e.value = "c2VjcmV0LTI=";  // base64 of kSoakRotatedSecret
  return e;
}

// A size no other edit sets (they scale to 3..5): always a change, so it
// always triggers the subnets controller.
sim::Edit SoakAroFinalEdit(int64_t at_ns) { return ScaleWorkers(at_ns, kWorkers + 3); }

}  // namespace recon::soak
