#include "domains/disconnected/reducer.h"

#include "base/strings.h"
#include "domains/disconnected/names.h"
#include "domains/disconnected/operand.h"
#include "engine/time_format.h"

namespace recon::disconnected {

using engine::Json;

std::unique_ptr<engine::Reducer> MakeReducer() { return std::make_unique<DisconnectedReducer>(); }

std::string_view DisconnectedReducer::Domain() const { return kDomain; }

std::vector<engine::OptionSpec> DisconnectedReducer::Options() const {
  return {
      {"operatorDeployment", "",
       "NAMESPACE/NAME of the operator's own Deployment: when observed, its container env is the operator "
       "environment (else the Cluster fact operatorEnv)",
       false, ""},
      {"operatorContainer", "manager", "the container of operatorDeployment whose env is read", false, ""},
      {"resyncPeriod", "0",
       "every this long (e.g. 10m; 0: never) sync every instance again, as a controller's SyncPeriod "
       "(timer disconnected/resync)",
       false, ""},
  };
}

std::vector<engine::ResourceUse> DisconnectedReducer::Resources() const {
  using engine::ResourceType;
  return {
      // Watched; only its status is written.
      {ResourceType{std::string(kGroup),
                    "v1alpha1",
                    std::string(kKind),
                    "disconnectedfriendlyapps",
                    true,
                    true,
                    {"dfa"}},
       {"get", "list", "watch"},
       {"update"},
       {}},
      // The operands (created and updated, never deleted: garbage collection
      // follows their ownerReferences), and the operator's own Deployment.
      {ResourceType{"apps", "v1", "Deployment", "deployments", true, true, {"deploy"}},
       {"get", "list", "watch", "create", "update"},
       {},
       {}},
  };
}

absl::Status DisconnectedReducer::SetOption(std::string_view key, std::string_view value) {
  if (key == "operatorDeployment") {
    if (value.empty()) {
      source_.deployment_ns.clear();
      source_.deployment_name.clear();
      return absl::OkStatus();
    }
    size_t slash = value.find('/');
    if (slash == std::string_view::npos || slash == 0 || slash + 1 == value.size() ||
        value.find('/', slash + 1) != std::string_view::npos) {
      return absl::InvalidArgumentError(
          recon::StrCat("operatorDeployment: expected NAMESPACE/NAME (or empty); got \"", value, "\""));
    }
    source_.deployment_ns = std::string(value.substr(0, slash));
    source_.deployment_name = std::string(value.substr(slash + 1));
    return absl::OkStatus();
  }
  if (key == "operatorContainer") {
    if (value.empty()) return absl::InvalidArgumentError("operatorContainer: expected a container name");
    source_.container = std::string(value);
    return absl::OkStatus();
  }
  if (key == "resyncPeriod") {
    auto d = value == "0" ? absl::StatusOr<int64_t>(0) : engine::ParseDurationNs(value);
    if (!d.ok() || *d < 0)
      return absl::InvalidArgumentError(
          recon::StrCat("resyncPeriod: expected a duration like 10m, or 0; got \"", value, "\""));
    resync_ns_ = *d;
    resync_text_ = std::string(value);
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(recon::StrCat("unknown option \"", key,
                                                  "\" (disconnected options: operatorDeployment, "
                                                  "operatorContainer, resyncPeriod)"));
}

std::string DisconnectedReducer::KeyOf(std::string_view group, std::string_view kind, std::string_view ns,
                                       std::string_view name) {
  return recon::StrCat(group, "/", kind, "/", ns, "/", name);
}

bool DisconnectedReducer::Write(Ctx& c, std::string_view verb, const Json& object) {
  std::string api = engine::GetString(object, {"apiVersion"});
  std::string group = api.find('/') == std::string::npos ? "" : api.substr(0, api.find('/'));
  std::string kind = engine::GetString(object, {"kind"});
  std::string ns = engine::GetString(object, {"metadata", "namespace"});
  std::string name = engine::GetString(object, {"metadata", "name"});
  std::string key = KeyOf(group, kind, ns, name);
  if (verb == "updateStatus") key += "#status";
  std::string body = engine::Dump(object);
  auto it = inflight_.find(key);
  if (it != inflight_.end()) {
    const engine::Object* seen = c.world.Get(group, kind, ns, name);
    // A write to this object is still in flight (no newer version and no
    // deletion seen since): wait for its echo, which reconciles again (a
    // second create would fail AlreadyExists, a second update conflict).
    // A refused write holds only the same write: a different one (the
    // environment or the spec moved) may pass.
    if ((seen == nullptr || seen->seq() <= it->second.seq) &&
        (!it->second.refused || it->second.body == body))
      return false;
  }
  std::string id = c.emit.Object(verb, object);
  if (it != inflight_.end()) inflight_by_action_.erase(it->second.action_id);
  inflight_by_action_[id] = key;
  inflight_[key] = InflightWrite{std::string(verb), std::move(body), std::move(id), c.ev.seq};
  return true;
}

void DisconnectedReducer::Forget(std::string_view key) {
  for (std::string k : {std::string(key), recon::StrCat(key, "#status")}) {
    auto it = inflight_.find(k);
    if (it == inflight_.end()) continue;
    inflight_by_action_.erase(it->second.action_id);
    inflight_.erase(it);
  }
}

void DisconnectedReducer::Resync(Ctx& c) {
  for (auto it = inflight_.begin(); it != inflight_.end();) {
    const InflightWrite& w = it->second;
    engine::Json o = engine::ParseJson(w.body).value_or(engine::Json::object());
    std::string api = engine::GetString(o, {"apiVersion"});
    const engine::Object* seen =
        c.world.Get(api.find('/') == std::string::npos ? "" : api.substr(0, api.find('/')),
                    engine::GetString(o, {"kind"}), engine::GetString(o, {"metadata", "namespace"}),
                    engine::GetString(o, {"metadata", "name"}));
    // Answered a whole period ago and still not seen: the echo was lost.
    if (w.answered && w.answered_ns + resync_ns_ <= c.ev.time_ns &&
        (seen == nullptr || seen->seq() <= w.seq)) {
      notes_.push_back({"writes", "note",
                        recon::StrCat(w.verb, " ", it->first,
                                      w.refused ? " refused a period ago: deciding again"
                                                : " answered ok but never seen since: deciding again")});
      inflight_by_action_.erase(w.action_id);
      it = inflight_.erase(it);
    } else {
      ++it;
    }
  }
  SyncAll(c);
}

bool DisconnectedReducer::IsOperatorDeployment(const engine::Event& ev) const {
  return !source_.deployment_name.empty() && ev.group == kAppsGroup && ev.kind == kDeploymentKind &&
         ev.ns == source_.deployment_ns && ev.name == source_.deployment_name;
}

namespace {

std::string EnvChange(const OperatorEnv& before, const OperatorEnv& after) {
  std::string text;
  for (const auto& op : Operands()) {
    ImageChoice b = ChooseImage(before, op.env_var, op.fallback);
    ImageChoice a = ChooseImage(after, op.env_var, op.fallback);
    if (a.from_env == b.from_env && a.image == b.image) continue;
    recon::StrAppend(&text, text.empty() ? "" : "; ", op.env_var, " ",
                     b.from_env ? recon::StrCat("\"", b.image, "\"") : "unset", " -> ",
                     a.from_env ? recon::StrCat("\"", a.image, "\"") : "unset");
  }
  return text;
}

}  // namespace

void DisconnectedReducer::Reduce(const engine::Event& ev, const engine::World& world, engine::Emit& emit) {
  notes_.clear();
  // Only these events can change what this domain wants: the instances,
  // Deployments (operands and the operator's own), Cluster facts and
  // options, failed writes. Everything else costs nothing here.
  if (ev.type == engine::EventType::kActionResult && ev.ok) {
    auto a = inflight_by_action_.find(std::string(ev.action));
    if (a != inflight_by_action_.end()) {
      inflight_[a->second].answered = true;
      inflight_[a->second].answered_ns = ev.time_ns;
    }
    return;
  }
  // The start of a live adapter's initial lists (`synced: false`): nothing
  // is decided before the Cluster event that ends them (World::Synced).
  if (ev.type == engine::EventType::kCluster && !world.Synced()) return;
  if (ev.type == engine::EventType::kCluster && resync_ns_ > 0)
    emit.SetTimer(kResyncTimer, ev.time_ns + resync_ns_);
  const bool resync = ev.type == engine::EventType::kTimer && ev.timer == kResyncTimer;
  const bool ours = ev.IsObject() && ((ev.group == kGroup && ev.kind == kKind) ||
                                      (ev.group == kAppsGroup && ev.kind == kDeploymentKind));
  if (!ours && !resync && ev.type != engine::EventType::kCluster &&
      !(ev.type == engine::EventType::kActionResult && !ev.ok))
    return;
  OperatorEnv env = ResolveOperatorEnv(world, source_);
  Ctx c{ev, world, emit, env};

  // Bookkeeping first: a deletion ends any write in flight for the object.
  if (ev.type == engine::EventType::kDeleted) Forget(KeyOf(ev.group, ev.kind, ev.ns, ev.name));
  bool our_write_failed = false;
  if (ev.type == engine::EventType::kActionResult && !ev.ok) {
    for (auto it = inflight_.begin(); it != inflight_.end(); ++it) {
      if (it->second.action_id != ev.action) continue;
      // The object is there already (a create whose echo is late): wait for
      // its echo as for a create answered ok, rather than create again.
      if (it->second.verb == "create" && ev.status && *ev.status == 409) {
        it->second.answered = true;
        it->second.answered_ns = ev.time_ns;
        notes_.push_back(
            {"writes", "note", recon::StrCat("create ", it->first, " found it existing: waiting for it")});
        break;
      }
      // Refused (a 4xx but 429, or a 409 conflict on an update): the same
      // write would be refused again. Held, not forgotten: the reconcile
      // goes on, but the identical write waits for a newer object.
      if (ev.status && *ev.status >= 400 && *ev.status < 500 && *ev.status != 429) {
        it->second.refused = true;
        it->second.answered = true;
        it->second.answered_ns = ev.time_ns;
        notes_.push_back({"writes", "note",
                          recon::StrCat(it->second.verb, " ", it->first, " refused (", *ev.status, " ",
                                        ev.error, "): not sent again until the object changes")});
        our_write_failed = true;
        break;
      }
      notes_.push_back(
          {"writes", "note",
           recon::StrCat(it->second.verb, " ", it->first, " failed (", ev.error, "): reconciling again")});
      inflight_by_action_.erase(it->second.action_id);
      inflight_.erase(it);
      our_write_failed = true;
      break;
    }
  }

  if (!(env == env_)) {
    std::string change = EnvChange(env_, env);
    bool resync = !change.empty() || env.waiting.empty() != env_.waiting.empty();
    std::string text;
    if (!env.waiting.empty()) {
      text = recon::StrCat("operator environment unknown: ", env.waiting, "; nothing is synced");
    } else {
      text = recon::StrCat("operator environment (", env.source.empty() ? "none observed" : env.source, ")",
                           change.empty() ? ": operand images unchanged" : recon::StrCat(": ", change));
      for (const auto& u : env.unresolved) recon::StrAppend(&text, "; ", u);
      size_t n = world.List(kGroup, kKind).size();
      if (resync) recon::StrAppend(&text, "; re-syncing ", n, n == 1 ? " instance" : " instances");
    }
    notes_.push_back({"operator", "state", std::move(text)});
    env_ = env;
    if (resync) {
      SyncAll(c);
      return;
    }
  }

  switch (ev.type) {
    case engine::EventType::kActionResult:
      if (our_write_failed) SyncAll(c);  // upstream requeues a failed reconcile
      return;
    case engine::EventType::kTimer:
      if (resync) {
        Resync(c);
        if (resync_ns_ > 0) emit.SetTimer(kResyncTimer, ev.time_ns + resync_ns_);
      }
      return;
    case engine::EventType::kAdded:
    case engine::EventType::kModified:
    case engine::EventType::kDeleted:
      break;
    default:
      return;
  }
  if (ev.group == kGroup && ev.kind == kKind) {
    if (ev.type == engine::EventType::kDeleted) {
      for (const auto& op : Operands())
        Forget(KeyOf(kAppsGroup, kDeploymentKind, ev.ns, OperandName(op, ev.name)));
      notes_.push_back(
          {recon::StrCat(kKind, " ", ev.ns, "/", ev.name), "state",
           "deleted: its Deployments go with it (garbage collection follows their ownerReferences); no "
           "writes"});
      return;
    }
    if (const engine::Object* o = world.Get(kGroup, kKind, ev.ns, ev.name)) SyncInstance(c, *o);
    return;
  }
  if (ev.group == kAppsGroup && ev.kind == kDeploymentKind && !IsOperatorDeployment(ev)) {
    for (const engine::Object* o : OwnersOf(world, ev)) SyncInstance(c, *o);
  }
}

absl::Status DisconnectedReducer::Snapshot(engine::SnapshotWriter& writer) const {
  Json inflight = Json::object();
  for (const auto& [key, w] : inflight_) {
    inflight[key] = Json{{"verb", w.verb}, {"body", w.body}, {"action", w.action_id}, {"seq", w.seq}};
    if (w.answered) inflight[key]["answered_ns"] = w.answered_ns;
    if (w.refused) inflight[key]["refused"] = true;
  }
  Json env = Json::object();
  for (const auto& [k, v] : env_.vars) env[k] = v;
  Json unresolved = Json::array();
  for (const auto& u : env_.unresolved) unresolved.push_back(u);
  writer.WriteJson(Json{{"inflight", std::move(inflight)},
                        {"env", Json{{"source", env_.source},
                                     {"vars", std::move(env)},
                                     {"unresolved", unresolved},
                                     {"waiting", env_.waiting}}}});
  return absl::OkStatus();
}

absl::Status DisconnectedReducer::Restore(engine::SnapshotReader& reader) {
  auto j = reader.ReadJson();
  if (!j.ok()) return j.status();
  const Json& inflight = engine::Path(*j, {"inflight"});
  const Json& env = engine::Path(*j, {"env"});
  if (!inflight.is_object() || !env.is_object()) {
    return absl::DataLossError("disconnected snapshot: expected objects \"inflight\" and \"env\"");
  }
  inflight_.clear();
  for (auto it = inflight.begin(); it != inflight.end(); ++it) {
    const Json& seq = engine::Path(it.value(), {"seq"});
    inflight_[it.key()] = InflightWrite{engine::GetString(it.value(), {"verb"}),
                                        engine::GetString(it.value(), {"body"}),
                                        engine::GetString(it.value(), {"action"}),
                                        seq.is_number_unsigned()  ? seq.get<uint64_t>()
                                        : seq.is_number_integer() ? uint64_t(seq.get<int64_t>())
                                                                  : 0,
                                        engine::Path(it.value(), {"answered_ns"}).is_number(),
                                        engine::Path(it.value(), {"answered_ns"}).is_number()
                                            ? engine::Path(it.value(), {"answered_ns"}).get<int64_t>()
                                            : 0,
                                        engine::Path(it.value(), {"refused"}) == Json(true)};
  }
  inflight_by_action_.clear();
  for (const auto& [key, w] : inflight_) inflight_by_action_[w.action_id] = key;
  env_ = OperatorEnv{};
  env_.source = engine::GetString(env, {"source"});
  const Json& vars = engine::Path(env, {"vars"});
  if (vars.is_object())
    for (auto it = vars.begin(); it != vars.end(); ++it)
      if (it.value().is_string()) env_.vars[it.key()] = it.value().get<std::string>();
  env_.waiting = engine::GetString(env, {"waiting"});
  const Json& unresolved = engine::Path(env, {"unresolved"});
  if (unresolved.is_array())
    for (const Json& u : unresolved)
      if (u.is_string()) env_.unresolved.push_back(u.get<std::string>());
  return absl::OkStatus();
}

}  // namespace recon::disconnected
