// §10.4: a subscription's status and conditions from what its namespace
// shows (its InstallPlan, its CSV, the catalogs' health, deprecations).
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/strings.h"
#include "domains/olm/conditions.h"
#include "domains/olm/reducer.h"
#include "domains/olm/sync_state.h"
#include "engine/time_format.h"

namespace recon::olm {
namespace {

constexpr int64_t kUnseenPlanWaitNs = 120'000'000'000;

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

// InstallPlan adoption: a subscription created by an InstallPlan step,
// with no state of its own yet, references that plan.
bool AdoptsGeneratingPlan(const SyncedSub& s) {
  return S(engine::Path(s.status, {"installPlanRef"}), "name").empty() && S(s.status, "currentCSV").empty() &&
         !s.view->generated_by.empty();
}
void AdoptGeneratingPlan(const NamespaceSync& sync, SyncedSub& s) {
  Json& st = s.status;
  st["installPlanRef"] = Json{{"apiVersion", kApiVersion},
                              {"kind", "InstallPlan"},
                              {"name", s.view->generated_by},
                              {"namespace", sync.ns}};
  st["state"] = "UpgradePending";
  if (!s.starting_csv.empty()) st["currentCSV"] = s.starting_csv;
}

// The CatalogSourcesUnhealthy condition and catalogHealth (§10.4), as
// upstream's catalog-health reconciler computes them at every sync
// (subscription/state.go UpdateHealth): the condition from the health
// now, its reason then overridden by a change in the number of catalogs;
// written when that number changed or the condition differs from the one
// there (so a CatalogSourcesAdded becomes AllCatalogSourcesHealthy at the
// next sync). Compared with the status as observed, as upstream's
// reconciler reads its informer's copy: a write of ours not yet seen back
// is not improved on before its echo.
void ReflectCatalogHealth(const NamespaceSync& sync, const SyncedSub& s, Json& st) {
  static const Json kNoHealth = Json::array();
  const Json& health = sync.health;
  const Json& seen = s.view->Seen();
  const Json& seen_health = engine::Path(seen, {"catalogHealth"});
  const Json& prev = seen_health.is_array() ? seen_health : kNoHealth;
  const Json* was = FindCondition(seen, "CatalogSourcesUnhealthy");
  // Upstream starts from the condition there: a message it does not set
  // (some other catalog unhealthy, the targeted one fine) stays as it was.
  std::string msg = was != nullptr ? S(*was, "message") : "";
  const CatalogInScope* target = sync.FindCatalog(s.source, s.source_ns);
  std::string cstatus = "False", reason = "AllCatalogSourcesHealthy";
  if (target == nullptr) {
    cstatus = "True";
    reason = "UnhealthyCatalogSourceFound";
    msg = StrCat("targeted catalogsource ", s.source_ns, "/", s.source, " missing");
  } else if (sync.any_unhealthy) {
    cstatus = "True";
    reason = "UnhealthyCatalogSourceFound";
    if (target->index == nullptr) msg = StrCat("targeted catalogsource ", s.source_ns, "/", s.source, " unhealthy");
  } else {
    msg = "all available catalogsources are healthy";
  }
  bool update = true;
  if (health.size() > prev.size()) {
    reason = "CatalogSourcesAdded";
  } else if (health.size() < prev.size()) {
    reason = "CatalogSourcesDeleted";
  } else if (health.empty()) {
    reason = "NoCatalogSourcesFound";
    msg = "dependency resolution requires at least one catalogsource";
  } else {
    if (!SameHealth(prev, health)) reason = "CatalogSourcesUpdated";
    update = false;
  }
  if (!update && was != nullptr && S(*was, "status") == cstatus && S(*was, "reason") == reason &&
      S(*was, "message") == msg)
    return;
  SetCondition(st, "CatalogSourcesUnhealthy", cstatus, reason, msg, sync.now);
  // The CRD requires lastUpdated on every entry (a real server refuses
  // the whole status write without it). An unchanged entry keeps its time:
  // the one our write not yet seen gave it, else the observed one.
  const Json& mine = engine::Path(st, {"catalogHealth"});
  const Json* times = SameHealth(mine, health) ? &mine : SameHealth(prev, health) ? &prev : nullptr;
  Json stamped = health;
  for (size_t i = 0; i < stamped.size(); ++i) {
    const Json& at = times != nullptr ? engine::Path((*times)[i], {"lastUpdated"}) : Json();
    stamped[i]["lastUpdated"] = at.is_string() ? at : Json(engine::FormatRfc3339Seconds(sync.now));
  }
  st["catalogHealth"] = std::move(stamped);
}

// Whether upstream's subscription syncer would look at the subscription's
// plan now: it runs on the subscription's own events, and a plan's sync
// requeues the plan's owners; a subscription the plan does not own (the
// dependency it created) sees its phase move only at its next event
// (beside the real OLM: cert-manager's InstallPlanPending never removed).
bool SyncerSeesPlan(const engine::Event& ev, const NamespaceSync& sync, const SyncedSub& s) {
  if (ev.IsObject() && ev.kind == "Subscription" && ev.ns == sync.ns && ev.name == s.name) return true;
  auto pv = sync.x->plans.find(S(engine::Path(s.status, {"installPlanRef"}), "name"));
  if (pv == sync.x->plans.end() || s.view->uid.empty()) return true;
  const std::vector<std::string>& o = pv->second.owners;
  return std::find(o.begin(), o.end(), s.view->uid) != o.end();
}

// The deprecations of the installed entry's package, channel and bundle
// (§6, §10.4), type → message, in that order.
std::vector<std::pair<std::string, std::string>> InstalledDeprecations(const NamespaceSync& sync,
                                                                       const SyncedSub& s, const Json& st) {
  std::vector<std::pair<std::string, std::string>> dep;
  const CatalogInScope* target = sync.FindCatalog(s.source, s.source_ns);
  std::string installed = S(st, "installedCSV");
  if (!target || !target->index || installed.empty()) return dep;
  const CatalogPackage* p = target->index->FindPackage(s.package);
  if (p == nullptr) return dep;
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
  return dep;
}

// One condition per deprecation, and Deprecated rolling them up.
void ReflectDeprecations(const NamespaceSync& sync, const SyncedSub& s, Json& st) {
  std::vector<std::pair<std::string, std::string>> dep = InstalledDeprecations(sync, s, st);
  std::string rollup;
  for (const char* t : {"PackageDeprecated", "ChannelDeprecated", "BundleDeprecated"}) {
    auto it = std::find_if(dep.begin(), dep.end(), [&](auto& d) { return d.first == t; });
    if (it == dep.end()) {
      RemoveCondition(st, t);
    } else {
      SetCondition(st, t, "True", "Deprecated", it->second, sync.now);
      StrAppend(&rollup, rollup.empty() ? "" : "; ", it->second);
    }
  }
  if (rollup.empty()) {
    RemoveCondition(st, "Deprecated");
  } else {
    SetCondition(st, "Deprecated", "True", "Deprecated", rollup, sync.now);
  }
}

// The operators of a bare plan recon named: each CSV's package from the
// subscription's catalog (a dependency's is another package's entry); the
// subscription's own CSV replaces its installed one.
std::vector<ResolvedOperator> BarePlanOperators(const NamespaceSync& sync, const SyncedSub& s,
                                                const std::vector<std::string>& csvs) {
  std::vector<ResolvedOperator> ops;
  const CatalogInScope* cat = sync.FindCatalog(s.source, s.source_ns);
  for (const std::string& csv : csvs) {
    ResolvedOperator op;
    op.csv = csv;
    op.catalog = std::string(s.source);
    op.catalog_ns = std::string(s.source_ns);
    if (cat != nullptr && cat->index != nullptr) {
      for (const Entry& e : cat->index->entries()) {
        if (e.name != csv) continue;
        op.package = e.package;
        break;
      }
    }
    if (csv == S(s.status, "currentCSV")) op.replaces = S(s.status, "installedCSV");
    ops.push_back(std::move(op));
  }
  return ops;
}

}  // namespace

bool OlmReducer::ReflectStates(Ctx& c, NamespaceSync& sync) {
  // UpgradeFailed instead of UpgradePending for a subscription whose plan
  // failed, with fail-forward on (the namespace's one group).
  const bool fail_forward = sync.x->groups.size() == 1 && sync.x->groups.begin()->second.fail_forward;
  auto phase_of = [&](const std::string& name) -> std::optional<std::string> {
    if (name.empty()) return std::nullopt;
    std::optional<PlanState> ip = EffectiveInstallPlan(c.world, sync.x, sync.ns, name, /*informer=*/split_writes_);
    if (!ip) return std::nullopt;
    return ip->facts.phase;
  };
  bool moved = false;
  for (SyncedSub& s : sync.subs) {
    bool adopted = false;
    if (AdoptsGeneratingPlan(s) && EffectiveInstallPlan(c.world, sync.x, sync.ns, s.view->generated_by)) {
      AdoptGeneratingPlan(sync, s);
      if (fail_forward && phase_of(s.view->generated_by) == "Failed") s.status["state"] = "UpgradeFailed";
      adopted = true;
    }
    // Upstream compares the state alone: an installedCSV catching up on an
    // unchanged state goes with the rest of the next write.
    const std::string current = S(s.status, "currentCSV");
    if (current.empty() && !adopted) continue;
    const std::string plan = S(engine::Path(s.status, {"installPlanRef"}), "name");
    const std::optional<std::string> phase = phase_of(plan);
    std::string next = S(s.status, "state");
    if (!current.empty()) {
      next = sync.CsvExists(current)                      ? "AtLatestKnown"
             : fail_forward && phase == "Failed"           ? "UpgradeFailed"
                                                          : "UpgradePending";
    }
    // The CSV counts once its plan is done and the replacement is over (the
    // CSV it replaces gone, unless it failed): upstream decides the CSV state
    // in its namespace resolver, whose runs (queued behind the plan's sync
    // and the subscription reconciler's writes, rate-limited after their
    // conflicts) came after both in every step beside the real OLM
    // (docs/conformance.md, session 22). Moving earlier, recon resolved
    // beside the CSV being replaced (issue 49's S1) and carried the plan's
    // InstallPlanPending (S2).
    const bool plan_running = phase && (phase->empty() || *phase == "Planning" || *phase == "Installing" ||
                                        *phase == "RequiresApproval");
    bool replacing = false;
    if (auto cv = sync.x->csvs.find(current); cv != sync.x->csvs.end())
      replacing = !cv->second.replaces.empty() && cv->second.replaces != current &&
                  sync.x->csvs.contains(cv->second.replaces) && cv->second.phase != "Failed";
    if (next == "AtLatestKnown" && (plan_running || replacing)) {
      next = S(s.status, "state");
      // Upstream moves the state once the CSV exists and stops there: it
      // never resolves beside a CSV whose subscription is not at it yet
      // (recon did, with split writes: ConstraintsNotSatisfiable, "exists
      // and is not referenced by a subscription", beside the real OLM).
      if (next != "AtLatestKnown" && split_writes_) moved = true;
      if (next != "AtLatestKnown")
        c.emit.Note(s.Subject(sync.ns), "wait",
                    plan_running ? StrCat(current, " exists: installed once InstallPlan ", plan, " is done (phase ",
                                          phase->empty() ? "none yet" : *phase, ")")
                                 : StrCat(current, " exists: installed once the CSV it replaces, ",
                                          sync.x->csvs.find(current)->second.replaces, ", is gone"));
    }
    if (next == S(s.status, "state")) {
      if (!adopted) continue;
      // Upstream holds an adoption the CSV state does not move: written with
      // that move later (its adoption step itself never writes), the sync
      // stopped all the same.
      s.status = *s.before;
      moved = true;
      continue;
    }
    if (next == "AtLatestKnown") {
      // The plan's conditions as the subscription reconciler has them by
      // then (with split writes: as written, the syncer's own step).
      if (!split_writes_) ReflectInstallPlan(c, sync, s);
      ReflectInstalledCsv(c.emit, sync, s, /*moving=*/true);
    } else {
      s.status["state"] = next;
    }
    moved = true;
  }
  return moved;
}

void OlmReducer::ReflectNamespace(Ctx& c, const NamespaceSync& sync, SyncedSub& s) {
  // Upstream's subscription syncer: the plan's conditions, the catalogs'
  // health, deprecations (and an installedCSV catching up).
  if (!split_writes_ || SyncerSeesPlan(c.ev, sync, s)) ReflectInstallPlan(c, sync, s);
  ReflectInstalledCsv(c.emit, sync, s);
  ReflectCatalogHealth(sync, s, s.status);
  ReflectDeprecations(sync, s, s.status);
}

void OlmReducer::ReflectInstallPlan(Ctx& c, const NamespaceSync& sync, SyncedSub& s) {
  const World& w = c.world;
  const std::string& ns = sync.ns;
  const int64_t now = sync.now;
  Json& st = s.status;
  std::string ip_name = S(engine::Path(st, {"installPlanRef"}), "name");
  if (ip_name.empty()) return;
  std::optional<PlanState> ip = EffectiveInstallPlan(w, sync.x, ns, ip_name, /*informer=*/split_writes_);
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
  if (ip && ip->facts.phase.empty() && AdoptBarePlan(c, sync, s, ip_name))
    ip = EffectiveInstallPlan(w, sync.x, ns, ip_name, /*informer=*/split_writes_);
  const engine::Object* so = w.Get(kGroup, "Subscription", ns, s.name);
  if (!ip && !st_.gone_plans.contains(StrCat("InstallPlan/", ns, "/", ip_name)) && so != nullptr &&
      now - so->time_ns() < kUnseenPlanWaitNs) {
    // Woken when the wait is over, in case nothing else comes.
    RequeueAt(so->time_ns() + kUnseenPlanWaitNs);
    c.emit.Note(s.Subject(ns), "wait",
                StrCat("InstallPlan ", ip_name, " referenced but not seen yet: waiting for it"));
    return;
  }
  if (!ip) {
    RemoveCondition(st, "InstallPlanPending");
    RemoveCondition(st, "InstallPlanFailed");
    if (S(st, "state") == "UpgradePending") {
      // Addendum: the reference is dropped and the subscription resolved again.
      st.erase("installPlanRef");
      c.emit.Note(s.Subject(ns), "note", StrCat("InstallPlan ", ip_name, " is gone: resolving again"));
    } else {
      SetCondition(st, "InstallPlanMissing", "True", "ReferencedInstallPlanNotFound", "", now);
    }
    return;
  }
  RemoveCondition(st, "InstallPlanMissing");
  const std::string& phase = ip->facts.phase;
  const std::string& msg = ip->facts.installed_message;
  const std::string& failed_reason = ip->facts.failed_reason;
  if (phase == "Complete") {
    RemoveCondition(st, "InstallPlanPending");
    RemoveCondition(st, "InstallPlanFailed");
  } else if (phase == "Failed") {
    RemoveCondition(st, "InstallPlanPending");
    SetCondition(st, "InstallPlanFailed", "True", failed_reason.empty() ? "InstallPlanFailed" : failed_reason,
                 msg, now);
  } else {
    RemoveCondition(st, "InstallPlanFailed");
    SetCondition(st, "InstallPlanPending", "True", phase.empty() ? "InstallPlanNotYetReconciled" : phase, msg,
                 now);
    const Json* was = FindCondition(*s.before, "InstallPlanPending");
    if (phase == "RequiresApproval" && (was == nullptr || S(*was, "reason") != "RequiresApproval")) {
      c.emit.Note(s.Subject(ns), "wait",
                  StrCat("waits for approval of InstallPlan ", ns, "/", ip_name, " (",
                         StrCat(ip->approval, " approval; set spec.approved to true)")));
    }
  }
}

void OlmReducer::ReflectInstalledCsv(Emit& emit, const NamespaceSync& sync, SyncedSub& s, bool moving) const {
  Json& st = s.status;
  std::string current = S(st, "currentCSV");
  if (current.empty()) return;
  // The state moves in ReflectStates only (missing: UpgradePending or
  // UpgradeFailed; installed: AtLatestKnown once its plan is done); here an
  // installedCSV catches up with an AtLatestKnown state.
  if (!sync.CsvExists(current) || (S(st, "state") != "AtLatestKnown" && !moving)) return;
  if (S(st, "installedCSV") != current || S(st, "state") != "AtLatestKnown") {
    emit.Note(s.Subject(sync.ns), "state", StrCat(current, " is installed"));
  }
  st["state"] = "AtLatestKnown";
  st["installedCSV"] = current;
}

bool OlmReducer::AdoptBarePlan(Ctx& c, const NamespaceSync& sync, const SyncedSub& s, const std::string& name) {
  const NsIndex* x = sync.x;
  const std::string& ns = sync.ns;
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
  for (const std::string& csv : pv->second.csvs) steps.push_back(CsvStep(csv, s.source, s.source_ns));
  Json status = Json{{"phase", waits ? "RequiresApproval" : "Installing"},
                     {"catalogSources", Json::array({s.source})},
                     {"plan", std::move(steps)}};
  // Carried out by recon: the bundles' steps and lookups, as the creating
  // run would have written them (a plan of bare CSV steps could only fail).
  if (execute_plans_) {
    std::vector<ResolvedOperator> ops = BarePlanOperators(sync, s, pv->second.csvs);
    std::vector<const ResolvedOperator*> ptrs;
    for (const ResolvedOperator& op : ops) ptrs.push_back(&op);
    WithBundleSteps(c, sync, ptrs, &status);
  }
  std::string phase = S(status, "phase");
  WriteStatus(c,
              Target{"InstallPlan", ns, name, engine::GetString(o->json(), {"apiVersion"}, kApiVersion),
                     engine::GetString(o->json(), {"metadata", "resourceVersion"})},
              std::move(status));
  c.emit.Note(
      StrCat("InstallPlan ", ns, "/", name), "state",
      StrCat("created by an earlier run, never given a status: adopted, status written (phase ", phase, ")"));
  return true;
}

}  // namespace recon::olm
