// §10.1 namespace sync, §10.4 subscription conditions, §9.7 steps.
#include <algorithm>
#include <cstdint>

#include "base/strings.h"
#include "domains/olm/conditions.h"
#include "domains/olm/reducer.h"
#include "engine/time_format.h"

namespace recon::olm {
namespace {

std::string S(const Json& j, std::string_view k) { return engine::GetString(j, {k}); }

int64_t Int(const Json& j) {
  if (j.is_number_integer()) return j.get<int64_t>();
  if (j.is_number_unsigned()) return static_cast<int64_t>(j.get<uint64_t>());
  return 0;
}

// Deterministic stand-in for generateName's random suffix (k8s alphabet).
std::string PlanName(std::string_view ns, int64_t generation, const std::vector<std::string>& csvs) {
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&](std::string_view s) {
    for (char ch : s) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL;
  };
  mix(ns);
  mix(std::to_string(generation));
  for (const auto& c : csvs) mix(c);
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string out = "install-";
  for (int i = 0; i < 5; ++i) {
    out += kAlphabet[h % 27];
    h /= 27;
  }
  return out;
}

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

// Catalog health lists equal as upstream's change detection sees them: the
// same catalogs (name, namespace, uid) in the same order with the same
// health. Each entry's lastUpdated (the time it was written) and the
// catalogSourceRef's resourceVersion (the real OLM writes it, recon does
// not) do not count.
bool SameHealth(const Json& prev, const Json& health) {
  if (!prev.is_array() || prev.size() != health.size()) return false;
  for (size_t i = 0; i < prev.size(); ++i) {
    const Json& a = engine::Path(prev[i], {"catalogSourceRef"});
    const Json& b = engine::Path(health[i], {"catalogSourceRef"});
    for (std::string_view k : {"name", "namespace", "uid"})
      if (S(a, k) != S(b, k)) return false;
    if (engine::Path(prev[i], {"healthy"}) != engine::Path(health[i], {"healthy"})) return false;
  }
  return true;
}

constexpr int64_t kUnseenPlanWaitNs = 120'000'000'000;

struct CatalogInScope {
  std::string name, ns, uid;
  int priority = 0;
  std::shared_ptr<const CatalogIndex> index;
  std::string error;
};

struct Sub {
  const SubView* view = nullptr;
  std::string_view name, package, channel, source, source_ns, starting_csv, approval;
  Json status;
  const Json* before = nullptr;  // the effective status at the start of the sync (Canonical)
  std::string Subject(std::string_view ns) const { return StrCat("Subscription ", ns, "/", name); }
};

void AppendKey(std::string* key, std::string_view v) {
  key->append(v);
  key->push_back('\x1f');
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
    plans.push_back(v.generated_by);
    const Json& ref = engine::Path(EffectiveSubStatus(w, ns, name, v), {"installPlanRef", "name"});
    if (ref.is_string()) plans.push_back(ref.get_ref<const std::string&>());
  }
  key.push_back('\x1e');
  num(x->groups.size());
  num(!x->groups.empty() && x->groups.begin()->second.exclude_global);
  for (const std::string& sns : {ns, global_ns_}) {
    const NsIndex* sx = sns == ns ? x : index_.Find(sns);
    if (sx == nullptr) continue;
    for (const auto& [name, v] : sx->catalogs) {
      AppendKey(&key, sns);
      AppendKey(&key, name);
      AppendKey(&key, v.uid);
      num(static_cast<uint64_t>(v.priority));
      const LoadedCatalog& lc = Catalog(w, sns, name);
      num(reinterpret_cast<uintptr_t>(lc.index.get()));
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

std::string OlmReducer::ReusablePlan(const World& w, const NsIndex* x, const std::string& ns,
                                     const std::vector<std::string>& csvs, std::string_view approval,
                                     int64_t* gen) const {
  auto open = [&](std::string_view name) {
    std::optional<PlanState> p = EffectiveInstallPlan(w, x, ns, name);
    return p && p->approval == approval && p->facts.phase != "Complete" && p->facts.phase != "Failed";
  };
  for (const auto& [name, v] : x->plans) {
    if (v.valid && v.csvs == csvs && open(name)) {
      *gen = v.generation;
      return name;
    }
  }
  const std::string prefix = StrCat("InstallPlan/", ns, "/");
  for (auto it = st_.created.lower_bound(prefix);
       it != st_.created.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    std::string_view name = std::string_view(it->first).substr(prefix.size());
    if (x->plans.contains(name)) continue;  // observed: judged above
    const Json& names = engine::Path(it->second.body, {"spec", "clusterServiceVersionNames"});
    if (names != Json(csvs) || !open(name)) continue;
    *gen = Int(engine::Path(it->second.body, {"spec", "generation"}));
    return std::string(name);
  }
  return "";
}

bool OlmReducer::AdoptBarePlan(Ctx& c, const NsIndex* x, const std::string& ns, const std::string& name,
                               std::string_view source, std::string_view source_ns) {
  auto pv = x->plans.find(name);
  const std::string key = StrCat("InstallPlan/", ns, "/", name);
  if (pv == x->plans.end() || !pv->second.valid || pv->second.seen_status || st_.created.contains(key) ||
      st_.statuses.contains(key) || name != PlanName(ns, pv->second.generation, pv->second.csvs))
    return false;
  const engine::Object* o = c.world.Get(kGroup, "InstallPlan", ns, name);
  if (o == nullptr) return false;
  const Json& approved = engine::Path(o->json(), {"spec", "approved"});
  const bool waits = pv->second.approval == "Manual" && !(approved.is_boolean() && approved.get<bool>());
  Json steps = Json::array();
  for (const std::string& csv : pv->second.csvs) {
    steps.push_back(Json{{"resolving", csv},
                         {"resource", Json{{"group", kGroup},
                                           {"version", "v1alpha1"},
                                           {"kind", "ClusterServiceVersion"},
                                           {"name", csv},
                                           {"sourceName", source},
                                           {"sourceNamespace", source_ns}}},
                         {"status", "Unknown"}});
  }
  Json status = Json{{"phase", waits ? "RequiresApproval" : "Installing"},
                     {"catalogSources", Json::array({source})},
                     {"plan", std::move(steps)}};
  std::string phase = S(status, "phase");
  WriteStatus(c,
              Target{"InstallPlan", ns, name, engine::GetString(o->json(), {"apiVersion"}, kApiVersion),
                     engine::GetString(o->json(), {"metadata", "resourceVersion"})},
              std::move(status));
  Note(
      StrCat("InstallPlan ", ns, "/", name), "state",
      StrCat("created by an earlier run, never given a status: adopted, status written (phase ", phase, ")"));
  return true;
}

void OlmReducer::SyncNamespace(Ctx& c, const std::string& ns) {
  const NsIndex* x = index_.Find(ns);
  if (x == nullptr || x->subs.empty()) return;
  ++syncs_;
  // A conflicted status write waits for a sync that writes it again: never
  // skipped, nor recorded as quiet.
  const std::string conflicted_prefix = StrCat("Subscription/", ns, "/");
  bool conflicted = false;
  for (auto it = st_.statuses.lower_bound(conflicted_prefix);
       it != st_.statuses.end() && it->first.starts_with(conflicted_prefix); ++it)
    conflicted |= !it->second.conflicted_rv.empty() || !it->second.refused_rv.empty();
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
      notes_.insert(notes_.end(), q->second.notes.begin(), q->second.notes.end());
      return;
    }
  }
  const size_t actions = c.emit.count(), notes = notes_.size();
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
  rec.notes.assign(notes_.begin() + notes, notes_.end());
}

void OlmReducer::SyncNamespaceFull(Ctx& c, const std::string& ns) {
  const World& w = c.world;
  const int64_t now = c.ev.time_ns;
  const NsIndex* x = index_.Find(ns);
  if (x == nullptr || x->subs.empty()) return;
  if (x->groups.empty()) {
    // Upstream stops before resolving and sets no condition.
    for (const auto& [name, v] : x->subs) {
      Note(StrCat("Subscription ", ns, "/", name), "wait",
           StrCat("no OperatorGroup in namespace ", ns, ": nothing is resolved until one exists"));
    }
    return;
  }
  bool exclude_global = x->groups.size() == 1 && x->groups.begin()->second.exclude_global;

  // Catalogs in scope, sorted by namespace and name.
  std::vector<CatalogInScope> cats;
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
      cs.index = lc.index;
      cs.error = lc.error;
      cats.push_back(std::move(cs));
    }
  }
  auto find_cat = [&](std::string_view name, std::string_view cns) -> const CatalogInScope* {
    for (const auto& cs : cats)
      if (cs.name == name && cs.ns == cns) return &cs;
    return nullptr;
  };

  std::vector<Sub> subs;
  subs.reserve(x->subs.size());
  for (const auto& [name, v] : x->subs) {
    if (!v.valid) continue;
    Sub s;
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
    subs.push_back(std::move(s));
  }
  auto csv_exists = [&](std::string_view name) { return !name.empty() && x->csvs.contains(name); };

  // Catalog health (§10.4): the same for every subscription of the namespace.
  Json health = Json::array();
  bool any_unhealthy = false;
  std::string first_unhealthy;
  for (const auto& cs : cats) {
    bool ok = cs.index != nullptr;
    if (!ok && first_unhealthy.empty()) first_unhealthy = StrCat(cs.ns, "/", cs.name);
    any_unhealthy |= !ok;
    Json ref =
        Json{{"apiVersion", kApiVersion}, {"kind", "CatalogSource"}, {"name", cs.name}, {"namespace", cs.ns}};
    if (!cs.uid.empty()) ref["uid"] = cs.uid;
    health.push_back(Json{{"catalogSourceRef", ref}, {"healthy", ok}});  // lastUpdated when written
  }

  for (Sub& s : subs) {
    Json& st = s.status;
    // InstallPlan adoption: a subscription created by an InstallPlan step.
    const std::string& generated_by = s.view->generated_by;
    if (S(engine::Path(st, {"installPlanRef"}), "name").empty() && S(st, "currentCSV").empty() &&
        !generated_by.empty() && EffectiveInstallPlan(w, x, ns, generated_by)) {
      st["installPlanRef"] = Json{
          {"apiVersion", kApiVersion}, {"kind", "InstallPlan"}, {"name", generated_by}, {"namespace", ns}};
      st["state"] = "UpgradePending";
      if (!s.starting_csv.empty()) st["currentCSV"] = s.starting_csv;
    }
    // The referenced InstallPlan's phase (§10.4).
    std::string ip_name = S(engine::Path(st, {"installPlanRef"}), "name");
    if (!ip_name.empty()) {
      std::optional<PlanState> ip = EffectiveInstallPlan(w, x, ns, ip_name);
      // A plan never seen, referenced by a status another writer (or an
      // earlier run) wrote: its event may come on another watch stream, so
      // it is waited for, for 2 minutes from the subscription's last
      // change, rather than taken as gone and planned again (a second plan
      // for the step). One known gone (deleted, or our create failed) is gone.
      // A bare plan (observed with no status) that recon named, which no
      // status write of this run covers: an earlier leader created it and
      // stopped before writing its status (upstream's Create, then
      // UpdateStatus). Nothing else would ever run it: its status is written
      // now, once, as the creating run would have.
      if (ip && ip->facts.phase.empty() && AdoptBarePlan(c, x, ns, ip_name, s.source, s.source_ns))
        ip = EffectiveInstallPlan(w, x, ns, ip_name);
      const engine::Object* so = w.Get(kGroup, "Subscription", ns, s.name);
      if (!ip && !st_.gone_plans.contains(StrCat("InstallPlan/", ns, "/", ip_name)) && so != nullptr &&
          now - so->time_ns() < kUnseenPlanWaitNs) {
        // Woken when the wait is over, in case nothing else comes.
        RequeueAt(so->time_ns() + kUnseenPlanWaitNs);
        Note(s.Subject(ns), "wait",
             StrCat("InstallPlan ", ip_name, " referenced but not seen yet: waiting for it"));
      } else if (!ip) {
        RemoveCondition(st, "InstallPlanPending");
        RemoveCondition(st, "InstallPlanFailed");
        if (S(st, "state") == "UpgradePending") {
          // Addendum: the reference is dropped and the subscription resolved again.
          st.erase("installPlanRef");
          Note(s.Subject(ns), "note", StrCat("InstallPlan ", ip_name, " is gone: resolving again"));
        } else {
          SetCondition(st, "InstallPlanMissing", "True", "ReferencedInstallPlanNotFound", "", now);
        }
      } else {
        RemoveCondition(st, "InstallPlanMissing");
        const std::string& phase = ip->facts.phase;
        const std::string& msg = ip->facts.installed_message;
        const std::string& failed_reason = ip->facts.failed_reason;
        if (phase == "Complete") {
          RemoveCondition(st, "InstallPlanPending");
          RemoveCondition(st, "InstallPlanFailed");
        } else if (phase == "Failed") {
          RemoveCondition(st, "InstallPlanPending");
          SetCondition(st, "InstallPlanFailed", "True",
                       failed_reason.empty() ? "InstallPlanFailed" : failed_reason, msg, now);
        } else {
          RemoveCondition(st, "InstallPlanFailed");
          SetCondition(st, "InstallPlanPending", "True",
                       phase.empty() ? "InstallPlanNotYetReconciled" : phase, msg, now);
          const Json* was = FindCondition(*s.before, "InstallPlanPending");
          if (phase == "RequiresApproval" && (was == nullptr || S(*was, "reason") != "RequiresApproval")) {
            Note(s.Subject(ns), "wait",
                 StrCat("waits for approval of InstallPlan ", ns, "/", ip_name, " (",
                        StrCat(ip->approval, " approval; set spec.approved to true)")));
          }
        }
      }
    }
    // CSV state.
    std::string current = S(st, "currentCSV");
    if (!current.empty()) {
      if (csv_exists(current)) {
        if (S(st, "installedCSV") != current || S(st, "state") != "AtLatestKnown") {
          Note(s.Subject(ns), "state", StrCat(current, " is installed"));
        }
        st["state"] = "AtLatestKnown";
        st["installedCSV"] = current;
      } else {
        st["state"] = "UpgradePending";
      }
    }
    // Catalog health (§10.4), written only when something changed.
    static const Json kNoHealth = Json::array();
    auto prev_it = st.find("catalogHealth");
    const Json& prev = prev_it != st.end() ? *prev_it : kNoHealth;
    const bool same_health = SameHealth(prev, health);
    if (!same_health || !FindCondition(st, "CatalogSourcesUnhealthy")) {
      const CatalogInScope* target = find_cat(s.source, s.source_ns);
      std::string cstatus = "False", reason = "AllCatalogSourcesHealthy",
                  msg = "all available catalogsources are healthy";
      if (target == nullptr) {
        cstatus = "True";
        reason = "UnhealthyCatalogSourceFound";
        msg = StrCat("targeted catalogsource ", s.source_ns, "/", s.source, " missing");
      } else if (any_unhealthy) {
        cstatus = "True";
        reason = "UnhealthyCatalogSourceFound";
        msg = target->index == nullptr
                  ? StrCat("targeted catalogsource ", s.source_ns, "/", s.source, " unhealthy")
                  : StrCat("catalogsource ", first_unhealthy, " unhealthy");
      }
      if (health.size() > prev.size()) {
        reason = "CatalogSourcesAdded";
      } else if (health.size() < prev.size()) {
        reason = "CatalogSourcesDeleted";
      } else if (health.empty()) {
        reason = "NoCatalogSourcesFound";
        msg = "dependency resolution requires at least one catalogsource";
      } else if (!same_health) {
        reason = "CatalogSourcesUpdated";
      }
      SetCondition(st, "CatalogSourcesUnhealthy", cstatus, reason, msg, now);
      // The CRD requires lastUpdated on every entry (a real server refuses
      // the whole status write without it).
      // An unchanged entry keeps its time.
      Json stamped = health;
      for (size_t i = 0; i < stamped.size(); ++i) {
        const Json& was = same_health ? engine::Path(prev[i], {"lastUpdated"}) : Json();
        stamped[i]["lastUpdated"] = was.is_string() ? was : Json(engine::FormatRfc3339Seconds(now));
      }
      st["catalogHealth"] = std::move(stamped);
    }
    // Deprecations of the installed entry (§6, §10.4).
    std::vector<std::pair<std::string, std::string>> dep;  // type → message
    const CatalogInScope* target = find_cat(s.source, s.source_ns);
    std::string installed = S(st, "installedCSV");
    if (target && target->index && !installed.empty()) {
      if (const CatalogPackage* p = target->index->FindPackage(s.package)) {
        for (const CatalogChannel& ch : p->channels) {
          if (!s.channel.empty() && ch.name != s.channel) continue;
          const Entry* found = nullptr;
          for (int e : ch.all)
            if (target->index->entries()[e].name == installed) found = &target->index->entries()[e];
          if (found == nullptr) continue;
          if (p->deprecated)
            dep.push_back({"PackageDeprecated", StrCat("olm.package/", p->name, ": ", p->deprecation)});
          if (ch.deprecated && !s.channel.empty())
            dep.push_back({"ChannelDeprecated", StrCat("olm.channel/", ch.name, ": ", ch.deprecation)});
          if (found->deprecated)
            dep.push_back({"BundleDeprecated", StrCat("olm.bundle/", found->name, ": ", found->deprecation)});
          break;
        }
      }
    }
    std::string rollup;
    for (const char* t : {"PackageDeprecated", "ChannelDeprecated", "BundleDeprecated"}) {
      auto it = std::find_if(dep.begin(), dep.end(), [&](auto& d) { return d.first == t; });
      if (it == dep.end()) {
        RemoveCondition(st, t);
      } else {
        SetCondition(st, t, "True", "Deprecated", it->second, now);
        StrAppend(&rollup, rollup.empty() ? "" : "; ", it->second);
      }
    }
    if (rollup.empty()) {
      RemoveCondition(st, "Deprecated");
    } else {
      SetCondition(st, "Deprecated", "True", "Deprecated", rollup, now);
    }
  }

  // Resolution.
  auto fail_all = [&](std::string_view reason, const std::string& msg) {
    for (Sub& s : subs) {
      const Json* old = FindCondition(s.status, "ResolutionFailed");
      if (old == nullptr || S(*old, "message") != msg)
        Note(s.Subject(ns), "wait", StrCat("resolution failed: ", msg));
      SetCondition(s.status, "ResolutionFailed", "True", reason, msg, now);
    }
  };
  bool all_waiting = std::all_of(subs.begin(), subs.end(), [](const Sub& s) {
    return !S(engine::Path(s.status, {"installPlanRef"}), "name").empty() &&
           S(s.status, "state") == "UpgradePending";
  });
  const CatalogInScope* broken = nullptr;
  for (const auto& cs : cats)
    if (!cs.index && !broken) broken = &cs;
  if (x->groups.size() != 1) {
    fail_all("ErrorPreventedResolution",
             StrCat("expected 1 OperatorGroup in the namespace, found ", x->groups.size()));
  } else if (all_waiting) {
    // All subscriptions wait on their InstallPlans: nothing to resolve.
  } else if (broken) {
    fail_all("ErrorPreventedResolution",
             StrCat("error using catalogsource ", broken->ns, "/", broken->name, ": ", broken->error));
  } else {
    ResolveInput in;
    in.ns = ns;
    for (const auto& cs : cats) in.catalogs.push_back({cs.name, cs.ns, cs.priority, cs.index});
    std::map<std::string, std::pair<std::string_view, std::string_view>, std::less<>> installed_by;
    for (const Sub& s : subs) {
      std::string installed = S(s.status, "installedCSV");
      in.subscriptions.push_back({std::string(s.name), std::string(s.package), std::string(s.channel),
                                  std::string(s.source), std::string(s.source_ns),
                                  std::string(s.starting_csv), installed});
      if (!installed.empty()) installed_by[installed] = {s.name, s.package};
    }
    // The resolution's inputs as text: the same text, the same result.
    std::string key;
    for (const CatalogRef& cr : in.catalogs) {
      AppendKey(&key, cr.name);
      AppendKey(&key, cr.ns);
      AppendKey(&key, std::to_string(cr.priority));
      AppendKey(&key, std::to_string(reinterpret_cast<uintptr_t>(cr.index.get())));
    }
    key.push_back('\x1e');
    for (const SubscriptionInput& si : in.subscriptions) {
      for (const std::string* f : {&si.name, &si.package, &si.channel, &si.source, &si.source_ns,
                                   &si.starting_csv, &si.installed_csv})
        AppendKey(&key, *f);
    }
    key.push_back('\x1e');
    // Installed CSVs (§9.1) with the subscription whose installedCSV names them.
    std::vector<std::pair<const InstalledCsv*, const std::pair<std::string_view, std::string_view>*>>
        existing;
    for (const auto& [name, cv] : x->csvs) {
      if (!cv.installed) continue;
      auto by = installed_by.find(name);
      existing.push_back({&*cv.installed, by == installed_by.end() ? nullptr : &by->second});
      AppendKey(&key, name);
      AppendKey(&key, std::to_string(cv.seq));
      AppendKey(&key, by == installed_by.end() ? "-" : by->second.first);
      AppendKey(&key, by == installed_by.end() ? "-" : by->second.second);
    }
    ++resolutions_;
    ResolveMemo& memo = memo_[ns];
    if (memo.key != key || !sync_cache_) {
      for (const auto& [ic, by] : existing) {
        in.existing.push_back(ic->csv);
        if (by == nullptr) continue;
        ExistingCsv& e = in.existing.back();
        e.subscription = std::string(by->first);
        if (!ic->package_from_properties) e.entry.package = std::string(by->second);
      }
      ++resolutions_computed_;
      memo.key = std::move(key);
      memo.result = Resolve(in);
    }
    const absl::StatusOr<ResolveResult>& res = memo.result;
    if (!res.ok()) {
      fail_all(res.status().code() == absl::StatusCode::kFailedPrecondition &&
                       Sv(res.status().message()).substr(0, 13) == "constraints n"
                   ? "ConstraintsNotSatisfiable"
                   : "ErrorPreventedResolution",
               std::string(Sv(res.status().message())));
    } else {
      std::vector<const ResolvedOperator*> plan;
      std::vector<std::pair<Sub*, const ResolvedOperator*>> changed;
      std::vector<Json> new_subs;
      for (const ResolvedOperator& op : res->operators) {
        std::vector<Sub*> matching;
        for (Sub& s : subs) {
          if (s.package == op.package && (s.channel.empty() || s.channel == op.channel) &&
              s.source == op.catalog && s.source_ns == op.catalog_ns)
            matching.push_back(&s);
        }
        bool done = !matching.empty() && std::all_of(matching.begin(), matching.end(), [&](Sub* s) {
          return S(s->status, "currentCSV") == op.csv && csv_exists(op.csv);
        });
        if (done) continue;
        // Deviation: an operator whose subscriptions already point at it is
        // left to their own InstallPlan (upstream repeats it in this plan,
        // where a late execution can undo a newer install). One whose
        // InstallPlan reference was dropped (the plan is gone, or its create
        // failed) has none left to wait for: it is planned again.
        auto needs_plan = [&op](const Sub* s) {
          return S(s->status, "currentCSV") != op.csv ||
                 S(engine::Path(s->status, {"installPlanRef"}), "name").empty();
        };
        bool differs = matching.empty() || std::any_of(matching.begin(), matching.end(), needs_plan);
        if (!differs) continue;
        plan.push_back(&op);
        if (matching.empty()) {
          // A dependency with no subscription: the plan creates one (§9.7).
          Json sub =
              Json{{"apiVersion", kApiVersion},
                   {"kind", "Subscription"},
                   {"metadata",
                    Json{{"name", StrCat(op.package, "-", op.channel, "-", op.catalog, "-", op.catalog_ns)},
                         {"namespace", ns}}},
                   {"spec", Json{{"channel", op.channel},
                                 {"installPlanApproval", "Automatic"},
                                 {"name", op.package},
                                 {"source", op.catalog},
                                 {"sourceNamespace", op.catalog_ns},
                                 {"startingCSV", op.csv}}}};
          new_subs.push_back(std::move(sub));
        }
        for (Sub* s : matching) {
          if (needs_plan(s)) changed.push_back({s, &op});
        }
      }
      if (!changed.empty()) {
        int64_t gen = 0;
        for (const Sub& s : subs) gen = std::max(gen, Int(engine::Path(s.status, {"installPlanGeneration"})));
        for (const auto& [name, p] : x->plans) gen = std::max(gen, p.generation);
        const std::string prefix = StrCat("InstallPlan/", ns, "/");
        for (auto it = st_.created.lower_bound(prefix);
             it != st_.created.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
          gen = std::max(gen, Int(engine::Path(it->second.body, {"spec", "generation"})));
        }
        ++gen;
        bool manual =
            std::any_of(subs.begin(), subs.end(), [](const Sub& s) { return s.approval == "Manual"; });
        std::vector<std::string> csvs;
        for (const auto* op : plan) csvs.push_back(op->csv);
        // The step may be planned already: a plan not finished that installs
        // exactly these CSVs, observed or with its create in flight, is
        // reused, never created again (upstream reuses the plan of the
        // generation). Without this a refused or lost status write, which
        // leaves the subscriptions without their installPlanRef, made every
        // re-sync create another plan for the same step.
        int64_t reused_gen = gen;
        std::string reused = ReusablePlan(c.world, x, ns, csvs, manual ? "Manual" : "Automatic", &reused_gen);
        if (!reused.empty()) {
          // Only a plan of these very subscriptions (a subscription deleted and
          // created again is another owner: its old plan is garbage).
          const Json* body = nullptr;
          if (auto cr = st_.created.find(StrCat("InstallPlan/", ns, "/", reused)); cr != st_.created.end())
            body = &cr->second.body;
          else if (const engine::Object* o = w.Get(kGroup, "InstallPlan", ns, reused))
            body = &o->json();
          std::set<std::string> owners;
          if (body != nullptr) {
            const Json& refs = engine::Path(*body, {"metadata", "ownerReferences"});
            for (const Json& r : refs.is_array() ? refs : Json::array())
              owners.insert(engine::GetString(r, {"uid"}));
          }
          for (const auto& [s, op] : changed)
            if (!s->view->uid.empty() && !owners.contains(s->view->uid)) reused.clear();
        }
        if (!reused.empty()) gen = reused_gen;
        std::string name = reused.empty() ? PlanName(ns, gen, csvs) : reused;
        Json steps = Json::array();
        std::set<std::string> sources;
        for (const auto* op : plan) {
          sources.insert(StrCat(op->catalog_ns, "/", op->catalog));
          steps.push_back(Json{{"resolving", op->csv},
                               {"resource", Json{{"group", kGroup},
                                                 {"version", "v1alpha1"},
                                                 {"kind", "ClusterServiceVersion"},
                                                 {"name", op->csv},
                                                 {"sourceName", op->catalog},
                                                 {"sourceNamespace", op->catalog_ns}}},
                               {"status", "Unknown"}});
        }
        for (const Json& ns_sub : new_subs) {
          std::string csv = engine::GetString(ns_sub, {"spec", "startingCSV"});
          steps.push_back(Json{
              {"resolving", csv},
              {"resource", Json{{"group", kGroup},
                                {"version", "v1alpha1"},
                                {"kind", "Subscription"},
                                {"name", engine::GetString(ns_sub, {"metadata", "name"})},
                                {"manifest", engine::Dump(ns_sub)},
                                // Required by the CRD (a step's catalog).
                                {"sourceName", engine::GetString(ns_sub, {"spec", "source"})},
                                {"sourceNamespace", engine::GetString(ns_sub, {"spec", "sourceNamespace"})}}},
              {"status", "Unknown"}});
        }
        Json owners = Json::array();
        for (const auto& [s, op] : changed) {
          Json ref = Json{{"apiVersion", kApiVersion}, {"kind", "Subscription"}, {"name", s->name}};
          if (!s->view->uid.empty()) ref["uid"] = s->view->uid;
          ref["blockOwnerDeletion"] = false;
          ref["controller"] = false;
          owners.push_back(std::move(ref));
        }
        Json catalog_sources = Json::array();
        for (const auto& cs : sources) catalog_sources.push_back(cs.substr(cs.find('/') + 1));
        Json status = Json{{"phase", manual ? "RequiresApproval" : "Installing"},
                           {"catalogSources", catalog_sources},
                           {"plan", steps}};
        Json ip = Json{{"apiVersion", kApiVersion},
                       {"kind", "InstallPlan"},
                       {"metadata", Json{{"name", name}, {"namespace", ns}, {"ownerReferences", owners}}},
                       {"spec", Json{{"clusterServiceVersionNames", csvs},
                                     {"approval", manual ? "Manual" : "Automatic"},
                                     {"approved", !manual},
                                     {"generation", gen}}}};
        // A real server drops .status on a create (status subresource): the
        // plan is created bare and its status written by updateStatus once
        // the plan is observed (OnInstallPlan), as upstream's
        // createInstallPlan does after its Create returns. The status is
        // kept with the created body until then.
        if (reused.empty()) {
          std::string id = c.emit.Create(ip);
          ip["status"] = std::move(status);
          st_.created[StrCat("InstallPlan/", ns, "/", name)] = PendingWrite{ip, c.ev.seq, id};
        } else {
          Note(StrCat("InstallPlan ", ns, "/", name), "note",
               "already plans this step (observed or its create in flight): reused, not created again");
        }
        for (auto& [s, op] : changed) {
          std::string from = S(s->status, "installedCSV");
          s->status["currentCSV"] = op->csv;
          s->status["installPlanGeneration"] = gen;
          s->status["installPlanRef"] =
              Json{{"apiVersion", kApiVersion}, {"kind", "InstallPlan"}, {"name", name}, {"namespace", ns}};
          s->status["state"] = "UpgradePending";
          RemoveCondition(s->status, "InstallPlanMissing");
          RemoveCondition(s->status, "InstallPlanFailed");
          SetCondition(s->status, "InstallPlanPending", "True", manual ? "RequiresApproval" : "Installing",
                       "", now);
          auto& path = st_.paths[StrCat(ns, "/", s->name)];
          if (path.empty() && !from.empty()) path.push_back(from);
          path.push_back(op->csv);
          std::string path_text;
          for (const auto& p : path) StrAppend(&path_text, path_text.empty() ? "" : " -> ", p);
          Note(s->Subject(ns), "state",
               StrCat(from.empty() ? "install " : StrCat("upgrade ", from, " -> "), op->csv, " from catalog ",
                      op->catalog_ns, "/", op->catalog, " channel ", op->channel, " (", op->why,
                      "); InstallPlan ", name, manual ? " needs approval" : " approved automatically",
                      "; path so far: ", path_text));
          if (manual) {
            Note(s->Subject(ns), "wait",
                 StrCat("waits for approval of InstallPlan ", ns, "/", name,
                        " (Manual approval; set spec.approved to true)"));
          }
        }
        for (const auto* op : plan) {
          if (op->subscription.empty()) {
            Note(StrCat("InstallPlan ", ns, "/", name), "note",
                 StrCat("also installs ", op->csv, " (", op->why, ")"));
          }
        }
      } else {
        for (Sub& s : subs) {
          std::string cur = S(s.status, "currentCSV");
          if (cur.empty() || S(s.status, "state") != "AtLatestKnown" ||
              S(*s.before, "state") == "AtLatestKnown")
            continue;
          Note(s.Subject(ns), "state",
               StrCat("at ", cur, ": no entry of channel ", s.channel.empty() ? "(any)" : s.channel,
                      " in catalog ", s.source_ns, "/", s.source,
                      " replaces, skips or has a skipRange covering it, so there is no upgrade"));
        }
      }
      for (Sub& s : subs) RemoveCondition(s.status, "ResolutionFailed");
    }
  }

  for (Sub& s : subs) {
    Json next = CanonicalMove(std::move(s.status));
    // A conflicted write of the status still in effect is written again:
    // at once if a newer resourceVersion has been seen, else at the
    // namespace's next event (not in reply to the conflict itself, which
    // would only conflict again).
    bool rewrite = false;
    if (auto p = st_.statuses.find(StrCat("Subscription/", ns, "/", s.name));
        p != st_.statuses.end() && !p->second.conflicted_rv.empty() && s.before == &p->second.body) {
      rewrite = Precondition(c.world, "Subscription", ns, s.name, s.view->resource_version) !=
                    p->second.conflicted_rv ||
                c.ev.type != engine::EventType::kActionResult;
    }
    // A refused write is tried again only on a subscription seen at another
    // resourceVersion (a change someone made): never in reply to its own
    // refusal, nor on every event of the namespace.
    if (auto p = st_.statuses.find(StrCat("Subscription/", ns, "/", s.name));
        p != st_.statuses.end() && !p->second.refused_rv.empty() && s.before == &p->second.body) {
      rewrite = s.view->resource_version != p->second.refused_rv &&
                !(p->second.refused_rv == "-" && s.view->resource_version.empty());
    }
    if (!rewrite && SameIgnoringUpdated(next, *s.before)) continue;
    next["lastUpdated"] = engine::FormatRfc3339Seconds(now);
    WriteStatus(
        c, Target{"Subscription", ns, s.name, s.view->api_version, s.view->resource_version, s.view->uid},
        std::move(next));
  }
}

}  // namespace recon::olm
