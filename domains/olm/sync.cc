// §10.1 namespace sync: its inputs, the skip of a sync whose inputs did not
// change, the order of its steps, and the status writes.
#include <algorithm>
#include <cstdint>
#include <set>

#include "base/strings.h"
#include "domains/olm/conditions.h"
#include "domains/olm/plan_gc.h"
#include "domains/olm/reducer.h"
#include "domains/olm/sync_state.h"
#include "engine/time_format.h"

namespace recon::olm {
namespace {

// a == b as JSON values (SameValue: key order does not count, a real
// server serves sorted keys) with lastUpdated left out of both, without
// copying either.
bool SameIgnoringUpdated(const Json& a, const Json& b) {
  if (!a.is_object() || !b.is_object()) return SameValue(a, b);
  size_t na = a.size() - a.count("lastUpdated"), nb = b.size() - b.count("lastUpdated");
  if (na != nb) return false;
  for (auto ia = a.begin(); ia != a.end(); ++ia) {
    if (ia.key() == "lastUpdated") continue;
    auto ib = b.find(ia.key());
    if (ib == b.end() || !SameValue(*ia, *ib)) return false;
  }
  return true;
}

// §10.1 step 1, before anything else of the sync (and with no
// subscription left too). A plan our delete is on its way to is listed
// still, as upstream's cache would list it, but not deleted twice.
void CollectInstallPlans(const World& w, engine::Emit& emit, const std::string& ns, const NsIndex& x,
                         const std::set<std::string, std::less<>>& waited_on) {
  if (x.plans.size() <= kMaxInstallPlans) return;
  constexpr size_t kConsidered = kMaxInstallPlans + kMaxPlanDeletes;
  std::vector<ListedPlan> listed;
  std::vector<std::string> created;
  listed.reserve(kConsidered);
  created.reserve(kConsidered);  // never reallocated: `listed` points into it
  for (const auto& [name, v] : x.plans) {
    if (listed.size() == kConsidered) break;
    const engine::Object* o = w.Get(kGroup, "InstallPlan", ns, name);
    created.push_back(o ? engine::GetString(o->json(), {"metadata", "creationTimestamp"}) : "");
    listed.push_back({name, v.generation, created.back(), waited_on.contains(name)});
  }
  for (std::string_view name : PlansToCollect(listed)) {
    const engine::TrackedWrite* p = w.writes().Pending(kDomain, kGroup, "InstallPlan", ns, name);
    if (p != nullptr && p->verb == "delete") continue;
    emit.Delete(Json{{"apiVersion", kApiVersion},
                     {"kind", "InstallPlan"},
                     {"metadata", Json{{"name", name}, {"namespace", ns}}}});
    auto v = x.plans.find(name);
    emit.Note(StrCat("InstallPlan ", ns, "/", name), "gc",
              StrCat("garbage-collected: the namespace has ", x.plans.size(),
                     " InstallPlans (upstream keeps ", kMaxInstallPlans, "), and generation ",
                     v == x.plans.end() ? 0 : v->second.generation, " is among the oldest"));
  }
}

}  // namespace

std::string OlmReducer::SyncKey(const World& w, const std::string& ns, const NsIndex* x) {
  std::string key;
  key.reserve(512);
  auto num = [&](uint64_t n) { key.append(reinterpret_cast<const char*>(&n), sizeof n); };
  std::vector<std::string_view> plans;  // the InstallPlans a sync can look up by name
  for (const auto& [name, v] : x->subs) {
    AppendKey(&key, name);
    num(v.valid);
    if (!v.valid) continue;
    for (const std::string* f : {&v.package, &v.channel, &v.source, &v.source_ns, &v.starting_csv,
                                 &v.approval, &v.generated_by, &v.uid})
      AppendKey(&key, *f);
    // The observed catalog-health condition: the health step compares with
    // it, not with our write (ReflectCatalogHealth), so the event that shows
    // our write is not a quiet sync to skip.
    const Json& seen_health = engine::Path(v.Seen(), {"catalogHealth"});
    num(seen_health.is_array() ? seen_health.size() : 0);
    const Json* seen_cond = FindCondition(v.Seen(), "CatalogSourcesUnhealthy");
    AppendKey(&key, seen_cond == nullptr ? "-" : engine::Dump(*seen_cond));
    // With split writes the subscription's own event is what shows it a
    // plan it does not own (SyncerSeesPlan): a sync at it is not a repeat.
    if (split_writes_) num(v.seq);
    plans.push_back(v.generated_by);
    const Json& ref = engine::Path(EffectiveSubStatus(w, ns, name, v), {"installPlanRef", "name"});
    if (ref.is_string()) plans.push_back(ref.get_ref<const std::string&>());
  }
  key.push_back('\x1e');
  num(x->groups.size());
  num(!x->groups.empty() && x->groups.begin()->second.exclude_global);
  num(!x->groups.empty() && x->groups.begin()->second.fail_forward);
  for (const std::string& sns : {ns, global_ns_}) {
    const NsIndex* sx = sns == ns ? x : index_.Find(sns);
    if (sx == nullptr) continue;
    for (const auto& [name, v] : sx->catalogs) {
      AppendKey(&key, sns);
      AppendKey(&key, name);
      AppendKey(&key, v.uid);
      num(static_cast<uint64_t>(v.priority));
      // By content: a freed index's address may come back for the next one.
      const LoadedCatalog& lc = Catalog(w, sns, name);
      AppendKey(&key, lc.digest);
      AppendKey(&key, lc.error);
    }
  }
  key.push_back('\x1e');
  for (const auto& [name, v] : x->csvs) {
    AppendKey(&key, name);
    num(v.seq);
    num(v.installed.has_value());
  }
  key.push_back('\x1e');
  // InstallPlans are read by name (the ones above) and for the highest
  // generation, observed or created by us.
  int64_t gen = 0;
  for (const auto& [name, v] : x->plans) gen = std::max(gen, v.generation);
  const std::string prefix = StrCat("InstallPlan/", ns, "/");
  for (auto it = st_.created.lower_bound(prefix);
       it != st_.created.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it)
    gen = std::max(gen, Int(engine::Path(it->second.body, {"spec", "generation"})));
  num(static_cast<uint64_t>(gen));
  std::string k = prefix;
  for (std::string_view name : plans) {
    if (name.empty()) continue;
    AppendKey(&key, name);
    auto v = x->plans.find(name);
    num(v == x->plans.end() ? 0 : v->second.seq + 1);
    num(v == x->plans.end() ? 0 : v->second.valid);
    // Whether the tracker still holds a write of ours over the observed
    // plan (EffectiveInstallPlan): its answer may show the observed one is
    // current after all, with nothing else changed.
    num(w.writes().Pending(kDomain, kGroup, "InstallPlan", ns, name) != nullptr);
    k.resize(prefix.size());
    k.append(name);
    for (const auto* m : {&st_.created, &st_.statuses}) {
      auto it = m->find(k);
      AppendKey(&key, it == m->end() ? "-" : it->second.action);
      num(it == m->end() ? 0 : it->second.seq);
    }
  }
  return key;
}

void OlmReducer::SyncNamespace(Ctx& c, const std::string& ns) {
  const NsIndex* x = index_.Find(ns);
  if (x == nullptr) return;
  if (x->plans.size() > kMaxInstallPlans) {
    // The plans subscriptions not at their installed CSV still wait on.
    std::set<std::string, std::less<>> waited_on;
    for (const auto& [name, v] : x->subs) {
      const Json& st = EffectiveSubStatus(c.world, ns, name, v);
      if (!st.is_object() || S(st, "state") == "AtLatestKnown") continue;
      const Json& ref = engine::Path(st, {"installPlanRef", "name"});
      if (ref.is_string()) waited_on.insert(ref.get<std::string>());
    }
    CollectInstallPlans(c.world, c.emit, ns, *x, waited_on);
  }
  if (x->subs.empty()) return;
  // A status write of ours not seen back yet: the namespace syncs at its
  // echo (or its refusal), over the status it produced (SyncNamespaceFull).
  for (const auto& [name, v] : x->subs) {
    if (v.valid && split_writes_ && AwaitsEcho(c.world, ns, name)) {
      quiet_.erase(ns);
      return;
    }
  }
  ++syncs_;
  CountSubscriptionSyncs(ns, *x);
  // A conflicted status write waits for a sync that writes it again: never
  // skipped, nor recorded as quiet.
  bool conflicted = false;
  for (const auto& [name, v] : x->subs)
    conflicted |= HeldStatus(c.world, "Subscription", ns, name) != nullptr;
  if (!sync_cache_ || conflicted) {
    quiet_.erase(ns);
    return SyncNamespaceFull(c, ns);
  }
  std::string key = SyncKey(c.world, ns, x);
  auto q = quiet_.find(ns);
  if (q != quiet_.end() && q->second.key == key) {
    size_t i = 0;
    bool same = true;
    for (const auto& [name, v] : x->subs) {
      if (!v.valid) continue;
      if (i >= q->second.statuses.size() ||
          EffectiveSubStatus(c.world, ns, name, v) != q->second.statuses[i]) {
        same = false;
        break;
      }
      ++i;
    }
    if (same && i == q->second.statuses.size()) {
      ++syncs_skipped_;
      for (const auto& n : q->second.notes) c.emit.Note(n.subject, n.kind, n.text);
      return;
    }
  }
  const size_t actions = c.emit.count(), notes = c.emit.note_count();
  const uint64_t asks = requeue_asks_;
  SyncNamespaceFull(c, ns);
  // A sync that wrote, or that waits for something with a deadline, is
  // not quiet: the same inputs later (the deadline passed) decide anew.
  if (c.emit.count() != actions || requeue_asks_ != asks) {
    if (q != quiet_.end()) quiet_.erase(q);
    return;
  }
  // Nothing was written, so the effective statuses are still the ones it read.
  QuietSync& rec = quiet_[ns];
  rec.key = std::move(key);
  rec.statuses.clear();
  for (const auto& [name, v] : x->subs)
    if (v.valid) rec.statuses.push_back(EffectiveSubStatus(c.world, ns, name, v));
  rec.notes.clear();
  if (const auto* all = c.emit.notes()) rec.notes.assign(all->begin() + notes, all->end());
}

void OlmReducer::SyncNamespaceFull(Ctx& c, const std::string& ns) {
  const NsIndex* x = index_.Find(ns);
  if (x == nullptr || x->subs.empty()) return;
  if (x->groups.empty()) {
    // Upstream stops before resolving and sets no condition.
    for (const auto& [name, v] : x->subs) {
      c.emit.Note(StrCat("Subscription ", ns, "/", name), "wait",
                  StrCat("no OperatorGroup in namespace ", ns, ": nothing is resolved until one exists"));
    }
    return;
  }
  // Upstream's two writers of a subscription's status, its subscription
  // syncer (catalog health, the plan's conditions, deprecations) and its
  // namespace resolver (the CSV state, resolution), each write over the
  // status as their informer shows it, never over a write of theirs not
  // seen back. Beside the real OLM the syncer's writes came first; a
  // combined write was a state OLM never writes (issue 49's S2, S3). So:
  // nothing while a status write of ours is on its way (SyncNamespace),
  // then the syncer's step alone, then the CSV-state step alone, then
  // resolution.
  // (subscriptionWrites=combined: the state step first, then the syncer's
  // step and resolution in one write.)
  NamespaceSync sync = ReadNamespace(c.world, ns, x, c.ev.time_ns);
  if (split_writes_ && ReflectSubscriptions(c, sync)) return WriteSubscriptionStatuses(c, sync);
  // Step 2: a subscription's state moved by the plan-adoption or CSV-state
  // step is written alone, and the namespace resolved on the next sync
  // (upstream: its echo). Resolving now would see a replaced CSV that still
  // exists beside its successor (issue 49's S1).
  if (ReflectStates(c, sync)) return WriteSubscriptionStatuses(c, sync);
  if (!split_writes_)
    for (SyncedSub& s : sync.subs) ReflectNamespace(c, sync, s);
  ResolveNamespace(c, sync);
  WriteSubscriptionStatuses(c, sync);
}

bool OlmReducer::ReflectSubscriptions(Ctx& c, NamespaceSync& sync) {
  bool changed = false;
  for (SyncedSub& s : sync.subs) {
    ReflectNamespace(c, sync, s);
    s.status = CanonicalMove(std::move(s.status));
    changed |= !SameIgnoringUpdated(s.status, *s.before);
  }
  return changed;
}

NamespaceSync OlmReducer::ReadNamespace(const World& w, const std::string& ns, const NsIndex* x,
                                        int64_t now) {
  NamespaceSync sync;
  sync.ns = ns;
  sync.x = x;
  sync.now = now;
  bool exclude_global = x->groups.size() == 1 && x->groups.begin()->second.exclude_global;
  // Catalogs in scope, sorted by namespace and name.
  std::vector<std::string> scope_ns{ns};
  if (!exclude_global && global_ns_ != ns) scope_ns.push_back(global_ns_);
  std::sort(scope_ns.begin(), scope_ns.end());
  for (const std::string& sns : scope_ns) {
    const NsIndex* sx = sns == ns ? x : index_.Find(sns);
    if (sx == nullptr) continue;
    for (const auto& [name, v] : sx->catalogs) {
      CatalogInScope cs;
      cs.name = name;
      cs.ns = sns;
      cs.uid = v.uid;
      cs.priority = v.priority;
      const LoadedCatalog& lc = Catalog(w, sns, cs.name);
      cs.digest = lc.digest;
      cs.index = lc.index;
      cs.error = lc.error;
      sync.cats.push_back(std::move(cs));
    }
  }
  sync.subs.reserve(x->subs.size());
  for (const auto& [name, v] : x->subs) {
    if (!v.valid) continue;
    SyncedSub s;
    s.view = &v;
    s.name = name;
    s.package = v.package;
    s.channel = v.channel;
    s.source = v.source;
    s.source_ns = v.source_ns;
    s.starting_csv = v.starting_csv;
    s.approval = v.approval;
    s.before = &EffectiveSubStatus(w, ns, name, v);
    s.status = *s.before;
    sync.subs.push_back(std::move(s));
  }
  // Catalog health (§10.4): the same for every subscription of the namespace.
  sync.health = Json::array();
  for (const auto& cs : sync.cats) {
    bool ok = cs.index != nullptr;
    sync.any_unhealthy |= !ok;
    Json ref =
        Json{{"apiVersion", kApiVersion}, {"kind", "CatalogSource"}, {"name", cs.name}, {"namespace", cs.ns}};
    if (!cs.uid.empty()) ref["uid"] = cs.uid;
    sync.health.push_back(Json{{"catalogSourceRef", ref}, {"healthy", ok}});  // lastUpdated when written
  }
  return sync;
}

void OlmReducer::WriteSubscriptionStatuses(Ctx& c, NamespaceSync& sync) {
  const std::string& ns = sync.ns;
  for (SyncedSub& s : sync.subs) {
    Json next = CanonicalMove(std::move(s.status));
    // A conflicted write of the status still in effect is written again:
    // at once if a newer resourceVersion has been seen, else at the
    // namespace's next event (not in reply to the conflict itself, which
    // would only conflict again).
    bool rewrite = false;
    const engine::TrackedWrite* held = HeldStatus(c.world, "Subscription", ns, s.name);
    auto p = st_.statuses.find(StrCat("Subscription/", ns, "/", s.name));
    if (held != nullptr && p != st_.statuses.end() && s.before == &p->second.body) {
      const std::string held_rv = HeldPrecondition(*held);
      if (held->status == 409) {
        rewrite = Precondition(c.world, "Subscription", ns, s.name, s.view->resource_version) != held_rv ||
                  c.ev.type != records::EventType::kActionResult;
      } else {
        // A refused write is tried again only on a subscription seen at
        // another resourceVersion (a change someone made): never in reply
        // to its own refusal, nor on every event of the namespace.
        rewrite =
            s.view->resource_version != held_rv && !(held_rv == "-" && s.view->resource_version.empty());
      }
    }
    if (!rewrite && SameIgnoringUpdated(next, *s.before)) continue;
    next["lastUpdated"] = engine::FormatRfc3339Seconds(sync.now);
    WriteStatus(
        c, Target{"Subscription", ns, s.name, s.view->api_version, s.view->resource_version, s.view->uid},
        std::move(next));
    st_.statuses[StrCat("Subscription/", ns, "/", s.name)].basis = s.view->status;
  }
}

}  // namespace recon::olm
