#include "soak/workload.h"

#include <algorithm>
#include <set>

#include "base/splitmix.h"
#include "base/strings.h"
#include "domains/samples/inventory.h"
#include "soak/aro.h"

namespace recon::soak {
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

sim::Edit SetSamplesConfig(int64_t at_ns, const char* path, Json value) {
  sim::Edit edit;
  edit.at_ns = at_ns;
  edit.op = sim::Edit::Op::kSet;
  edit.object = Ref("samples.operator.openshift.io/v1", "Config", "", "cluster");
  edit.path = path;
  edit.value = std::move(value);
  return edit;
}

// Up to three distinct names of `all`, sorted; none a quarter of the time
// (the skip list emptied).
Json SomeNames(SplitMix64& rng, const std::vector<std::string>& all) {
  std::vector<std::string> names;
  int n = static_cast<int>(rng.Next() % 4);
  for (int k = 0; k < n && !all.empty(); ++k) names.push_back(all[rng.Next() % all.size()]);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  Json out = Json::array();
  for (auto& name : names) out.push_back(std::move(name));
  return out;
}

// What the samples spec edits have left, so the run can end where its final
// state depends on the inventory alone.
struct SamplesSpec {
  bool removed = false;
  Json skipped_streams = Json::array(), skipped_templates = Json::array();
  std::string registry;
};

// One edit of the samples Config's spec: a skip list replaced (names from the
// inventory) or the registry override switched.
sim::Edit SamplesSpecEdit(const WorkloadOptions& o, SplitMix64& rng, int64_t at_ns, SamplesSpec* spec) {
  int kind = static_cast<int>(rng.Next() % 3);
  if (kind == 0 && !o.samples_imagestreams.empty()) {
    spec->skipped_streams = SomeNames(rng, o.samples_imagestreams);
    return SetSamplesConfig(at_ns, "spec.skippedImagestreams", spec->skipped_streams);
  }
  if (kind == 1 && !o.samples_templates.empty()) {
    spec->skipped_templates = SomeNames(rng, o.samples_templates);
    return SetSamplesConfig(at_ns, "spec.skippedTemplates", spec->skipped_templates);
  }
  // An override set, moved to the other mirror, or removed (back to the
  // inventory's own registries).
  uint64_t r = rng.Next() % 3;
  if (spec->registry.empty()) {
    spec->registry = kSoakSamplesRegistries[r % 2];
  } else if (r == 0) {
    spec->registry =
        spec->registry == kSoakSamplesRegistries[0] ? kSoakSamplesRegistries[1] : kSoakSamplesRegistries[0];
  } else {
    spec->registry.clear();
  }
  return SetSamplesConfig(at_ns, "spec.samplesRegistry", spec->registry);
}

constexpr char kOlmApiVersion[] = "operators.coreos.com/v1alpha1";

// The last OLM namespace is the Manual one (when there are two or more).
bool OlmManual(const WorkloadOptions& o, int ns) {
  return o.olm_namespaces >= 2 && ns == o.olm_namespaces - 1;
}

// Odd namespaces other than the Manual one are where subscriptions are
// uninstalled and installed again, one namespace per package there. An
// InstallPlan made from a view that still had the deleted subscription
// and shared with other subscriptions' steps outlives it (its other owners
// keep it from garbage collection) and installs a CSV after the uninstall,
// which makes the new subscription unsatisfiable: upstream OLM loses that
// race too, so the workload does not run it.
bool OlmRecreates(const WorkloadOptions& o, int ns) { return ns % 2 == 1 && !OlmManual(o, ns); }

std::string OlmNamespace(const WorkloadOptions& o, int ns, size_t package) {
  return OlmRecreates(o, ns) ? recon::StrCat("olm-soak-", ns, "-", package) : recon::StrCat("olm-soak-", ns);
}

// What a subscription slot (namespace, package) holds between edits.
struct OlmSlot {
  bool exists = false;
  std::string channel;
  bool starting = false;  // with startingCSV (else the channel head is installed)
};

Json Subscription(const WorkloadOptions& o, int ns, size_t pi, const OlmSlot& slot) {
  const SoakOlmPackage& p = o.olm_packages[pi];
  Json spec = {{"name", p.name},
               {"channel", slot.channel},
               {"source", kSoakCatalogName},
               {"sourceNamespace", kSoakCatalogNamespace},
               {"installPlanApproval", OlmManual(o, ns) ? "Manual" : "Automatic"}};
  if (slot.starting) spec["startingCSV"] = p.start;
  return Json{{"apiVersion", kOlmApiVersion},
              {"kind", "Subscription"},
              {"metadata", {{"name", p.name}, {"namespace", OlmNamespace(o, ns, pi)}}},
              {"spec", spec}};
}

// One OLM user edit: a subscription created, switched to the channel that
// holds every entry of its default one (a switch the installed CSV can
// follow, whichever it is by then), or uninstalled and created again two
// steps later (OlmRecreates); a label set when none of these applies.
void OlmEdit(const WorkloadOptions& o, SplitMix64& rng, int64_t at_ns,
             std::vector<std::vector<OlmSlot>>* slots, std::vector<sim::Edit>* out) {
  auto pick = [&](size_t n) { return static_cast<size_t>(rng.Next() % std::max<size_t>(1, n)); };
  int ns = static_cast<int>(pick(static_cast<size_t>(o.olm_namespaces)));
  size_t pi = pick(o.olm_packages.size());
  const SoakOlmPackage& p = o.olm_packages[pi];
  const std::string nsname = OlmNamespace(o, ns, pi);
  OlmSlot& slot = (*slots)[static_cast<size_t>(ns)][pi];
  sim::Edit edit;
  edit.at_ns = at_ns;
  if (!slot.exists) {
    // A Manual subscription always names its startingCSV: its plan waits
    // for approval, so a head install would stay on whichever head the
    // catalog had when it was planned (before or after the update).
    const bool starting = pick(4) != 0;
    slot = OlmSlot{true, p.channel, starting || OlmManual(o, ns)};
    edit.op = sim::Edit::Op::kCreate;
    edit.object = Subscription(o, ns, pi, slot);
    out->push_back(std::move(edit));
    return;
  }
  const bool can_switch = !p.other_channel.empty() && slot.channel == p.channel;
  if (can_switch && (pick(10) < 4 || !OlmRecreates(o, ns))) {
    slot.channel = p.other_channel;
    edit.op = sim::Edit::Op::kSet;
    edit.object = Ref(kOlmApiVersion, "Subscription", nsname, p.name);
    edit.path = "spec.channel";
    edit.value = slot.channel;
    out->push_back(std::move(edit));
    return;
  }
  if (!OlmRecreates(o, ns)) {
    edit.op = sim::Edit::Op::kSet;
    edit.object = Ref(kOlmApiVersion, "Subscription", nsname, p.name);
    edit.path = "metadata.labels.soak-touched";
    edit.value = std::to_string(at_ns / 1'000'000'000);
    out->push_back(std::move(edit));
    return;
  }
  // Uninstalled as OLM's docs say (the subscription, then its CSVs: every
  // CSV of the namespace, which holds this operator alone; the operator
  // label OLM puts on the installed CSV misses one an upgrade is
  // installing), then installed again: a CSV left behind would make the
  // new subscription unsatisfiable (reference §9.2).
  edit.op = sim::Edit::Op::kDelete;
  edit.object = Ref(kOlmApiVersion, "Subscription", nsname, p.name);
  out->push_back(std::move(edit));
  sim::Edit csvs;
  csvs.at_ns = at_ns + o.spacing_ns;
  csvs.op = sim::Edit::Op::kDelete;
  csvs.object = Json{{"apiVersion", kOlmApiVersion},
                     {"kind", "ClusterServiceVersion"},
                     {"namespace", nsname},
                     {"labelSelector", Json::object()}};  // kubectl delete csv --all
  // Again just before the install: a plan of the deleted subscription
  // still on its way may have created a CSV after the first delete (the
  // race above, which upstream loses too; seen in a fault-free leg of the
  // suite's soak under load).
  sim::Edit late = csvs;
  late.at_ns = at_ns + 2 * o.spacing_ns - o.spacing_ns / 4;
  out->push_back(std::move(csvs));
  out->push_back(std::move(late));
  sim::Edit again;
  again.at_ns = at_ns + 2 * o.spacing_ns;
  again.op = sim::Edit::Op::kCreate;
  again.object = Subscription(o, ns, pi, slot);
  out->push_back(std::move(again));
}

// The cluster before the first edit: the operator and its instances; with
// an inventory the samples Config, with packages OLM's catalog source and
// namespaces, with aro the ARO cluster's objects.
sim::Scenario InitialScenario(const WorkloadOptions& o) {
  sim::Scenario s;
  s.name = recon::StrCat("soak-", o.seed);
  s.seed = o.seed;
  s.start_ns = 1'795'255'200'000'000'000;  // 2026-11-21T10:00:00Z
  s.facts = Json{{"architecture", "x86_64"}, {"version", "4.16.0"}};
  s.options.emplace_back("disconnected.operatorDeployment",
                         recon::StrCat(kSoakOperatorNamespace, "/", kSoakOperatorName));
  // A full sync every few seconds: a create whose add and delete a relist
  // swallowed is noticed within the soak's quiet period (soak.h).
  s.options.emplace_back("disconnected.resyncPeriod", "5s");
  s.objects.push_back(OperatorDeployment(kFedora[0]));
  for (int i = 0; i < o.instances; ++i) s.objects.push_back(Instance(o, i));
  if (!o.samples_inventory.empty()) {
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
  if (!o.olm_packages.empty() && o.olm_namespaces > 0) {
    s.objects.push_back(Json{{"apiVersion", kOlmApiVersion},
                             {"kind", "CatalogSource"},
                             {"metadata", {{"name", kSoakCatalogName}, {"namespace", kSoakCatalogNamespace}}},
                             {"spec", {{"sourceType", "grpc"}, {"displayName", "Community Operators"}}}});
    std::set<std::string> names;
    for (int i = 0; i < o.olm_namespaces; ++i)
      for (size_t p = 0; p < o.olm_packages.size(); ++p) names.insert(OlmNamespace(o, i, p));
    for (const auto& n : names) {
      s.objects.push_back(Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", n}}}});
      s.objects.push_back(Json{{"apiVersion", "operators.coreos.com/v1"},
                               {"kind", "OperatorGroup"},
                               // Named for the namespace: the ClusterRoles upstream generates
                               // for a group are named for it alone (<group>-admin, ...), so
                               // namespaces' groups of one name share them (OLM v0.24.0).
                               // Each targets its own namespace (OwnNamespace): groups that
                               // all target every namespace would install the same operator
                               // twice over, which upstream refuses.
                               {"metadata", {{"name", recon::StrCat(n, "-og")}, {"namespace", n}}},
                               {"spec", Json{{"targetNamespaces", Json::array({n})}}}});
    }
  }
  if (o.aro) AddSoakAroObjects(&s, o.aro_arm);
  return s;
}

// One edit of the operator and its instances at `edit.at_ns`, drawn from
// `rng`: a rollout to another registry, an operand deleted or drifted, an
// instance scaled, or deleted and created again.
void DfaEdit(const WorkloadOptions& o, SplitMix64& rng, int* fedora, sim::Edit edit,
             std::vector<sim::Edit>* out) {
  auto pick = [&](int n) { return static_cast<int>(rng.Next() % static_cast<uint64_t>(std::max(1, n))); };
  int i = pick(o.instances);
  std::string ns = Namespace(o, i), name = InstanceName(i);
  const char* app = pick(2) == 0 ? "busybox" : "sleeper";
  int roll = pick(100);
  if (roll < 25) {  // the operator rolled to another registry: every operand follows
    *fedora = (*fedora + 1 + pick(2)) % 3;
    edit.op = sim::Edit::Op::kUpdate;
    edit.object = OperatorDeployment(kFedora[*fedora]);
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
    out->push_back(std::move(edit));
    out->push_back(std::move(again));
    return;
  }
  out->push_back(std::move(edit));
}

// The run ends Managed with nothing skipped and no override: what exists
// after a Removed depends on what the operator saw before it (upstream
// keeps some objects), skipped samples are left as they were when they
// were skipped (upstream never deletes them) and an override's images
// stay until the next upsert; Managed with the skip lists emptied and the
// override gone upserts every sample from the inventory, so the final
// state depends on the inventory alone. Half the seeds undo the spec
// edits before the last Managed (while Removed), half after it.
void UndoSamplesEdits(const WorkloadOptions& o, const SamplesSpec& spec, SplitMix64& samples_rng,
                      std::vector<sim::Edit>* out) {
  int64_t at = (o.edits + 1) * o.spacing_ns;
  std::vector<sim::Edit> undo;
  if (!spec.skipped_streams.empty())
    undo.push_back(SetSamplesConfig(0, "spec.skippedImagestreams", Json::array()));
  if (!spec.skipped_templates.empty())
    undo.push_back(SetSamplesConfig(0, "spec.skippedTemplates", Json::array()));
  if (!spec.registry.empty()) undo.push_back(SetSamplesConfig(0, "spec.samplesRegistry", ""));
  if (spec.removed) {
    auto managed = SetSamplesConfig(0, "spec.managementState", "Managed");
    if (samples_rng.Next() % 2 == 0) {
      undo.insert(undo.begin(), std::move(managed));
    } else {
      undo.push_back(std::move(managed));
    }
  }
  for (auto& edit : undo) {
    edit.at_ns = at;
    at += o.spacing_ns / 4;
    out->push_back(std::move(edit));
  }
}

}  // namespace

sim::Scenario BuildSoakScenario(const WorkloadOptions& o) {
  sim::Scenario s = InitialScenario(o);
  const bool samples = !o.samples_inventory.empty();
  const bool olm = !o.olm_packages.empty() && o.olm_namespaces > 0;
  const int rotate_at = o.aro && o.aro_arm ? static_cast<int>(o.aro_rotate_at * o.edits) : -1;
  std::vector<std::vector<OlmSlot>> olm_slots(static_cast<size_t>(std::max(0, o.olm_namespaces)),
                                              std::vector<OlmSlot>(o.olm_packages.size()));
  // Its own stream too, like the samples edits.
  SplitMix64 olm_rng(o.seed * 0xA0761D6478BD642Full + 41);
  SplitMix64 rng(o.seed * 0x9E3779B97F4A7C15ull + 17);
  // The samples spec edits draw from their own stream: the other edits stay
  // what they were without them.
  SplitMix64 samples_rng(o.seed * 0xD1B54A32D192ED03ull + 29);
  SplitMix64 aro_rng(o.seed * 0x8CB92BA72F3D8DD7ull + 53);
  int fedora = 0;
  SamplesSpec spec;
  const int every = o.samples_every;
  for (int e = 0; e < o.edits; ++e) {
    sim::Edit edit;
    edit.at_ns = (e + 1) * o.spacing_ns;
    if (samples && every > 0 && e % every == every / 2) {
      spec.removed = !spec.removed;
      s.edits.push_back(
          SetSamplesConfig(edit.at_ns, "spec.managementState", spec.removed ? "Removed" : "Managed"));
    } else if (samples && every >= 4 && (e % every == every / 4 || e % every == 3 * every / 4)) {
      s.edits.push_back(SamplesSpecEdit(o, samples_rng, edit.at_ns, &spec));
    } else if (e == rotate_at) {
      s.edits.push_back(SoakAroRotateSecret(edit.at_ns));
    } else if (o.aro && o.aro_every > 0 && e % o.aro_every == o.aro_every / 3) {
      SoakAroEdit(aro_rng, edit.at_ns, &s.edits);
    } else if (olm && o.olm_every > 0 && e % o.olm_every == o.olm_every - 1) {
      OlmEdit(o, olm_rng, edit.at_ns, &olm_slots, &s.edits);
    } else {
      DfaEdit(o, rng, &fedora, std::move(edit), &s.edits);
    }
  }
  if (samples) UndoSamplesEdits(o, spec, samples_rng, &s.edits);
  // The final MachineSet edit triggers an AzureSubnets round that repairs
  // every drift left: it comes 10 edit spacings (half a real second at the
  // default rate) after the last edit, so the agent has seen the last
  // Subnet change first. Subnets and MachineSets come on two watch
  // streams: half a spacing apart, the trigger could be reduced before the
  // drift it was meant to repair (four-domain soak, seed 6: the NSG
  // detached just before the trigger stayed detached until the next
  // round, a minute later).
  if (o.aro) s.edits.push_back(SoakAroFinalEdit((o.edits + 10) * o.spacing_ns));
  return s;
}

absl::Status LoadSoakSamplesNames(WorkloadOptions* o, const LoadDirectoryFn& load_directory) {
  o->samples_imagestreams.clear();
  o->samples_templates.clear();
  if (o->samples_inventory.empty()) return absl::OkStatus();
  auto files = load_directory(o->samples_inventory);
  if (!files.ok()) return files.status();
  auto inventory = samples::LoadInventory(*files);
  if (!inventory.ok()) return inventory.status();
  for (const auto& [name, stream] : inventory->streams) o->samples_imagestreams.push_back(name);
  for (const auto& [name, tmpl] : inventory->templates) o->samples_templates.push_back(name);
  return absl::OkStatus();
}

double EstimatedEventsPerEdit(const WorkloadOptions& o) {
  // A rollout (a quarter of the edits) moves both operands of every
  // instance: an update, its result and the watch event for each, and the
  // instance's status; the other edits touch one object (~6 events).
  // Measured fault-free: 341 events per edit at 200 instances.
  return 0.25 * 6.8 * o.instances + 0.75 * 6.0;
}

}  // namespace recon::soak
