#include "cli/soak_workload.h"

#include "base/splitmix.h"
#include "base/strings.h"

namespace recon::cli {
namespace {

using engine::Json;

constexpr char kDfaApiVersion[] = "tools.opdev.io/v1alpha1";
constexpr char kDfaKind[] = "DisconnectedFriendlyApp";

// Where the operator's images come from: an upstream digest and two mirrors
// of it, as a disconnected cluster's operator is rolled between registries.
const char* const kFedora[] = {
    "quay.io/fedora/fedora@sha256:b0c61163ff03105c5cce455b01f962e32d79895417bb153894cfa4e135bdb46a",
    "mirror.example.com:5000/fedora/"
    "fedora@sha256:b0c61163ff03105c5cce455b01f962e32d79895417bb153894cfa4e135bdb46a",
    "registry.internal:8443/fedora/"
    "fedora@sha256:b0c61163ff03105c5cce455b01f962e32d79895417bb153894cfa4e135bdb46a",
};

Json OperatorDeployment(const std::string& fedora) {
  Json env = Json::array({Json{{"name", "RELATED_IMAGE_FEDORA"}, {"value", fedora}},
                          Json{{"name", "DFA_SLEEPER_IMAGE"}, {"value", "$(RELATED_IMAGE_FEDORA)"}},
                          Json{{"name", "DFA_BUSYBOX_IMAGE"}, {"value", "$(RELATED_IMAGE_FEDORA)"}}});
  Json container = {{"name", "manager"},
                    {"image",
                     "quay.io/opdev/simple-disconnected-operator-cm@sha256:"
                     "c493825f45109230e0a03b4f102bad10130164330d396f545e2ae88794b4f7d9"},
                    {"env", env}};
  return Json{
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata", {{"name", kSoakOperatorName}, {"namespace", kSoakOperatorNamespace}}},
      {"spec", {{"replicas", 1}, {"template", {{"spec", {{"containers", Json::array({container})}}}}}}}};
}

std::string Namespace(const WorkloadOptions& o, int i) {
  return recon::StrCat("soak-", i % std::max(1, o.namespaces));
}
std::string InstanceName(int i) { return recon::StrCat("app-", i); }

Json Instance(const WorkloadOptions& o, int i) {
  return Json{{"apiVersion", kDfaApiVersion},
              {"kind", kDfaKind},
              {"metadata", {{"name", InstanceName(i)}, {"namespace", Namespace(o, i)}}},
              {"spec", Json::object()}};
}

Json Ref(const std::string& api_version, const std::string& kind, const std::string& ns,
         const std::string& name) {
  Json r = {{"apiVersion", api_version}, {"kind", kind}, {"name", name}};
  if (!ns.empty()) r["namespace"] = ns;
  return r;
}

}  // namespace

sim::Scenario BuildSoakScenario(const WorkloadOptions& o) {
  sim::Scenario s;
  s.name = recon::StrCat("soak-", o.seed);
  s.seed = o.seed;
  s.start_ns = 1'795'255'200'000'000'000;  // 2026-11-21T10:00:00Z
  s.facts = Json{{"architecture", "x86_64"}, {"version", "4.16.0"}};
  s.options.emplace_back("disconnected.operatorDeployment",
                         recon::StrCat(kSoakOperatorNamespace, "/", kSoakOperatorName));
  // A full sync every few seconds: a create whose add and delete a relist
  // swallowed is noticed within the soak's quiet period (cli/soak.h).
  s.options.emplace_back("disconnected.resyncPeriod", "5s");
  s.objects.push_back(OperatorDeployment(kFedora[0]));
  for (int i = 0; i < o.instances; ++i) s.objects.push_back(Instance(o, i));
  const bool samples = !o.samples_inventory.empty();
  if (samples) {
    s.samples_inventory = o.samples_inventory;
    s.options.emplace_back("samples.removalImportWait", "0s");
    for (const char* ns : {"openshift", "openshift-cluster-samples-operator"})
      s.objects.push_back(Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
    // The admin's Config exists from the start (the operator adopts it), so
    // the management-state flips apply whether or not the agent is up.
    s.objects.push_back(Json{{"apiVersion", "samples.operator.openshift.io/v1"},
                             {"kind", "Config"},
                             {"metadata", {{"name", "cluster"}}},
                             {"spec", {{"managementState", "Managed"}}}});
    sim::ImportRule fast;
    fast.latency_ns = 5'000'000'000;
    s.imports.push_back(fast);
    sim::ProbeRule registry;
    registry.probe = "samples/registry";
    registry.status = 200;
    s.probes.push_back(registry);
  }

  SplitMix64 rng(o.seed * 0x9E3779B97F4A7C15ull + 17);
  auto pick = [&](int n) { return static_cast<int>(rng.Next() % static_cast<uint64_t>(std::max(1, n))); };
  int fedora = 0;
  bool samples_removed = false;
  for (int e = 0; e < o.edits; ++e) {
    sim::Edit edit;
    edit.at_ns = (e + 1) * o.spacing_ns;
    if (samples && o.samples_every > 0 && e % o.samples_every == o.samples_every / 2) {
      samples_removed = !samples_removed;
      edit.op = sim::Edit::Op::kSet;
      edit.object = Ref("samples.operator.openshift.io/v1", "Config", "", "cluster");
      edit.path = "spec.managementState";
      edit.value = samples_removed ? "Removed" : "Managed";
      s.edits.push_back(std::move(edit));
      continue;
    }
    int i = pick(o.instances);
    std::string ns = Namespace(o, i), name = InstanceName(i);
    const char* app = pick(2) == 0 ? "busybox" : "sleeper";
    int roll = pick(100);
    if (roll < 25) {  // the operator rolled to another registry: every operand follows
      fedora = (fedora + 1 + pick(2)) % 3;
      edit.op = sim::Edit::Op::kUpdate;
      edit.object = OperatorDeployment(kFedora[fedora]);
    } else if (roll < 50) {  // an operand deleted: recreated
      edit.op = sim::Edit::Op::kDelete;
      edit.object = Ref("apps/v1", "Deployment", ns, recon::StrCat(app, "-", name));
    } else if (roll < 70) {  // drift: someone sets a tag
      edit.op = sim::Edit::Op::kSet;
      edit.object = Ref("apps/v1", "Deployment", ns, recon::StrCat(app, "-", name));
      edit.path = "spec.template.spec.containers";
      edit.value = Json::array({Json{{"name", app},
                                     {"image", recon::StrCat("docker.io/library/busybox:1.", 30 + pick(7))},
                                     {"command", Json::array({"/bin/sleep", "infinity"})}}});
    } else if (roll < 90) {  // scaled
      edit.op = sim::Edit::Op::kSet;
      edit.object = Ref(kDfaApiVersion, kDfaKind, ns, name);
      edit.path = pick(2) == 0 ? "spec.busyBoxReplicas" : "spec.sleeperReplicas";
      edit.value = 1 + pick(3);
    } else {  // deleted, and created again half a step later
      edit.op = sim::Edit::Op::kDelete;
      edit.object = Ref(kDfaApiVersion, kDfaKind, ns, name);
      sim::Edit again;
      again.at_ns = edit.at_ns + o.spacing_ns / 2;
      again.op = sim::Edit::Op::kCreate;
      again.object = Instance(o, i);
      s.edits.push_back(std::move(edit));
      s.edits.push_back(std::move(again));
      continue;
    }
    s.edits.push_back(std::move(edit));
  }
  if (samples && samples_removed) {
    // The run ends Managed: what exists after a Removed depends on what the
    // operator saw before it (upstream keeps some objects), after a Managed
    // only on the inventory.
    sim::Edit last;
    last.at_ns = (o.edits + 1) * o.spacing_ns;
    last.op = sim::Edit::Op::kSet;
    last.object = Ref("samples.operator.openshift.io/v1", "Config", "", "cluster");
    last.path = "spec.managementState";
    last.value = "Managed";
    s.edits.push_back(std::move(last));
  }
  return s;
}

double EstimatedEventsPerEdit(const WorkloadOptions& o) {
  // A rollout (a quarter of the edits) moves both operands of every
  // instance: an update, its result and the watch event for each, and the
  // instance's status; the other edits touch one object (~6 events).
  // Measured fault-free: 341 events per edit at 200 instances.
  return 0.25 * 6.8 * o.instances + 0.75 * 6.0;
}

}  // namespace recon::cli
