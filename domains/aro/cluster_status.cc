#include "domains/aro/cluster_status.h"

#include <algorithm>

#include "domains/aro/common.h"
#include "engine/time_format.h"

namespace recon::aro {
namespace {

constexpr size_t kHistoryCap = 500;

// Each of `conds` replaces the entry of its type in `list`, or is appended.
void Overlay(std::vector<Condition>& list, const std::vector<Condition>& conds) {
  for (const auto& c : conds) {
    auto it = std::find_if(list.begin(), list.end(), [&](const Condition& l) { return l.type == c.type; });
    if (it != list.end()) {
      *it = c;
    } else {
      list.push_back(c);
    }
  }
}

std::vector<Condition> Observed(const engine::World& world) {
  std::vector<Condition> out;
  const engine::Object* cluster = GetCluster(world);
  if (cluster == nullptr) return out;
  const Json& list = engine::Path(cluster->json(), {"status", "conditions"});
  if (!list.is_array()) return out;
  for (const auto& item : list) {
    Condition c = Condition::FromJson(item);
    if (!c.type.empty()) out.push_back(std::move(c));
  }
  return out;
}

// The entries of `after` of the given types: what a setter sets.
std::vector<Condition> Mine(const std::vector<Condition>& after, const std::vector<std::string>& types) {
  std::vector<Condition> out;
  for (const auto& t : types)
    if (const Condition* c = FindCondition(after, t)) out.push_back(*c);
  return out;
}

}  // namespace

std::vector<Condition> ClusterStatus::Effective(const engine::World& world) const {
  std::vector<Condition> out = Observed(world);
  if (InFlightUnshown(world)) Overlay(out, in_flight_);
  Overlay(out, owed_);
  return out;
}

bool ClusterStatus::InFlightUnshown(const engine::World& world) const {
  // No Cluster event since the write (it may not even be registered yet),
  // or the write tracker says the world does not show it.
  const engine::Object* cluster = GetCluster(world);
  if (cluster == nullptr || cluster->seq() <= written_seq_) return true;
  const engine::TrackedWrite* pending =
      world.writes().Pending(kDomain, kAroGroup, kClusterKind, "", kClusterName);
  return pending != nullptr && pending->verb == "updateStatus";
}

std::string ClusterStatus::EffectiveVersion(const engine::World& world) const {
  if (!written_version_.empty()) return written_version_;
  const engine::Object* cluster = GetCluster(world);
  return cluster ? engine::GetString(cluster->json(), {"status", "operatorVersion"}) : "";
}

bool ClusterStatus::SetChecker(std::string_view writer, const Condition& c, const std::string& stamp_version,
                               const engine::Event& event, const engine::World& world, engine::Emit& emit) {
  std::vector<Condition> before = Effective(world);
  std::vector<Condition> after = before;
  std::string now = engine::FormatRfc3339Seconds(event.time_ns);
  bool changed = MergeChecker(after, c, now);
  changed |= PruneUnknown(after, nullptr);
  if (!stamp_version.empty() && EffectiveVersion(world) != stamp_version) {
    written_version_ = stamp_version;
    changed = true;
  }
  if (!changed) return false;
  Record(writer, before, after, event.seq);
  Write(Mine(after, {c.type}), /*prune=*/true, world, emit);
  return true;
}

bool ClusterStatus::SetController(std::string_view writer, const std::vector<Condition>& conds,
                                  const engine::Event& event, const engine::World& world,
                                  engine::Emit& emit) {
  std::vector<Condition> before = Effective(world);
  std::vector<Condition> after = before;
  std::string now = engine::FormatRfc3339Seconds(event.time_ns);
  std::vector<std::string> types;
  for (const auto& c : conds) {
    MergeController(after, c, now);
    types.push_back(c.type);
  }
  if (after == before) return false;
  Record(writer, before, after, event.seq);
  Write(Mine(after, types), /*prune=*/false, world, emit);
  return true;
}

void ClusterStatus::Record(std::string_view writer, const std::vector<Condition>& before,
                           const std::vector<Condition>& after, uint64_t seq) {
  for (const auto& a : after) {
    const Condition* b = FindCondition(before, a.type);
    if (b && b->status == a.status && b->reason == a.reason && b->message == a.message) continue;
    history_.push_back({seq, std::string(writer), a.type, a.status, a.reason, a.message});
  }
  if (history_.size() > kHistoryCap) history_.erase(history_.begin(), history_.end() - kHistoryCap);
}

void ClusterStatus::Write(const std::vector<Condition>& mine, bool prune, const engine::World& world,
                          engine::Emit& emit, bool past_conflict) {
  // One status write at a time: while our last one is not shown by the
  // world (engine/write_tracker.h) another would be a conflict, and after a
  // refusal the same write would be refused again. Its conditions are owed
  // and written when the Cluster's next event comes (OnClusterEvent), over
  // the Cluster as it is then. (A write without a resourceVersion, to a
  // Cluster whose version is not known, carries no precondition: it cannot
  // conflict with one still on its way.)
  const engine::WriteTracker& writes = world.writes();
  const engine::Object* cluster = GetCluster(world);
  const bool precondition =
      cluster != nullptr && !engine::GetString(cluster->json(), {"metadata", "resourceVersion"}).empty();
  const engine::TrackedWrite* refused = writes.Refused(kDomain, kAroGroup, kClusterKind, "", kClusterName);
  if (refused != nullptr && past_conflict && refused->status == 409) refused = nullptr;
  if ((precondition && (emit.Written(kAroGroup, kClusterKind, "", kClusterName) ||
                        writes.Pending(kDomain, kAroGroup, kClusterKind, "", kClusterName) != nullptr)) ||
      refused != nullptr) {
    Overlay(owed_, mine);
    owe_prune_ |= prune;
    rewrite_ = true;
    return;
  }
  const std::vector<Condition> observed = Observed(world);
  // A write of ours the world does not show yet (no precondition held this
  // one back) must not be undone by this one.
  std::vector<Condition> set;
  if (InFlightUnshown(world)) set = in_flight_;
  Overlay(set, owed_);
  Overlay(set, mine);
  owed_.clear();
  std::vector<Condition> conds = observed;
  Overlay(conds, set);
  if (prune || owe_prune_) PruneUnknown(conds, nullptr);
  owe_prune_ = false;
  Json status = Json::object();
  Json metadata = {{"name", "cluster"}};
  if (cluster != nullptr) {
    const Json& held = engine::Path(cluster->json(), {"status"});
    if (held.is_object()) status = held;
    // A custom resource update without a resourceVersion is refused.
    std::string rv = engine::GetString(cluster->json(), {"metadata", "resourceVersion"});
    if (!rv.empty()) metadata["resourceVersion"] = rv;
  }
  std::string version = EffectiveVersion(world);
  // A rewrite of what the world shows already: nothing to write.
  if (mine.empty() && conds == observed && version == Str(status, "operatorVersion")) return;
  in_flight_ = std::move(set);
  written_seq_ = emit.cause();
  Json list = Json::array();
  for (const auto& c : conds) list.push_back(c.ToJson());
  status["conditions"] = std::move(list);
  if (!version.empty()) status["operatorVersion"] = version;
  Json obj = {{"apiVersion", "aro.openshift.io/v1alpha1"},
              {"kind", "Cluster"},
              {"metadata", std::move(metadata)},
              {"status", std::move(status)}};
  emit.UpdateStatus(obj);
}

bool ClusterStatus::OnActionResult(const engine::Event& event, const engine::World& world,
                                   engine::Emit& emit) {
  const engine::TrackedWrite* w = world.writes().answered();
  if (w == nullptr || w->domain != kDomain || w->group != kAroGroup || w->kind != kClusterKind) return false;
  // Our status write given up on (a conflict, a refusal): written again
  // from the observed Cluster, at once unless the refusal holds (then on the
  // Cluster's next event). A throttled or failed-server write is still in
  // flight: the runtime sends it again. Any write of ours to the Cluster
  // (its status, or the subnet controller's annotation update) answered
  // while a status write waited behind it: the waiting one goes now if the
  // world shows the answered one (its echo came before the answer, and no
  // other Cluster event may come), else at the echo.
  const bool status_write = w->verb == "updateStatus";
  const engine::TrackedWrite* settled = world.writes().settled();
  if (status_write && settled != nullptr) {
    // Refused: its conditions are owed again (newer ones owed since win),
    // to go over the Cluster as it is now.
    std::vector<Condition> again = std::move(in_flight_);
    in_flight_.clear();
    Overlay(again, owed_);
    owed_ = std::move(again);
  }
  if ((status_write && settled != nullptr) || rewrite_) Rewrite(world, emit);
  if (status_write && settled == nullptr && w->ok) requeue_.Forget();
  // A 409 holds the write until a newer Cluster comes; a conflict that
  // brings none (the newer event lost, or a server's own failure) would
  // hold it forever, so it also goes again after a backoff. So does a
  // status write that waited behind the subnet controller's annotation
  // update when that update is the one answered 409 (the four-domain soak,
  // seed 20: the Cluster's conditions stayed as the API outage left them).
  if (settled != nullptr && settled->status == 409 && rewrite_) requeue_.Backoff(emit, event.time_ns);
  return status_write;
}

void ClusterStatus::OnTimer(const engine::Event& event, const engine::World& world, engine::Emit& emit) {
  if (requeue_.IsStale(event.time_ns)) return;
  requeue_.Forget();
  if (rewrite_) Rewrite(world, emit, /*past_conflict=*/true);
}

void ClusterStatus::OnClusterEvent(const engine::World& world, engine::Emit& emit) {
  if (rewrite_) Rewrite(world, emit);  // Write defers again if still not observed
}

void ClusterStatus::Rewrite(const engine::World& world, engine::Emit& emit, bool past_conflict) {
  const engine::Object* cluster = GetCluster(world);
  if (cluster == nullptr) return;
  rewrite_ = false;
  Write({}, /*prune=*/false, world, emit, past_conflict);
}

void ClusterStatus::Reset() {
  in_flight_.clear();
  owed_.clear();
  owe_prune_ = false;
  written_seq_ = 0;
  written_version_.clear();
  rewrite_ = false;
  requeue_.Forget();
}

Json ClusterStatus::ToJson() const {
  Json j = Json::object();
  for (const auto& [key, list] : {std::pair{"inFlight", &in_flight_}, std::pair{"owed", &owed_}}) {
    Json out = Json::array();
    for (const auto& c : *list) out.push_back(c.ToJson());
    j[key] = std::move(out);
  }
  if (owe_prune_) j["owePrune"] = true;
  if (written_seq_ != 0) j["writtenSeq"] = written_seq_;
  j["version"] = written_version_;
  Json hist = Json::array();
  for (const auto& h : history_) {
    hist.push_back({{"seq", h.seq},
                    {"writer", h.writer},
                    {"type", h.type},
                    {"status", h.status},
                    {"reason", h.reason},
                    {"message", h.message}});
  }
  j["history"] = std::move(hist);
  j["rewrite"] = rewrite_;
  j["requeue"] = requeue_.ToJson();
  return j;
}

void ClusterStatus::FromJson(const Json& j) {
  Reset();
  history_.clear();
  if (!j.is_object()) return;
  // "owned" and "pruned" of snapshots before session 35: what was last
  // written counts as in flight (over the observation only while unshown).
  for (const auto& [key, list] :
       {std::pair{"inFlight", &in_flight_}, std::pair{"owned", &in_flight_}, std::pair{"owed", &owed_}}) {
    if (auto it = j.find(key); it != j.end() && it->is_array()) {
      for (const auto& c : *it) list->push_back(Condition::FromJson(c));
    }
  }
  owe_prune_ = engine::Path(j, {"owePrune"}) == Json(true);
  written_seq_ = U64(j, "writtenSeq");
  written_version_ = Str(j, "version");
  // "writes" and "writtenRv" of snapshots before issue 19 are ignored: the
  // engine's write tracker holds our writes now.
  rewrite_ = engine::Path(j, {"rewrite"}) == Json(true);
  requeue_.FromJson(engine::Path(j, {"requeue"}));
  if (auto it = j.find("history"); it != j.end() && it->is_array()) {
    for (const auto& h : *it) {
      ConditionChange c;
      c.seq = U64(h, "seq");
      c.writer = Str(h, "writer");
      c.type = Str(h, "type");
      c.status = Str(h, "status");
      c.reason = Str(h, "reason");
      c.message = Str(h, "message");
      history_.push_back(std::move(c));
    }
  }
}

}  // namespace recon::aro
