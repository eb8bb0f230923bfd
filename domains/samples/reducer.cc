#include "domains/samples/reducer.h"

#include "base/strings.h"
#include "domains/samples/conditions.h"
#include "domains/samples/names.h"
#include "engine/initial_lists.h"
#include "engine/time_format.h"

namespace recon::samples {
namespace {

std::string GroupOf(std::string_view api_version) {
  size_t slash = api_version.find('/');
  return slash == std::string_view::npos ? "" : std::string(api_version.substr(0, slash));
}

Json StringList(const std::vector<std::string>& v) {
  Json out = Json::array();
  for (const auto& s : v) out.push_back(s);
  return out;
}

std::vector<std::string> ReadList(const Json& j) {
  std::vector<std::string> out;
  if (!j.is_array()) return out;
  for (const Json& s : j)
    if (s.is_string()) out.push_back(s.get<std::string>());
  return out;
}

uint64_t U(const Json& j, std::string_view k) {
  const Json& v = engine::Path(j, {k});
  return v.is_number_unsigned() ? v.get<uint64_t>() : v.is_number_integer() ? uint64_t(v.get<int64_t>()) : 0;
}
int64_t I(const Json& j, std::string_view k) {
  const Json& v = engine::Path(j, {k});
  return v.is_number_integer() ? v.get<int64_t>() : 0;
}

Json RemovalToJson(const RemovalRecord& r) {
  Json j{{"requested_seq", r.requested_seq},
         {"requested_ns", r.requested_ns},
         {"waiting_since_seq", r.waiting_since_seq},
         {"waiting_since_ns", r.waiting_since_ns},
         {"waiting_on", StringList(r.waiting_on)},
         {"gave_up_seq", r.gave_up_seq},
         {"gave_up_ns", r.gave_up_ns},
         {"abandoned", StringList(r.abandoned)},
         {"completed_seq", r.completed_seq},
         {"deadline_ns", r.deadline_ns},
         {"timer_set", r.timer_set}};
  if (!r.waited_on.empty()) j["waited_on"] = StringList(r.waited_on);  // absent before explain notes
  return j;
}

RemovalRecord RemovalFromJson(const Json& j) {
  RemovalRecord r;
  r.requested_seq = U(j, "requested_seq");
  r.requested_ns = I(j, "requested_ns");
  r.waiting_since_seq = U(j, "waiting_since_seq");
  r.waiting_since_ns = I(j, "waiting_since_ns");
  r.waiting_on = ReadList(engine::Path(j, {"waiting_on"}));
  r.gave_up_seq = U(j, "gave_up_seq");
  r.gave_up_ns = I(j, "gave_up_ns");
  r.abandoned = ReadList(engine::Path(j, {"abandoned"}));
  r.completed_seq = U(j, "completed_seq");
  r.deadline_ns = I(j, "deadline_ns");
  const Json& t = engine::Path(j, {"timer_set"});
  r.timer_set = t.is_boolean() && t.get<bool>();
  r.waited_on = ReadList(engine::Path(j, {"waited_on"}));
  return r;
}

}  // namespace

std::unique_ptr<engine::Reducer> MakeReducer() { return std::make_unique<SamplesReducer>(); }

std::string_view SamplesReducer::Domain() const { return kDomain; }

std::vector<engine::OptionSpec> SamplesReducer::Options() const {
  return {
      {"inventory", "", "directory of the samples inventory (<group>/{imagestreams,templates}/*.json)", true,
       std::string(kInventoryContent)},
      {"removalImportWait", "10m",
       "how long Removed waits for in-progress imagestream imports: a duration (10m: default; 0s: never "
       "wait, as "
       "current upstream) or \"forever\" (historical behaviour)",
       false, ""},
  };
}

absl::Status SamplesReducer::SetOption(std::string_view key, std::string_view value) {
  if (key == "inventory") return absl::OkStatus();  // arrives as Content
  if (key == "removalImportWait") {
    if (value == "forever") {
      removal_wait_ns_ = kWaitForever;
      removal_wait_text_ = "forever";
      return absl::OkStatus();
    }
    auto d = engine::ParseDurationNs(value);
    if (!d.ok() || *d < 0) {
      return absl::InvalidArgumentError(
          recon::StrCat("expected a duration such as 10m, 90s or 0s, or \"forever\"; got \"", value, "\""));
    }
    removal_wait_ns_ = *d;
    removal_wait_text_ = std::string(value);
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      recon::StrCat("unknown option \"", key, "\" (samples options: inventory, removalImportWait)"));
}

const engine::EmittedWrite* SamplesReducer::PendingWrite(Ctx& c, std::string_view group,
                                                         std::string_view kind, std::string_view ns,
                                                         std::string_view name, std::string_view verb) {
  if (auto w = c.emit.Written(group, kind, ns, name)) {
    c.pending = std::move(*w);
  } else if (const engine::TrackedWrite* t = c.world.writes().Pending(kDomain, group, kind, ns, name)) {
    c.pending = engine::EmittedWrite{t->verb, t->body, t->action};
  } else {
    return nullptr;
  }
  if (!verb.empty() && c.pending.verb != verb) return nullptr;
  return &c.pending;
}

const engine::EmittedWrite* SamplesReducer::PendingConfigWrite(Ctx& c) {
  return PendingWrite(c, kSamplesGroup, "Config", "", kConfigName);
}

std::string SamplesReducer::Write(Ctx& c, std::string_view verb, const Json& object) {
  std::string body = engine::Dump(object);
  const std::string group = GroupOf(engine::GetString(object, {"apiVersion"}));
  const std::string kind = engine::GetString(object, {"kind"});
  const std::string ns = engine::GetString(object, {"metadata", "namespace"});
  const std::string name = engine::GetString(object, {"metadata", "name"});
  // The same write, sent and not yet shown by the world, is not repeated.
  if (const engine::EmittedWrite* w = PendingWrite(c, group, kind, ns, name);
      w && w->verb == verb && w->body == body)
    return w->action;
  if (verb == "updateStatus" && kind == "Config" && name == kConfigName && ns.empty())
    st_.written_status_mgmt = engine::GetString(object, {"status", "managementState"});
  return c.emit.Object(verb, object);
}

void SamplesReducer::WriteConfigStatus(Ctx& c, const Cfg& cfg) {
  Json o = Json::object();
  o["apiVersion"] = kSamplesApiVersion;
  o["kind"] = "Config";
  Json meta = Json::object();
  meta["name"] = kConfigName;
  std::string rv = engine::GetString(cfg.obj->json(), {"metadata", "resourceVersion"});
  if (!rv.empty()) meta["resourceVersion"] = rv;
  o["metadata"] = std::move(meta);
  o["status"] = NormalizedStatus(cfg.status);
  Write(c, "updateStatus", o);
}

const engine::TrackedWrite* SamplesReducer::OnActionResult(const Ctx& c) {
  const Event& ev = c.ev;
  std::string id(ev.action);
  if (auto it = st_.import_actions.find(id); it != st_.import_actions.end()) {
    if (ev.ok) ++st_.retry_total[it->second];
    st_.import_actions.erase(it);
  }
  // A failed write may be repeated by the next reconcile. One that a newer
  // write to the same object replaced is not looked at again. (A create
  // refused AlreadyExists is no failure, §10.1: the tracker keeps it
  // pending until the object's late event.)
  const engine::TrackedWrite* w = c.world.writes().settled();
  if (w == nullptr || w->domain != kDomain) return nullptr;
  if (c.world.writes().Pending(kDomain, w->group, w->kind, w->ns, w->name) != nullptr) return nullptr;
  return w;
}

absl::StatusOr<const Inventory*> SamplesReducer::GetInventory(const World& world) {
  const records::ContentFiles* files = world.Content(kInventoryContent);
  if (files == nullptr) {
    return absl::NotFoundError(
        "no samples inventory loaded (set samples.inventory or log a samples/inventory Content event)");
  }
  std::string digest = world.ContentDigest(kInventoryContent);
  if (!inventory_ || digest != inventory_digest_) {
    inventory_ = std::make_shared<absl::StatusOr<Inventory>>(LoadInventory(*files));
    inventory_digest_ = digest;
  }
  if (!inventory_->ok()) return inventory_->status();
  return &**inventory_;
}

std::optional<SamplesReducer::Cfg> SamplesReducer::ReadConfig(const World& world) const {
  const engine::Object* o = world.Get(kSamplesGroup, "Config", "", kConfigName);
  if (o == nullptr || !o->json().is_object()) return std::nullopt;
  Cfg cfg;
  cfg.obj = o;
  cfg.spec = engine::Path(o->json(), {"spec"});
  if (!cfg.spec.is_object()) cfg.spec = Json::object();
  cfg.status = engine::Path(o->json(), {"status"});
  if (!cfg.status.is_object()) cfg.status = Json::object();
  cfg.mgmt = engine::GetString(cfg.spec, {"managementState"});
  for (const auto& s : ReadList(engine::Path(cfg.spec, {"skippedImagestreams"})))
    cfg.skipped_streams.insert(s);
  for (const auto& s : ReadList(engine::Path(cfg.spec, {"skippedTemplates"})))
    cfg.skipped_templates.insert(s);
  return cfg;
}

void SamplesReducer::Reduce(const Event& ev, const World& world, Emit& emit) {
  // The notes compare with the state before the event: taken only for explain.
  std::optional<NotesBefore> before;
  if (emit.explaining()) before = NotesState();
  ObserveConfig(ev, world);
  ReduceEvent(ev, world, emit);
  if (before) AddNotes(ev, world, *before, emit);
}

void SamplesReducer::ObserveConfig(const Event& ev, const World& world) {
  if (!ev.IsObject() || ev.group != kSamplesGroup || ev.kind != "Config" || ev.name != kConfigName ||
      !ev.ns.empty())
    return;
  const engine::Object* o = world.Get(kSamplesGroup, "Config", "", kConfigName);
  if (ev.type == records::EventType::kDeleted || o == nullptr) {
    st_.observed_spec_mgmt.clear();
    st_.written_status_mgmt.clear();
    return;
  }
  st_.observed_spec_mgmt = engine::GetString(o->json(), {"spec", "managementState"});
  // The status as observed: a log may start with a Config that already has one.
  if (st_.written_status_mgmt.empty())
    st_.written_status_mgmt = engine::GetString(o->json(), {"status", "managementState"});
}

void SamplesReducer::ReduceEvent(const Event& ev, const World& world, Emit& emit) {
  Ctx c{ev, world, emit, ev.time_ns, world.Fact("version")};
  const bool have_config = world.Get(kSamplesGroup, "Config", "", kConfigName) != nullptr;
  switch (ev.type) {
    case records::EventType::kActionResult: {
      // A failed write — throttled, a server error, a conflict, a missing
      // object, lost with a killed agent (runtime/unanswered.h), refused — is
      // decided again from the world, as upstream requeues on error: the
      // Config reconcile and the write's own object. The runtime does not
      // re-send it as it was (DomainDescriptor::redecides_failed_writes): by now it may be
      // stale, e.g. a cleanup delete after Removed→Managed.
      const engine::TrackedWrite* failed = OnActionResult(c);
      if (failed == nullptr) {
        if (have_config) SettleTrackingAtAnswer(c);
        return;
      }
      if (!have_config) {
        Bootstrap(c);
      } else {
        ReconcileConfig(c);
      }
      RetryWrite(c, *failed);
      break;
    }
    case records::EventType::kCluster:
      // The start of a live adapter's initial lists (`synced: false`): the
      // world may still be the last run's; the Cluster event that ends them
      // reconciles (World::Synced), then takes each listed object.
      if (!world.Synced()) break;
      if (!have_config) {
        Bootstrap(c);
      } else {
        ReconcileConfig(c);
      }
      if (engine::EndsInitialLists(ev)) ReconcileListed(c);
      break;
    case records::EventType::kProbe:
      if (ev.probe == kRegistryProbe) OnRegistryProbe(c);
      break;
    case records::EventType::kTimer:
      if (ev.timer == kReimportTimer) {
        st_.reimport_timer_ns = 0;
        OnReimportTimer(c);
      } else if (ev.timer == kRegistryProbeTimer) {
        OnRegistryProbeTimer(c);
      } else if (ev.timer == kRemovalWaitTimer) {
        if (st_.removal) st_.removal->timer_set = false;
        ReconcileConfig(c);
      }
      break;
    case records::EventType::kContent:
      if (ev.content_name == kInventoryContent && have_config) ReconcileConfig(c);
      break;
    default: {
      if (!world.Synced()) {
        ForgetCleanupDelete(ev);  // decided when the lists are complete
        break;
      }
      if (ev.group == kSamplesGroup && ev.kind == "Config") {
        if (ev.name != kConfigName || !ev.ns.empty()) return;  // upstream ignores any other Config
        if (ev.type == records::EventType::kDeleted) {
          // The final delete: CO in deletion mode, then a fresh default.
          if (auto cfg = ReadConfig(world); !cfg) {
            Cfg gone;
            gone.status = Json::object();
            auto parsed = engine::ParseJson(ev.body);
            if (parsed.ok()) gone.status = engine::Path(*parsed, {"status"});
            UpdateClusterOperator(c, gone, /*deletion=*/true);
          }
          EndRemoval(c);
          Bootstrap(c);
        } else {
          ReconcileConfig(c);
        }
      } else if (ev.group == kConfigGroup && ev.kind == "ClusterOperator") {
        // Any change to our CO re-enqueues the Config (upstream's informer).
        if (ev.name == kClusterOperatorName && have_config) ReconcileConfig(c);
      } else if (ev.group == kImageGroup && ev.kind == "ImageStream") {
        if (ev.ns == kSamplesNs) OnImageStream(c);
      } else if (ev.group == kTemplateGroup && ev.kind == "Template") {
        if (ev.ns == kSamplesNs) OnTemplate(c);
      } else if (ev.group.empty() && ev.kind == "ConfigMap") {
        if (ev.ns == kOperatorNs && ev.name != kIstToImageCm) OnOperatorConfigMap(c);
      }
      break;
    }
  }
  ScheduleReimport(c);
}

absl::Status SamplesReducer::Snapshot(engine::SnapshotWriter& writer) const {
  Json j = Json::object();
  j["tbr_unreachable"] = st_.tbr_unreachable;
  j["awaiting_registry_probe"] = st_.awaiting_registry_probe;
  // Only when set: earlier snapshots read back the same.
  if (st_.registry_probe_since_ns != 0) j["registry_probe_since_ns"] = st_.registry_probe_since_ns;
  j["retry_ns"] = Json::object();
  for (const auto& [k, v] : st_.retry_ns) j["retry_ns"][k] = v;
  j["failing"] = StringList({st_.failing.begin(), st_.failing.end()});
  j["retry_total"] = Json::object();
  for (const auto& [k, v] : st_.retry_total) j["retry_total"][k] = v;
  j["import_actions"] = Json::object();
  for (const auto& [k, v] : st_.import_actions) j["import_actions"][k] = v;
  j["mass_deleted"] = StringList({st_.mass_deleted.begin(), st_.mass_deleted.end()});
  j["reimport_timer_ns"] = st_.reimport_timer_ns;
  if (st_.removal) j["removal"] = RemovalToJson(*st_.removal);
  j["past_removals"] = Json::array();
  for (const auto& r : st_.past_removals) j["past_removals"].push_back(RemovalToJson(r));
  j["invalidconfig_metric"] = st_.invalidconfig_metric;
  j["degraded_metric"] = st_.degraded_metric;
  if (st_.applied) j["applied"] = *st_.applied;
  j["applied_registries"] = StringList({st_.applied_registries.begin(), st_.applied_registries.end()});
  // Only when set: earlier snapshots read back the same.
  if (!st_.observed_spec_mgmt.empty()) j["observed_spec_mgmt"] = st_.observed_spec_mgmt;
  if (!st_.written_status_mgmt.empty()) j["written_status_mgmt"] = st_.written_status_mgmt;
  writer.WriteJson(j);
  return absl::OkStatus();
}

absl::Status SamplesReducer::Restore(engine::SnapshotReader& reader) {
  auto parsed = reader.ReadJson();
  if (!parsed.ok()) return parsed.status();
  const Json& j = *parsed;
  if (!j.is_object()) return absl::DataLossError("samples snapshot: expected a JSON object");
  SamplesState s;
  auto b = [&](std::string_view k) {
    const Json& v = engine::Path(j, {k});
    return v.is_boolean() && v.get<bool>();
  };
  s.tbr_unreachable = b("tbr_unreachable");
  s.awaiting_registry_probe = b("awaiting_registry_probe");
  s.registry_probe_since_ns = I(j, "registry_probe_since_ns");
  const Json& retry = engine::Path(j, {"retry_ns"});
  if (retry.is_object())
    for (auto it = retry.begin(); it != retry.end(); ++it)
      if (it->is_number_integer()) s.retry_ns[it.key()] = it->get<int64_t>();
  for (const auto& n : ReadList(engine::Path(j, {"failing"}))) s.failing.insert(n);
  const Json& totals = engine::Path(j, {"retry_total"});
  if (totals.is_object())
    for (auto it = totals.begin(); it != totals.end(); ++it)
      if (it->is_number_integer()) s.retry_total[it.key()] = it->get<int64_t>();
  const Json& actions = engine::Path(j, {"import_actions"});
  if (actions.is_object())
    for (auto it = actions.begin(); it != actions.end(); ++it)
      if (it->is_string()) s.import_actions[it.key()] = it->get<std::string>();
  for (const auto& n : ReadList(engine::Path(j, {"mass_deleted"}))) s.mass_deleted.insert(n);
  s.reimport_timer_ns = I(j, "reimport_timer_ns");
  // "inflight" of snapshots before issue 19 is ignored: the engine's
  // write tracker holds our writes now.
  const Json& removal = engine::Path(j, {"removal"});
  if (removal.is_object()) s.removal = RemovalFromJson(removal);
  const Json& past = engine::Path(j, {"past_removals"});
  if (past.is_array())
    for (const Json& r : past) s.past_removals.push_back(RemovalFromJson(r));
  s.invalidconfig_metric = int(I(j, "invalidconfig_metric"));
  s.degraded_metric = int(I(j, "degraded_metric"));
  if (const Json& applied = engine::Path(j, {"applied"}); applied.is_object()) s.applied = applied;
  for (const auto& r : ReadList(engine::Path(j, {"applied_registries"}))) s.applied_registries.insert(r);
  s.observed_spec_mgmt = engine::GetString(j, {"observed_spec_mgmt"});
  s.written_status_mgmt = engine::GetString(j, {"written_status_mgmt"});
  st_ = std::move(s);
  return absl::OkStatus();
}

}  // namespace recon::samples
