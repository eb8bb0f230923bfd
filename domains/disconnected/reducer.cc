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
  if (c.emit.Written(group, kind, ns, name)) return false;  // one write per object and event
  const engine::WriteTracker& writes = c.world.writes();
  // With resyncPeriod, a write sent a whole period ago stops holding the
  // next back: an echo lost to a relist, a refusal whose cause was fixed.
  auto stale = [&](const engine::TrackedWrite& w) {
    return resync_ns_ > 0 && w.at_ns + resync_ns_ <= c.ev.time_ns;
  };
  // A write to this object not shown by the world yet: wait for its echo,
  // which reconciles again (a second create would fail AlreadyExists, a
  // second update conflict).
  if (const engine::TrackedWrite* p = writes.Pending(kDomain, group, kind, ns, name)) {
    if (!stale(*p)) return false;
    c.emit.Note("writes", "note",
                recon::StrCat(p->verb, " ", key, " sent a period ago and never seen since: deciding again"));
  }
  std::string body = engine::Dump(object);
  // The same write refused, and the object not changed since: it would be
  // refused again. A different one (the environment or the spec moved) may pass.
  if (const engine::TrackedWrite* r = writes.Refused(kDomain, group, kind, ns, name);
      r != nullptr && r->verb == verb && r->body == body) {
    if (!stale(*r)) return false;
    c.emit.Note("writes", "note", recon::StrCat(verb, " ", key, " refused a period ago: deciding again"));
  }
  c.emit.Object(verb, object);
  return true;
}

void DisconnectedReducer::Resync(Ctx& c) { SyncAll(c); }

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
  // Only these events can change what this domain wants: the instances,
  // Deployments (operands and the operator's own), Cluster facts and
  // options, failed writes. Everything else costs nothing here.
  if (ev.type == records::EventType::kActionResult && ev.ok) return;
  // Between the start of a live adapter's initial lists (`synced: false`)
  // and the Cluster event that ends them (World::Synced) nothing is
  // decided: an instance listed before its Deployments, or the resync timer
  // a killed run left, would create Deployments that exist (the
  // four-domain soak's AlreadyExists). The Cluster event reconciles all.
  if (!world.Synced()) return;
  if (ev.type == records::EventType::kCluster && resync_ns_ > 0)
    emit.SetTimer(kResyncTimer, ev.time_ns + resync_ns_);
  const bool resync = ev.type == records::EventType::kTimer && ev.timer == kResyncTimer;
  const bool ours = ev.IsObject() && ((ev.group == kGroup && ev.kind == kKind) ||
                                      (ev.group == kAppsGroup && ev.kind == kDeploymentKind));
  if (!ours && !resync && ev.type != records::EventType::kCluster &&
      !(ev.type == records::EventType::kActionResult && !ev.ok))
    return;
  OperatorEnv env = ResolveOperatorEnv(world, source_);
  Ctx c{ev, world, emit, env};

  // What became of our write (engine/write_tracker.h): a failure is
  // reconciled again, as upstream requeues; the tracker holds a refused
  // write, and a create that found the object existing waits for its event.
  // A throttled or server-failed write stays in flight: the runtime sends
  // it again after its backoff (this domain does not re-decide those).
  bool our_write_failed = false;
  if (ev.type == records::EventType::kActionResult && !ev.ok) {
    const engine::WriteTracker& writes = world.writes();
    const engine::TrackedWrite* a = writes.answered();
    const engine::TrackedWrite* s = writes.settled();
    if (a != nullptr && a->domain == kDomain) {
      std::string subject = recon::StrCat(a->verb, " ", KeyOf(a->group, a->kind, a->ns, a->name));
      if (s == nullptr && a->verb == "create" && ev.status && *ev.status == 409) {
        emit.Note("writes", "note", recon::StrCat(subject, " found it existing: waiting for it"));
      } else if (s == nullptr) {
        emit.Note("writes", "note",
                  recon::StrCat(subject, " failed (", ev.error, "): sent again after a backoff"));
      } else if (const engine::TrackedWrite* r = writes.Refused(kDomain, s->group, s->kind, s->ns, s->name);
                 r != nullptr && r->action == s->action) {
        our_write_failed = true;
        emit.Note("writes", "note",
                  recon::StrCat(subject, " refused (", ev.status.value_or(0), " ", ev.error,
                                "): not sent again until the object changes"));
      } else {
        our_write_failed = true;
        emit.Note("writes", "note", recon::StrCat(subject, " failed (", ev.error, "): reconciling again"));
      }
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
    emit.Note("operator", "state", std::move(text));
    env_ = env;
    if (resync) {
      SyncAll(c);
      return;
    }
  }

  switch (ev.type) {
    case records::EventType::kActionResult:
      if (our_write_failed) SyncAll(c);  // upstream requeues a failed reconcile
      return;
    case records::EventType::kTimer:
      if (resync) {
        Resync(c);
        if (resync_ns_ > 0) emit.SetTimer(kResyncTimer, ev.time_ns + resync_ns_);
      }
      return;
    case records::EventType::kAdded:
    case records::EventType::kModified:
    case records::EventType::kDeleted:
      break;
    default:
      return;
  }
  if (ev.group == kGroup && ev.kind == kKind) {
    if (ev.type == records::EventType::kDeleted) {
      emit.Note(recon::StrCat(kKind, " ", ev.ns, "/", ev.name), "state",
                "deleted: its Deployments go with it (garbage collection follows their ownerReferences); no "
                "writes");
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
  Json env = Json::object();
  for (const auto& [k, v] : env_.vars) env[k] = v;
  Json unresolved = Json::array();
  for (const auto& u : env_.unresolved) unresolved.push_back(u);
  writer.WriteJson(Json{{"env", Json{{"source", env_.source},
                                     {"vars", std::move(env)},
                                     {"unresolved", unresolved},
                                     {"waiting", env_.waiting}}}});
  return absl::OkStatus();
}

absl::Status DisconnectedReducer::Restore(engine::SnapshotReader& reader) {
  auto j = reader.ReadJson();
  if (!j.ok()) return j.status();
  // "inflight" of snapshots before issue 19 is ignored: the engine's
  // write tracker holds our writes now.
  const Json& env = engine::Path(*j, {"env"});
  if (!env.is_object()) return absl::DataLossError("disconnected snapshot: expected an object \"env\"");
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
