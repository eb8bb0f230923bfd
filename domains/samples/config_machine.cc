// The Config state machine (reference §6): at most one Config write per
// event; each write's watch event drives the next step.
#include "absl/strings/str_join.h"
#include "base/strings.h"
#include "domains/samples/clusteroperator.h"
#include "domains/samples/conditions.h"
#include "domains/samples/names.h"
#include "domains/samples/reducer.h"
#include "domains/samples/registry.h"

namespace recon::samples {
namespace {

bool KnownArch(std::string_view a) {
  return a == "x86_64" || a == "amd64" || a == "arm64" || a == "ppc64le" || a == "s390x";
}

std::vector<std::string> List(const Json& j) {
  std::vector<std::string> out;
  if (!j.is_array()) return out;
  for (const Json& s : j)
    if (s.is_string()) out.push_back(s.get<std::string>());
  return out;
}

// Go's %#v of a []string.
std::string GoSliceLiteral(const std::vector<std::string>& v) {
  std::string out = "[]string{";
  for (size_t i = 0; i < v.size(); ++i) recon::StrAppend(&out, i ? ", " : "", "\"", v[i], "\"");
  return out + "}";
}

}  // namespace

void SamplesReducer::CopySpecToStatus(const Json& spec, Json& status) {
  Json applied = Json::object();
  for (std::string_view k : {"samplesRegistry", "architectures", "skippedImagestreams", "skippedTemplates"}) {
    const Json& v = engine::Path(spec, {k});
    if (v.is_null()) {
      status.erase(std::string(k));
    } else {
      status[std::string(k)] = v;
      if (k != "architectures") applied[std::string(k)] = v;
    }
  }
  st_.applied = std::move(applied);
  st_.applied_registries.insert(engine::GetString(spec, {"samplesRegistry"}));
}

void SamplesReducer::UpdateClusterOperator(Ctx& c, Cfg& cfg, bool deletion) {
  CoInputs in;
  in.deletion = deletion;
  in.tbr_unreachable = st_.tbr_unreachable;
  in.operator_version = c.version;
  for (const engine::Object* cm : c.world.ListIn("", "ConfigMap", kOperatorNs)) {
    if (cm->name() != kIstToImageCm) in.active_configmaps.emplace_back(cm->name());
  }
  CoDesired desired = ComputeClusterOperator(cfg.spec, cfg.status, in, c.now);
  if (!desired.special) st_.degraded_metric = desired.degraded ? 1 : 0;

  Json co = Json::object();
  co["apiVersion"] = kConfigApiVersion;
  co["kind"] = "ClusterOperator";
  co["metadata"] = Json{{"name", kClusterOperatorName}};
  const engine::Object* seen = c.world.Get(kConfigGroup, "ClusterOperator", "", kClusterOperatorName);
  if (seen == nullptr) {
    // The CRD requires a spec (empty for every operator), and the server
    // drops a create's status (status subresource): the status is written
    // through /status once the create's Added event is observed, which
    // re-enqueues the Config. An identical create still in flight is not
    // sent again (Write).
    co["spec"] = Json::object();
    Write(c, "create", co);
    return;
  }
  // Our last status write, if not observed yet, is the newest state we know.
  Json base = engine::Path(seen->json(), {"status"});
  if (const engine::EmittedWrite* w =
          PendingWrite(c, kConfigGroup, "ClusterOperator", "", kClusterOperatorName, "updateStatus")) {
    auto body = engine::ParseJson(w->body);
    if (body.ok()) base = engine::Path(*body, {"status"});
  }
  Json status;
  if (!MergeClusterOperator(base, desired, c.now, &status)) return;
  // A custom resource update without a resourceVersion is refused.
  std::string rv = engine::GetString(seen->json(), {"metadata", "resourceVersion"});
  if (!rv.empty()) co["metadata"]["resourceVersion"] = rv;
  co["status"] = std::move(status);
  Write(c, "updateStatus", co);
}

bool SamplesReducer::ValidateSpec(Ctx& c, Cfg& cfg) {
  auto invalid = [&](const std::string& message) {
    if (ErrorConditionUpdate(cfg.status, kConfigurationValid, "False",
                             ErrorReason(kConfigurationValid, "False"), message, c.now)) {
      st_.invalidconfig_metric = 1;
      WriteConfigStatus(c, cfg);
    }
    return false;
  };
  std::vector<std::string> spec_archs = List(engine::Path(cfg.spec, {"architectures"}));
  for (const auto& a : spec_archs) {
    if (!KnownArch(a)) {
      return invalid(
          recon::StrCat("architecture ", a, " unsupported; only support x86_64,amd64,arm64,ppc64le,s390x"));
    }
  }
  if (!ConditionTrue(cfg.status, kSamplesExist) && !ConditionTrue(cfg.status, kImageChangesInProgress)) {
    return true;  // before samples exist (or after Removed) any arch is accepted
  }
  std::vector<std::string> status_archs = List(engine::Path(cfg.status, {"architectures"}));
  if (!status_archs.empty() && status_archs != spec_archs) {
    if (status_archs.size() == spec_archs.size()) {
      return invalid(recon::StrCat("cannot change architectures from ", absl::StrJoin(status_archs, " "),
                                   " to ", absl::StrJoin(spec_archs, " ")));
    }
    return invalid(recon::StrCat("cannot change architectures from ", GoSliceLiteral(status_archs), " to ",
                                 GoSliceLiteral(spec_archs)));
  }
  std::string registry = engine::GetString(cfg.spec, {"samplesRegistry"});
  const engine::Object* image_config = c.world.Get(kConfigGroup, "Image", "", "cluster");
  if (image_config && ImageConfigBlocks(image_config->json(), registry)) {
    // Upstream formats the error with %#v.
    return invalid(recon::StrCat(
        "&errors.errorString{s:\"global openshift image configuration prevents the creation of imagestreams "
        "using the registry ",
        registry, "\"}"));
  }
  if (GoodConditionUpdate(cfg.status, kConfigurationValid, "True", c.now)) st_.invalidconfig_metric = 0;
  return true;
}

void SamplesReducer::ReconcileConfig(Ctx& c) {
  auto read = ReadConfig(c.world);
  if (!read) return;
  Cfg& cfg = *read;
  const bool config_event = c.ev.IsObject() && c.ev.group == kSamplesGroup && c.ev.kind == "Config";
  // Our last Config write is not observed yet: wait for its watch event,
  // which drives the next step (upstream would hit a conflict and requeue).
  // The ClusterOperator is still brought up to the Config as observed:
  // upstream computes it at each Config event, and the create's Added
  // event is where its first status (before any upsert) is written.
  if (!config_event && PendingConfigWrite(c) != nullptr) {
    if (engine::GetString(cfg.obj->json(), {"metadata", "deletionTimestamp"}).empty()) {
      UpdateClusterOperator(c, cfg, /*deletion=*/false);
    }
    return;
  }

  if (!engine::GetString(cfg.obj->json(), {"metadata", "deletionTimestamp"}).empty()) {
    HandleDeletion(c, cfg);
    return;
  }
  if (cfg.mgmt != kRemoved) EndRemoval(c);
  UpdateClusterOperator(c, cfg, /*deletion=*/false);

  // Management state (§6.4).
  if (cfg.mgmt == kRemoved) {
    if (ProcessRemoved(c, cfg)) WriteConfigStatus(c, cfg);
    return;
  }
  const std::string status_mgmt = engine::GetString(cfg.status, {"managementState"});
  if (ReconcileNotManaged(c, cfg, status_mgmt)) return;

  // Spec validation (§6.5).
  const bool was_valid = ConditionTrue(cfg.status, kConfigurationValid);
  if (!ValidateSpec(c, cfg)) return;
  if (!was_valid && ConditionTrue(cfg.status, kConfigurationValid)) {
    WriteConfigStatus(c, cfg);  // spec corrected
    return;
  }

  // Change detection (§6.6), only when spec and status agree on the state.
  ConfigChanges ch;
  if (cfg.mgmt == status_mgmt) {
    ch = DetectChanges(c, cfg);
    // Steady state. Deviation (D-series race): a RemovePending left True by a
    // quick Removed→Managed flip is not steady; step 11 below clears it.
    if (!ch.changed && ConditionTrue(cfg.status, kSamplesExist) &&
        ConditionFalse(cfg.status, kImageChangesInProgress) &&
        engine::GetString(cfg.status, {"version"}) == c.version &&
        !ConditionTrue(cfg.status, kRemovePending)) {
      MaintainSteadyState(c, cfg);
      return;
    }
    if (ch.needs_upsert && ConditionTrue(cfg.status, kImageChangesInProgress)) {
      GoodConditionUpdate(cfg.status, kImageChangesInProgress, "False", c.now);
      WriteConfigStatus(c, cfg);
      return;
    }
  }
  if (status_mgmt != kManaged) {
    cfg.status["managementState"] = kManaged;
    WriteConfigStatus(c, cfg);
    return;
  }
  if (ConditionTrue(cfg.status, kRemovePending)) {
    GoodConditionUpdate(cfg.status, kRemovePending, "False", c.now);
    WriteConfigStatus(c, cfg);
    return;
  }
  auto inv = GetInventory(c.world);
  if (!ch.changed && inv.ok() && ShouldSetVersion(c, cfg, **inv)) {
    cfg.status["version"] = c.version;
    WriteConfigStatus(c, cfg);
    return;
  }
  RelabelSkipped(c, cfg);
  if (ch.changed && !ch.needs_upsert && ConditionTrue(cfg.status, kSamplesExist)) {
    CopySpecToStatus(cfg.spec, cfg.status);
    WriteConfigStatus(c, cfg);
    return;
  }
  FullUpsert(c, cfg, ch.unskipped_streams, ch.unskipped_templates, ch.registry_changed);
}

bool SamplesReducer::ReconcileNotManaged(Ctx& c, Cfg& cfg, const std::string& status_mgmt) {
  if (cfg.mgmt == kUnmanaged) {
    st_.tbr_unreachable = false;
    bool changed = false;
    if (status_mgmt != kUnmanaged) {
      cfg.status["managementState"] = kUnmanaged;
      cfg.status["version"] = c.version;
      if (ConditionTrue(cfg.status, kRemovePending))
        GoodConditionUpdate(cfg.status, kRemovePending, "False", c.now);
      changed = true;
    } else if (engine::GetString(cfg.status, {"version"}) != c.version) {
      cfg.status["version"] = c.version;
      changed = true;
    }
    if (changed) WriteConfigStatus(c, cfg);
    return true;
  }
  if (cfg.mgmt == kManaged) {
    st_.tbr_unreachable = false;
  } else if (cfg.mgmt != kForce && !cfg.mgmt.empty()) {
    // Deviation: upstream treats garbage as Managed and loses the message;
    // recon says so and does nothing else until the spec is fixed.
    if (ErrorConditionUpdate(cfg.status, kConfigurationValid, "False",
                             ErrorReason(kConfigurationValid, "False"),
                             recon::StrCat("Unexpected management state ", cfg.mgmt,
                                           " received; expected Managed, Unmanaged, Removed or Force"),
                             c.now)) {
      st_.invalidconfig_metric = 1;
      WriteConfigStatus(c, cfg);
    }
    return true;
  }
  return false;
}

SamplesReducer::ConfigChanges SamplesReducer::DetectChanges(Ctx& c, Cfg& cfg) {
  ConfigChanges ch;
  // Deviation (recon): what was unskipped or moved registry is judged
  // against the status and also against what our last copy of the spec
  // into the status said (st_.applied). The samples are written before the
  // status that records them; when that status write fails (it conflicts
  // with a newer spec, or the agent is killed), upstream compares the new
  // spec with a status that never recorded the change, and an undone
  // registry override or skip is never undone in the cluster.
  const Json* applied = st_.applied ? &*st_.applied : nullptr;
  auto unskipped = [&](const char* field, const std::set<std::string>& spec_skips,
                       std::set<std::string>* out) {
    for (const Json* base : std::initializer_list<const Json*>{&cfg.status, applied}) {
      if (base == nullptr) continue;
      for (const auto& n : List(engine::Path(*base, {field}))) {
        if (spec_skips.contains(n)) continue;
        out->insert(n);
        ch.changed = ch.needs_upsert = true;
      }
    }
  };
  // Deviation (recon): an inventory object a skip relabeled managed=false
  // that the spec no longer skips is unskipped too, whatever the status
  // says, so that no history leaves it relabeled (a later Removed would
  // leave it behind: cleanup deletes only managed=true objects).
  auto inventory = GetInventory(c.world);
  auto relabeled = [&](bool streams, const std::set<std::string>& skipped, std::set<std::string>* out) {
    if (!inventory.ok()) return;
    std::string_view group = streams ? kImageGroup : kTemplateGroup;
    std::string_view kind = streams ? "ImageStream" : "Template";
    for (const auto& [name, file] : streams ? (*inventory)->streams : (*inventory)->templates) {
      if (skipped.contains(name)) continue;
      const engine::Object* o = c.world.Get(group, kind, kSamplesNs, name);
      if (o == nullptr || o->Label(kManagedLabel) != "false") continue;
      out->insert(name);
      ch.changed = ch.needs_upsert = true;
    }
  };
  if (List(engine::Path(cfg.status, {"skippedTemplates"})).size() != cfg.skipped_templates.size())
    ch.changed = true;
  unskipped("skippedTemplates", cfg.skipped_templates, &ch.unskipped_templates);
  relabeled(/*streams=*/false, cfg.skipped_templates, &ch.unskipped_templates);
  const std::string registry = engine::GetString(cfg.spec, {"samplesRegistry"});
  if (registry != engine::GetString(cfg.status, {"samplesRegistry"}) ||
      (applied && registry != engine::GetString(*applied, {"samplesRegistry"}))) {
    ch.changed = ch.needs_upsert = ch.registry_changed = true;  // every stream is upserted
  } else {
    if (List(engine::Path(cfg.status, {"skippedImagestreams"})).size() != cfg.skipped_streams.size())
      ch.changed = true;
    unskipped("skippedImagestreams", cfg.skipped_streams, &ch.unskipped_streams);
    relabeled(/*streams=*/true, cfg.skipped_streams, &ch.unskipped_streams);
    // A skipped stream's import tracking is dropped on every pass.
    for (const auto& s : cfg.skipped_streams) {
      DeleteConfigMapIfPresent(c, s);
      st_.failing.erase(s);
    }
  }
  return ch;
}

void SamplesReducer::MaintainSteadyState(Ctx& c, Cfg& cfg) {
  auto inv = GetInventory(c.world);
  if (!inv.ok()) return;
  MaintainIstToImage(c, *inv);
  const Json& archs = engine::Path(cfg.spec, {"architectures"});
  if (!(archs.is_array() && !archs.empty() && archs[0].is_string() &&
        !KnownArch(archs[0].get<std::string>()))) {
    CreateMissing(c, cfg, **inv);
  }
  // Pending tracking ConfigMaps no stream event will clear (recon).
  std::vector<std::string> pending;
  for (const engine::Object* cm : c.world.ListIn("", "ConfigMap", kOperatorNs))
    if (cm->name() != kIstToImageCm && cm->Label(kImportErrorLabel) != "true")
      pending.emplace_back(cm->name());
  for (const auto& name : pending) SettleTracking(c, cfg, name);
}

}  // namespace recon::samples
