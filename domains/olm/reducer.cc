#include "domains/olm/reducer.h"

#include <algorithm>
#include <set>

#include "base/strings.h"
#include "engine/time_format.h"

namespace recon::olm {
namespace {

constexpr int64_t kRequeueBaseNs = 1'000'000'000;   // 1 s
constexpr int64_t kRequeueMaxNs = 300'000'000'000;  // 5 min

std::string S(const Json& j, std::string_view k) { return engine::GetString(j, {k}); }

std::string Key(std::string_view kind, std::string_view ns, std::string_view name) {
  return StrCat(kind, "/", ns, "/", name);
}

// The namespace of a Key (kinds and namespaces hold no '/').
std::string NamespaceOfKey(std::string_view key) {
  size_t a = key.find('/');
  size_t b = key.find('/', a + 1);
  return std::string(key.substr(a + 1, b - a - 1));
}

Json WritesToJson(const std::map<std::string, PendingWrite>& m) {
  Json out = Json::object();
  for (const auto& [k, w] : m) {
    out[k] = Json{{"body", w.body}, {"seq", w.seq}, {"action", w.action}};
    // Only when set: snapshots without them read back the same.
    if (!w.resource_version.empty()) out[k]["resourceVersion"] = w.resource_version;
    if (!w.uid.empty()) out[k]["uid"] = w.uid;
    if (!w.basis.is_null()) out[k]["basis"] = w.basis;
  }
  return out;
}

std::map<std::string, PendingWrite> WritesFromJson(const Json& j) {
  std::map<std::string, PendingWrite> out;
  if (!j.is_object()) return out;
  for (const auto& [k, v] : j.items()) {
    PendingWrite w;
    w.body = engine::Path(v, {"body"});
    const Json& s = engine::Path(v, {"seq"});
    // Snapshots are read back by simdjson, which gives a signed integer for
    // every value below 2^63: accept both kinds.
    w.seq = s.is_number_integer() ? s.get<uint64_t>() : 0;
    w.action = engine::GetString(v, {"action"});
    w.resource_version = engine::GetString(v, {"resourceVersion"});
    w.uid = engine::GetString(v, {"uid"});
    if (const Json& b = engine::Path(v, {"basis"}); b.is_object()) w.basis = b;
    // "history" (content hashes of earlier writes) of snapshots before
    // issue 19 is ignored: the engine's write tracker tells echoes apart;
    // so are "landed", "conflicts", "conflictedResourceVersion" and
    // "refusedResourceVersion" of snapshots before the tracker kept them.
    out[k] = std::move(w);
  }
  return out;
}

}  // namespace

std::unique_ptr<engine::Reducer> MakeReducer() { return std::make_unique<OlmReducer>(); }

const LoadedCatalog& OlmReducer::Catalog(const World& world, std::string_view ns, std::string_view name) {
  std::string content = StrCat(kCatalogPrefix, ns, "/", name);
  auto ce = world.contents().find(content);
  const records::ContentFiles* files = ce == world.contents().end() ? nullptr : ce->second.files.get();
  auto it = catalogs_.find(content);
  if (it == catalogs_.end()) it = catalogs_.emplace(content, LoadedCatalog{}).first;
  LoadedCatalog& lc = it->second;
  if (files == nullptr) {
    lc = LoadedCatalog{"", nullptr,
                       StrCat("no catalog content observed (no Content event named ", content, ")")};
    DropUnusedIndexes();
    return lc;
  }
  const std::string& digest = ce->second.digest;
  if (lc.digest == digest && (lc.index || !lc.error.empty())) return lc;
  lc = LoadedCatalog{digest, nullptr, ""};
  DropUnusedIndexes();  // the one this catalog held, unless another shares it
  if (auto d = by_digest_.find(digest); d != by_digest_.end()) {
    lc.index = d->second;
    return lc;
  }
  auto idx = CatalogIndex::Load(*files);
  if (!idx.ok()) {
    lc.error = std::string(Sv(idx.status().message()));
  } else {
    lc.index = *idx;
    by_digest_[digest] = *idx;
  }
  return lc;
}

void OlmReducer::DropUnusedIndexes() {
  // Kept, every catalog update held its predecessor for good (the 1 M-event
  // soak: +20 MB at the update; a long-lived agent one catalog per update).
  std::erase_if(by_digest_, [&](const auto& entry) {
    return std::none_of(catalogs_.begin(), catalogs_.end(),
                        [&](const auto& c) { return c.second.digest == entry.first; });
  });
}

const Json* OlmReducer::PendingOver(const World& world, std::string_view kind, std::string_view ns,
                                    std::string_view name, uint64_t seq, bool seen_status,
                                    const Json* observed) const {
  auto it = st_.statuses.find(Key(kind, ns, name));
  if (it == st_.statuses.end()) return nullptr;
  const PendingWrite& w = it->second;
  // Not observed since our write (or observed without a status): ours is
  // the newest state we know.
  if (!(seq > w.seq && seen_status)) return &w.body;
  // Observed since: the world is current unless the engine's write tracker
  // still has a status write of ours it does not show — the event was the
  // stale echo of an earlier write (its resourceVersion says so, never its
  // content: another writer may write the same bytes).
  const engine::TrackedWrite* p = world.writes().Pending(kDomain, kGroup, kind, ns, name);
  if (p != nullptr && p->verb == "updateStatus") return &w.body;
  // Our latest decision conflicted and is held; the event is the echo of an
  // earlier write of ours: the decision is newer than it.
  const engine::Origin last = world.writes().LastOrigin(kGroup, kind, ns, name);
  if (const engine::TrackedWrite* r = HeldStatus(world, kind, ns, name); r != nullptr && r->status == 409) {
    if (last == engine::Origin::kOurs) return &w.body;
    // Or it conflicted with a change that left the status as the decision
    // found it (someone edited the spec; a relist after a restart showed a
    // write of ours whose answer was lost): nobody changed the status
    // since, so the decision stands and is written again over the newer
    // object. Without this the sync would start over from the status
    // before it, whose InstallPlan steps are already carried out (the
    // four-domain soak, seed 3: a CSV installed that no subscription
    // refers to, and ConstraintsNotSatisfiable for the namespace).
    if (observed != nullptr && w.basis.is_object() && SameValue(*observed, w.basis)) return &w.body;
  }
  // Or another writer changed only what is not the status: it still is the
  // one our last landed write produced, and what we decided since holds.
  const engine::TrackedWrite* landed = world.writes().LastLandedStatus(kDomain, kGroup, kind, ns, name);
  if (landed == nullptr || last != engine::Origin::kOther) return nullptr;
  const engine::Object* o = world.Get(kGroup, kind, ns, name);
  if (o == nullptr) return nullptr;
  auto j = engine::ParseJson(o->body());
  auto l = engine::ParseJson(landed->body);
  return j.ok() && l.ok() && SameValue(engine::Path(*j, {"status"}), engine::Path(*l, {"status"})) ? &w.body
                                                                                                   : nullptr;
}

const engine::TrackedWrite* OlmReducer::HeldStatus(const World& world, std::string_view kind,
                                                   std::string_view ns, std::string_view name) {
  if (kind != "Subscription") return nullptr;
  const engine::TrackedWrite* r = world.writes().LastRefused(kDomain, kGroup, kind, ns, name);
  return r != nullptr && r->verb == "updateStatus" ? r : nullptr;
}

std::string OlmReducer::HeldPrecondition(const engine::TrackedWrite& w) {
  auto j = engine::ParseJson(w.body);
  std::string rv = j.ok() ? engine::GetString(*j, {"metadata", "resourceVersion"}) : std::string();
  return rv.empty() ? "-" : rv;
}

std::string OlmReducer::Precondition(const World& world, std::string_view kind, std::string_view ns,
                                     std::string_view name, std::string_view observed_rv) {
  // Our last write landed and its echo is not seen yet: the object is at
  // the version it produced, and a write over the observed one would only
  // conflict (engine/write_tracker.h NewestProduced).
  std::string ours = world.writes().NewestProduced(kGroup, kind, ns, name);
  return ours.empty() ? std::string(observed_rv) : ours;
}

const Json& OlmReducer::EffectiveSubStatus(const World& world, std::string_view ns, std::string_view name,
                                           const SubView& v) const {
  // Writes to an earlier subscription of that name do not count.
  if (auto it = st_.statuses.find(Key("Subscription", ns, name));
      it != st_.statuses.end() && !v.uid.empty() && it->second.uid != v.uid)
    return v.status;
  // Our writes are Canonical already (SyncNamespace writes nothing else).
  const Json* p = PendingOver(world, "Subscription", ns, name, v.seq, v.seen_status, &v.status);
  return p ? *p : v.status;
}

bool OlmReducer::AwaitsEcho(const World& world, std::string_view ns, std::string_view name) const {
  if (world.writes().Pending(kDomain, kGroup, "Subscription", ns, name) != nullptr) return true;
  if (world.writes().answers_carry_rv()) return false;
  // A log without answers (a shadow agent's) ends a write at the object's
  // next event, even one that shows only another writer's label (whose
  // change made ours a 409 in fact): ours stays the newest state, as
  // EffectiveSubStatus takes it, until a status is seen after it or it is
  // refused.
  const NsIndex* x = index_.Find(ns);
  if (x == nullptr) return false;
  auto sv = x->subs.find(name);
  if (sv == x->subs.end()) return false;
  const SubView& v = sv->second;
  auto it = st_.statuses.find(Key("Subscription", ns, name));
  if (it == st_.statuses.end() || (!v.uid.empty() && it->second.uid != v.uid)) return false;
  return !(v.seq > it->second.seq && v.seen_status) && HeldStatus(world, "Subscription", ns, name) == nullptr;
}

std::optional<OlmReducer::PlanState> OlmReducer::EffectiveInstallPlan(const World& world, const NsIndex* x,
                                                                      std::string_view ns,
                                                                      std::string_view name,
                                                                      bool informer) const {
  if (x != nullptr) {
    if (auto it = x->plans.find(name); it != x->plans.end() && it->second.valid) {
      const PlanView& v = it->second;
      if (informer && v.seen_status) return PlanState{v.approval, v.seen};
      const Json* p = PendingOver(world, "InstallPlan", ns, name, v.seq, v.seen_status);
      return PlanState{v.approval, p ? PlanFactsOf(*p) : v.seen};
    }
  }
  if (auto it = st_.created.find(Key("InstallPlan", ns, name)); it != st_.created.end()) {
    auto s = st_.statuses.find(it->first);
    return PlanState{
        engine::GetString(it->second.body, {"spec", "approval"}),
        PlanFactsOf(s != st_.statuses.end() ? s->second.body : engine::Path(it->second.body, {"status"}))};
  }
  return std::nullopt;
}

void OlmReducer::WriteStatus(Ctx& c, const Target& t, Json status) {
  Json obj = Json::object();
  obj["apiVersion"] = t.api_version;
  obj["kind"] = t.kind;
  Json meta = Json::object();
  meta["name"] = t.name;
  if (!t.ns.empty()) meta["namespace"] = t.ns;
  const std::string precondition = Precondition(c.world, t.kind, t.ns, t.name, t.resource_version);
  if (!precondition.empty()) meta["resourceVersion"] = precondition;
  obj["metadata"] = std::move(meta);
  obj["status"] = status;
  std::string id = c.emit.UpdateStatus(obj);
  PendingWrite& w = st_.statuses[Key(t.kind, t.ns, t.name)];
  if (w.uid != t.uid) w = PendingWrite{};  // a new incarnation: nothing of the old one's writes holds
  w.uid = std::string(t.uid);
  // Only a Subscription's and an InstallPlan's written status is read back
  // (PendingOver, PlanStillReferenced); the others' (a CSV's, with its
  // requirements and history, the largest) would be kept for nothing.
  if (t.kind == "Subscription" || t.kind == "InstallPlan") {
    w.body = std::move(status);
  } else {
    w.body = Json();
  }
  w.seq = c.ev.seq;
  w.action = id;
  w.resource_version = precondition;
}

// A plan we created, observed without a status (a real server drops the
// create's .status): its status is written now, once, over the
// resourceVersion the server gave it (upstream's createInstallPlan: Create,
// then UpdateStatus). A status someone else wrote already (the plan ran) is
// left alone. Returns whether the plan is one of ours awaiting that write.
void OlmReducer::Reduce(const Event& ev, const World& world, Emit& emit) {
  if (!index_ready_) {
    index_.Build(world);
    index_ready_ = true;
  }
  Ctx c{ev, world, emit};
  std::set<std::string> namespaces, plan_namespaces, group_namespaces;
  bool all = false;
  requeue_at_ = 0;
  plan_timer_at_ = 0;
  csv_timer_at_ = 0;
  csv_roles_due_.clear();
  sent_updates_.clear();
  annotate_ns_.clear();
  if (execute_plans_) PlanEvent(ev, world, plan_namespaces);
  std::set<std::string> csv_namespaces;
  if (csv_lifecycle_) CsvLifecycleNamespaces(ev, world, csv_namespaces);
  // OLMConfig's condition: at its own events, and once the initial lists are in.
  const bool olm_config = csv_lifecycle_ && ((ev.IsObject() && ev.group == kGroup && ev.kind == kOlmConfig) ||
                                             ev.type == records::EventType::kCluster);
  switch (ev.type) {
    case records::EventType::kActionResult:
      // A group write that never reached the server (its agent stopped
      // first: answered Interrupted, no HTTP status) is decided again now:
      // no event of the group may come to wake it. A refusal waits for one.
      if (const engine::TrackedWrite* s = world.writes().settled();
          s != nullptr && s->domain == kDomain && s->kind == "OperatorGroup" && !s->status)
        group_namespaces.insert(s->ns);
      // A CSV's annotations (the group sync's) refused or lost: decided
      // again now, unless the refusal is held for the CSV's next event
      // (AnnotateCsvs). The newer CSV that beat it may have come already.
      if (const engine::TrackedWrite* s = world.writes().settled();
          s != nullptr && s->domain == kDomain && s->kind == "ClusterServiceVersion" && s->verb == "update")
        group_namespaces.insert(s->ns);
      // Our write to a CSV (a plan's create, a status) or to a group (its
      // status) answered after its echo: the group sync at the echo
      // skipped it while the write was on its way, and no later event may
      // come (beside a real API server a plan's CSV stayed without a phase
      // for good, and a group's new targets never reached its CSV).
      if (const engine::TrackedWrite* a = world.writes().answered();
          ev.ok && a != nullptr && a->domain == kDomain && a->group == kGroup &&
          (a->kind == "ClusterServiceVersion" || a->kind == "OperatorGroup") &&
          world.writes().Pending(kDomain, a->group, a->kind, a->ns, a->name) == nullptr)
        group_namespaces.insert(a->ns);
      RequeueAfterConflict(ev, world);
      if (!OnActionResult(c, namespaces) && plan_namespaces.empty() && group_namespaces.empty() &&
          requeue_at_ == 0 && csv_namespaces.empty())
        return;
      break;
    case records::EventType::kContent: {
      std::string_view name = ev.content_name;
      if (name.substr(0, kCatalogPrefix.size()) != kCatalogPrefix) return;
      std::string_view rest = name.substr(kCatalogPrefix.size());
      std::string_view ns = rest.substr(0, rest.find('/'));
      if (ns == global_ns_) all = true;
      namespaces.insert(std::string(ns));
      break;
    }
    case records::EventType::kAdded:
    case records::EventType::kModified:
    case records::EventType::kDeleted:
      if (!OnObject(c, namespaces, &all) && plan_namespaces.empty() && csv_namespaces.empty() &&
          !olm_config && !(csv_lifecycle_ && ev.group == "" && ev.kind == "Namespace"))  // its group labels
        return;
      break;
    case records::EventType::kTimer:
      // A held conflict, or the wait for a referenced plan never seen, is
      // due: every namespace syncs (the timer is rare; a sync with nothing
      // to do writes nothing).
      if (ev.timer == kPlansTimer && !plan_namespaces.empty()) break;
      if (ev.timer == kCsvTimeoutTimer && !csv_namespaces.empty()) break;
      if (ev.timer != kRequeueTimer) return;
      all = true;
      break;
    case records::EventType::kCluster:
      // The end of a live adapter's initial lists: every namespace syncs
      // with the whole world (nothing synced before it, see below).
      if (!world.Synced()) return;
      all = true;
      break;
    default:
      return;
  }
  // Before the initial lists are complete an InstallPlan, CSV or catalog
  // may only not be listed yet: nothing is decided from its absence.
  if (!world.Synced()) return;
  if (all) {
    for (const auto& [ns, x] : index_.namespaces())
      if (!x.subs.empty()) namespaces.insert(ns);
  }
  if (ev.type == records::EventType::kCluster ||
      (ev.type == records::EventType::kTimer && ev.timer == kRequeueTimer)) {
    for (const auto& [ns, x] : index_.namespaces())
      if (!x.groups.empty()) SyncOperatorGroups(c, ns);
  } else if (ev.group == kGroup && (ev.kind == "OperatorGroup" || ev.kind == "ClusterServiceVersion")) {
    SyncOperatorGroups(c, std::string(ev.ns));
  }
  for (const std::string& ns : group_namespaces) SyncOperatorGroups(c, ns);
  for (const std::string& ns : namespaces) SyncNamespace(c, ns);
  if (execute_plans_) {
    plan_namespaces.insert(namespaces.begin(), namespaces.end());
    for (const std::string& ns : plan_namespaces) ExecutePlans(c, ns);
  }
  for (const std::string& ns : csv_namespaces) SyncCsvs(c, ns);
  if (csv_lifecycle_) CollectOrphanedCopies(c);
  // After the sync's writes, so that their action ids come first.
  if (requeue_at_ != 0) emit.SetTimer(kRequeueTimer, requeue_at_);
  if (plan_timer_at_ != 0) emit.SetTimer(kPlansTimer, plan_timer_at_);
  // Last: the CSV annotations added in issue 50 leave the ids of the
  // writes before them as they were (recorded logs answer by id).
  for (const std::string& ns : annotate_ns_) AnnotateCsvs(c, ns);
  if (csv_timer_at_ != 0) emit.SetTimer(kCsvTimeoutTimer, csv_timer_at_);
  // After that timer (session 28): logs recorded before keep their ids.
  if (csv_lifecycle_) OlmOperatorTail(c, csv_namespaces, olm_config);
}

void OlmReducer::OlmOperatorTail(Ctx& c, const std::set<std::string>& csv_namespaces, bool olm_config) {
  if (c.ev.type == records::EventType::kDeleted && c.ev.group == kGroup && c.ev.kind == kCsv)
    csv_roles_found_.erase(StrCat(c.ev.ns, "/", c.ev.name));
  for (const std::string& ns : csv_namespaces) SyncOperatorConditions(c, ns);
  if (!csv_namespaces.empty() || olm_config) SyncOlmConfig(c);
  for (const std::string& ns : annotate_ns_) SyncGroupClusterRoles(c, ns);
  for (const auto& [ns, name] : csv_roles_due_) SyncCsvClusterRoles(c, ns, name);
  CollectGroupClusterRoles(c);
  LabelNamespaces(c);
  for (const std::string& ns : csv_namespaces) AdoptComponents(c, ns);
  CollectCsvClusterRbac(c);  // last: logs recorded before keep their action ids
}

bool OlmReducer::OnObject(Ctx& c, std::set<std::string>& namespaces, bool* all) {
  const Event& ev = c.ev;
  if (ev.group != kGroup) return false;
  index_.Update(c.world, ev.kind, ev.ns, ev.name);
  std::string_view k = ev.kind;
  if (k == "InstallPlan") {
    if (ev.type == records::EventType::kDeleted) {
      st_.created.erase(Key("InstallPlan", ev.ns, ev.name));
      st_.statuses.erase(Key("InstallPlan", ev.ns, ev.name));
      st_.gone_plans.insert(Key("InstallPlan", ev.ns, ev.name));
    } else {
      st_.gone_plans.erase(Key("InstallPlan", ev.ns, ev.name));
      OnInstallPlan(c);
    }
  } else if ((k == "Subscription" || k == "OperatorGroup") && ev.type == records::EventType::kDeleted) {
    st_.statuses.erase(Key(k, ev.ns, ev.name));
    if (k == "Subscription") sub_syncs_.erase(StrCat(ev.ns, "/", ev.name));
  } else if (k == "CatalogSource") {
    if (ev.ns == global_ns_) *all = true;
  } else if (k != "Subscription" && k != "ClusterServiceVersion" && k != "OperatorGroup") {
    return false;
  }
  namespaces.insert(std::string(ev.ns));
  return true;
}

void OlmReducer::RequeueAfterConflict(const Event& ev, const World& world) {
  // A group's, a CSV's or (csvLifecycle) an update's (an install
  // Deployment, a component label) write refused 409 waits for the
  // object's next event, which may never come (a dropped watch event, a
  // server that answered 409 for nothing): the requeue timer syncs them
  // again, backing off as upstream's rate limiter (as for Subscriptions).
  const engine::TrackedWrite* s = world.writes().settled();
  if (s == nullptr || s->domain != kDomain || !s->status || *s->status != 409) return;
  if (s->kind != "OperatorGroup" && s->kind != "ClusterServiceVersion" &&
      !(csv_lifecycle_ && s->verb == "update"))
    return;
  const int refusals = std::max(1, world.writes().Refusals(kDomain, s->group, s->kind, s->ns, s->name));
  RequeueAt(ev.time_ns + std::min(kRequeueBaseNs << std::min(refusals - 1, 9), kRequeueMaxNs));
}

bool OlmReducer::OnActionResult(Ctx& c, std::set<std::string>& namespaces) {
  const Event& ev = c.ev;
  if (ev.ok) {
    // An event held while the write was unanswered (it might have been
    // its echo) is another writer's after all: decided on now, or
    // nothing may come to wake the namespace (a plan's Complete seen
    // while our own status write to it was on its way).
    const engine::TrackedWrite* a = c.world.writes().answered();
    if (a == nullptr || a->domain != kDomain) return false;
    // With split writes a namespace waits for its status write's echo
    // (AwaitsEcho); when the echo came before this answer, the wait ends
    // here, and nothing else may wake the namespace.
    const bool echo_seen = split_writes_ && a->kind == "Subscription" && a->verb == "updateStatus" &&
                           !AwaitsEcho(c.world, a->ns, a->name);
    if (!a->overtaken && !echo_seen) return false;
    namespaces.insert(a->ns);
    return true;
  }
  // 429 and 5xx: the runtime sends the same write again, so it is
  // still in flight.
  if (ev.status && (*ev.status == 429 || *ev.status >= 500)) return false;
  if (ev.status && *ev.status == 409) {
    if (HoldConflictedStatus(ev, c.world, namespaces)) return true;
    // A create answered AlreadyExists: the plan is there; wait for it.
    for (auto& [key, w] : st_.created) {
      if (w.action != ev.action) continue;
      w.action.clear();
      return false;
    }
  }
  if (ev.status && *ev.status >= 400 && *ev.status < 500 && *ev.status != 409 &&
      HoldRefused(c.emit, ev, namespaces))
    return true;
  return ForgetFailedWrite(c, namespaces);
}

bool OlmReducer::HoldConflictedStatus(const Event& ev, const World& world,
                                      std::set<std::string>& namespaces) {
  // A Subscription status write that conflicted is kept, not forgotten:
  // the world's status may be older than our own last write (its echo
  // not seen yet), and syncing from it would undo steps whose
  // InstallPlans already exist (re-planning them, or leaving the
  // subscription pointing at a CSV they replaced). It is written again
  // over the newer resourceVersion (SyncNamespace).
  for (auto& [key, w] : st_.statuses) {
    if (w.action != ev.action || !key.starts_with("Subscription/")) continue;
    w.action.clear();
    // Held by the engine's write tracker (LastRefused, see HeldStatus).
    // Written again at the namespace's next event, or when the requeue
    // timer fires (a conflict whose newer object never shows: a dropped
    // watch event, a server that answered 409 for nothing), backing off
    // 1 s, 2 s, ... up to 5 minutes, as upstream's rate limiter would.
    std::string_view rest = std::string_view(key).substr(key.find('/') + 1);
    const int refusals =
        std::max(1, world.writes().Refusals(kDomain, kGroup, "Subscription", rest.substr(0, rest.find('/')),
                                            rest.substr(rest.find('/') + 1)));
    const int64_t backoff = kRequeueBaseNs << std::min(refusals - 1, 9);
    RequeueAt(ev.time_ns + std::min(backoff, kRequeueMaxNs));
    namespaces.insert(NamespaceOfKey(key));
    return true;
  }
  return false;
}

bool OlmReducer::HoldRefused(Emit& emit, const Event& ev, std::set<std::string>& namespaces) {
  // Refused by the server (a 4xx other than 409): the same write would
  // be refused again. A Subscription status write is held (the engine's
  // LastRefused, see HeldStatus); an InstallPlan create is kept as a failed plan,
  // so the subscription shows why and its step is not planned again.
  for (auto& [key, w] : st_.statuses) {
    if (w.action != ev.action || !key.starts_with("Subscription/")) continue;
    w.action.clear();  // held by the engine's write tracker (LastRefused, see HeldStatus)
    emit.Note(StrCat("Subscription ", key.substr(key.find('/') + 1)), "note",
              StrCat("status write refused (", *ev.status, " ", ev.error,
                     "): held until the subscription changes; no new InstallPlan for its step"));
    namespaces.insert(NamespaceOfKey(key));
    break;
  }
  for (auto& [key, w] : st_.created) {
    if (w.action != ev.action) continue;
    w.action.clear();
    std::string msg = StrCat("create refused (", *ev.status, "): ", ev.error);
    w.body["status"] = Json{{"phase", "Failed"},
                            {"catalogSources", engine::Path(w.body, {"status", "catalogSources"})},
                            {"conditions", Json::array({Json{{"type", "Installed"},
                                                             {"status", "False"},
                                                             {"reason", "EnsureInstallPlanFailed"},
                                                             {"message", msg}}})}};
    emit.Note(StrCat("InstallPlan ", key.substr(key.find('/') + 1)), "note",
              StrCat(msg, ": kept as Failed, its step is not planned again"));
    namespaces.insert(NamespaceOfKey(key));
    break;
  }
  return !namespaces.empty();
}

bool OlmReducer::ForgetFailedWrite(Ctx& c, std::set<std::string>& namespaces) {
  // Any other failure is final (a 4xx; no status: refused, or left
  // unanswered by a stopped agent): the write is forgotten and its
  // namespace synced again now, as upstream requeues on error; nothing
  // else may come to wake it.
  std::string plan_status_lost;
  for (auto* m : {&st_.statuses, &st_.created}) {
    for (auto it = m->begin(); it != m->end(); ++it) {
      if (it->second.action != c.ev.action) continue;
      namespaces.insert(NamespaceOfKey(it->first));
      if (m == &st_.created) st_.gone_plans.insert(it->first);
      if (m == &st_.statuses && it->first.starts_with("InstallPlan/")) plan_status_lost = it->first;
      m->erase(it);
      break;
    }
  }
  if (namespaces.empty()) return false;
  // The status write of a plan we created, lost (an agent stopped before
  // its answer): written again now, or no event would ever run the plan.
  if (!plan_status_lost.empty()) {
    std::string_view rest = std::string_view(plan_status_lost).substr(plan_status_lost.find('/') + 1);
    std::string_view ns = rest.substr(0, rest.find('/')), name = rest.substr(rest.find('/') + 1);
    if (const NsIndex* x = index_.Find(ns)) WriteCreatedPlanStatus(c, x, ns, name);
  }
  return true;
}

absl::Status OlmReducer::Snapshot(engine::SnapshotWriter& writer) const {
  Json paths = Json::object();
  for (const auto& [k, v] : st_.paths) paths[k] = v;
  writer.WriteJson(
      Json{{"statuses", WritesToJson(st_.statuses)},
           {"created", WritesToJson(st_.created)},
           {"paths", paths},
           {"gonePlans", Json(std::vector<std::string>(st_.gone_plans.begin(), st_.gone_plans.end()))},
           {"stepCreates", WritesToJson(st_.step_creates)},
           {"stepUpdates", Json(std::vector<std::string>(st_.step_updates.begin(), st_.step_updates.end()))},
           {"groupTargets", group_targets_.ToJson()},
           {"global_ns", global_ns_}});
  return absl::OkStatus();
}

absl::Status OlmReducer::Restore(engine::SnapshotReader& reader) {
  auto j = reader.ReadJson();
  if (!j.ok()) return j.status();
  st_ = OlmState{};
  index_.Clear();
  index_ready_ = false;
  refs_.Clear();
  refs_ready_ = false;
  group_targets_.FromJson(engine::Path(*j, {"groupTargets"}));
  steps_memo_.clear();
  manifest_cache_.clear();
  memo_.clear();
  quiet_.clear();
  csv_roles_found_.clear();
  conditions_found_.clear();
  payloads_.clear();
  st_.statuses = WritesFromJson(engine::Path(*j, {"statuses"}));
  st_.created = WritesFromJson(engine::Path(*j, {"created"}));
  st_.step_creates = WritesFromJson(engine::Path(*j, {"stepCreates"}));
  IndexStepCreates();
  const Json& paths = engine::Path(*j, {"paths"});
  if (paths.is_object()) {
    for (const auto& [k, v] : paths.items()) {
      if (!v.is_array()) continue;
      for (const Json& s : v)
        if (s.is_string()) st_.paths[k].push_back(s.get<std::string>());
    }
  }
  for (const Json& p : engine::Path(*j, {"gonePlans"}))
    if (p.is_string()) st_.gone_plans.insert(p.get<std::string>());
  for (const Json& u : engine::Path(*j, {"stepUpdates"}))
    if (u.is_string()) st_.step_updates.insert(u.get<std::string>());

  std::string g = engine::GetString(*j, {"global_ns"});
  if (!g.empty()) global_ns_ = g;
  return absl::OkStatus();
}

}  // namespace recon::olm
