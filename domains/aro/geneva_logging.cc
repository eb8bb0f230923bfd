#include "domains/aro/geneva_logging.h"

#include "base/strings.h"
#include "domains/aro/common.h"
#include "domains/aro/flags.h"
#include "domains/aro/geneva_objects.h"

namespace recon::aro {
namespace {

constexpr std::string_view kName = "GenevaLogging";

// Every field of `want` is in `have` with the same value (the API server
// adds defaults, so `have` may hold more).
bool Subset(const Json& want, const Json& have) {
  if (want.is_object()) {
    if (!have.is_object()) return false;
    for (auto it = want.begin(); it != want.end(); ++it) {
      auto h = have.find(it.key());
      if (h == have.end() || !Subset(it.value(), *h)) return false;
    }
    return true;
  }
  if (want.is_array()) {
    if (!have.is_array() || have.size() != want.size()) return false;
    for (size_t i = 0; i < want.size(); ++i) {
      if (!Subset(want[i], have[i])) return false;
    }
    return true;
  }
  return want == have;
}

// `have` with what `want` sets: each top-level key replaced, metadata
// key by key (server-kept metadata stays). A secret checksum `want`
// cannot know (no certificates view in the log) keeps the live one.
Json Repaired(const Json& want, const Json& have) {
  Json next = have;
  for (auto it = want.begin(); it != want.end(); ++it) {
    if (it.key() == "metadata") {
      for (auto m = it.value().begin(); m != it.value().end(); ++m) next["metadata"][m.key()] = m.value();
    } else {
      next[it.key()] = it.value();
    }
  }
  const Json& live = engine::Path(have, {"spec", "template", "metadata", "annotations", kSecretChecksum});
  if (live.is_string() &&
      engine::Path(want, {"spec", "template", "metadata", "annotations", kSecretChecksum}).is_null()) {
    next["spec"]["template"]["metadata"]["annotations"][std::string(kSecretChecksum)] = live;
  }
  return next;
}

}  // namespace

bool GenevaLogging::OwnsObject(std::string_view group, std::string_view kind, std::string_view ns,
                               std::string_view name) {
  if (group == "security.openshift.io" && kind == "SecurityContextConstraints")
    return name == "privileged-genevalogging";
  if (group.empty() && kind == "Namespace") return name == kLoggingNamespace;
  if (ns != kLoggingNamespace) return false;
  return (group.empty() && kind == "ConfigMap" && name == "fluent-config") ||
         (group.empty() && kind == "Secret" && name == "certificates") ||
         (group.empty() && kind == "ServiceAccount" && name == "geneva") ||
         (group == "apps" && kind == "DaemonSet" && name == "mdsd");
}

bool GenevaLogging::Owns(const engine::Event& event) {
  return OwnsObject(event.group, event.kind, event.ns, event.name);
}

void GenevaLogging::OnOwnedEvent(const engine::Event& event, const engine::World& world, engine::Emit& emit,
                                 ClusterStatus& status) {
  Reconcile(event, world, emit, status);
}

void GenevaLogging::OnTimer(const engine::Event& event, const engine::World& world, engine::Emit& emit,
                            ClusterStatus& status) {
  if (requeue_.IsStale(event.time_ns)) return;
  Reconcile(event, world, emit, status);
}

void GenevaLogging::Reconcile(const engine::Event& event, const engine::World& world, engine::Emit& emit,
                              ClusterStatus& status) {
  const engine::Object* cluster = GetCluster(world);
  if (cluster == nullptr || !Flags::FromCluster(cluster->json()).Enabled(kFlagGenevaEnabled)) return;
  auto desired = GenevaDesiredObjects(world, *cluster);
  if (!desired.ok()) {
    status.SetController(
        "GenevaLogging",
        {{"GenevaLoggingControllerDegraded", "True", "", "", std::string(Sv(desired.status().message()))}},
        event, world, emit);
    requeue_.Backoff(emit, event.time_ns);
    return;
  }
  for (const Json& want : *desired) {
    std::string api = Str(want, "apiVersion");
    std::string group = api.find('/') == std::string::npos ? "" : api.substr(0, api.find('/'));
    std::string kind = Str(want, "kind");
    std::string ns = engine::GetString(want, {"metadata", "namespace"});
    std::string name = engine::GetString(want, {"metadata", "name"});
    const engine::Object* have = world.Get(group, kind, ns, name);
    // Our write not shown by the world yet (engine/write_tracker.h): its
    // echo reconciles again (a second create would fail AlreadyExists).
    if (world.writes().Pending(kDomain, group, kind, ns, name) != nullptr) continue;
    if (have == nullptr) {
      emit.Create(want);
      continue;
    }
    if (Subset(want, have->json())) continue;
    emit.Update(Repaired(want, have->json()));
  }
  std::vector<Condition> clear = {{std::string(kName) + "ControllerAvailable", "True", "", "", ""},
                                  {std::string(kName) + "ControllerProgressing", "False", "", "", ""},
                                  {std::string(kName) + "ControllerDegraded", "False", "", "", ""}};
  status.SetController("GenevaLogging", clear, event, world, emit);
  requeue_.Forget();
}

bool GenevaLogging::OnActionResult(const engine::Event& event, const engine::World& world, engine::Emit& emit,
                                   ClusterStatus& status) {
  const engine::TrackedWrite* w = world.writes().answered();
  if (w == nullptr || w->domain != kDomain || !OwnsObject(w->group, w->kind, w->ns, w->name)) return false;
  if (event.ok) {
    write_failures_ = 0;
    return true;
  }
  // Upstream's condition carries the client's error as it is.
  std::string error = event.error.empty() ? "write failed" : std::string(event.error);
  status.SetController("GenevaLogging", {{"GenevaLoggingControllerDegraded", "True", "", "", error}}, event,
                       world, emit);
  // Counted apart from the requeue's failures, which every reconcile that
  // gets as far as writing resets.
  requeue_.Deadline(emit, event.time_ns + BackoffNs(write_failures_++));
  return true;
}

Json GenevaLogging::ToJson() const {
  Json j = {{"requeue", requeue_.ToJson()}};
  if (write_failures_ != 0) j["writeFailures"] = write_failures_;
  return j;
}

void GenevaLogging::FromJson(const Json& j) {
  // "created" and "writes" of snapshots before issue 19 are ignored: the
  // engine's write tracker holds our writes now.
  *this = GenevaLogging();
  requeue_.FromJson(engine::Path(j, {"requeue"}));
  const Json& failures = engine::Path(j, {"writeFailures"});
  if (failures.is_number_integer()) write_failures_ = failures.get<int>();
}

}  // namespace recon::aro
