// §9: a namespace's resolution, and §9.7: the InstallPlan of the steps it
// adds, which the subscriptions then reference.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/strings.h"
#include "domains/olm/conditions.h"
#include "domains/olm/reducer.h"
#include "domains/olm/sync_state.h"

namespace recon::olm {

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

Json CsvStep(std::string_view csv, std::string_view source, std::string_view source_ns) {
  return Json{{"resolving", csv},
              {"resource", Json{{"group", kGroup},
                                {"version", "v1alpha1"},
                                {"kind", "ClusterServiceVersion"},
                                {"name", csv},
                                {"sourceName", source},
                                {"sourceNamespace", source_ns}}},
              {"status", "Unknown"}};
}

namespace {

// What a resolution adds: the operators to install (in the resolution's
// order), the subscriptions that move to one of them, and the
// subscriptions the plan creates for dependencies that have none.
struct NewSteps {
  std::vector<const ResolvedOperator*> plan;
  std::vector<std::pair<SyncedSub*, const ResolvedOperator*>> changed;
  std::vector<Json> new_subs;
};

// A dependency with no subscription: the plan creates one (§9.7).
Json DependencySubscription(const std::string& ns, const ResolvedOperator& op) {
  return Json{
      {"apiVersion", kApiVersion},
      {"kind", "Subscription"},
      {"metadata", Json{{"name", StrCat(op.package, "-", op.channel, "-", op.catalog, "-", op.catalog_ns)},
                        {"namespace", ns}}},
      {"spec", Json{{"channel", op.channel},
                    {"installPlanApproval", "Automatic"},
                    {"name", op.package},
                    {"source", op.catalog},
                    {"sourceNamespace", op.catalog_ns},
                    {"startingCSV", op.csv}}}};
}

NewSteps StepsToPlan(NamespaceSync& sync, const ResolveResult& result) {
  NewSteps out;
  for (const ResolvedOperator& op : result.operators) {
    std::vector<SyncedSub*> matching;
    for (SyncedSub& s : sync.subs) {
      if (s.package == op.package && (s.channel.empty() || s.channel == op.channel) &&
          s.source == op.catalog && s.source_ns == op.catalog_ns)
        matching.push_back(&s);
    }
    bool done = !matching.empty() && std::all_of(matching.begin(), matching.end(), [&](SyncedSub* s) {
      return S(s->status, "currentCSV") == op.csv && sync.CsvExists(op.csv);
    });
    if (done) continue;
    // Deviation: an operator whose subscriptions already point at it is
    // left to their own InstallPlan (upstream repeats it in this plan,
    // where a late execution can undo a newer install). One whose
    // InstallPlan reference was dropped (the plan is gone, or its create
    // failed) has none left to wait for: it is planned again.
    auto needs_plan = [&op](const SyncedSub* s) {
      return S(s->status, "currentCSV") != op.csv ||
             S(engine::Path(s->status, {"installPlanRef"}), "name").empty();
    };
    bool differs = matching.empty() || std::any_of(matching.begin(), matching.end(), needs_plan);
    if (!differs) continue;
    out.plan.push_back(&op);
    if (matching.empty()) out.new_subs.push_back(DependencySubscription(sync.ns, op));
    for (SyncedSub* s : matching) {
      if (needs_plan(s)) out.changed.push_back({s, &op});
    }
  }
  return out;
}

// The InstallPlan object of the steps, bare (the status goes in *status:
// a real server drops .status on a create).
Json InstallPlanObject(const NamespaceSync& sync, const NewSteps& steps, const std::string& name, int64_t gen,
                       bool manual, const std::vector<std::string>& csvs, Json* status) {
  Json plan = Json::array();
  std::set<std::string> sources;
  for (const auto* op : steps.plan) {
    sources.insert(StrCat(op->catalog_ns, "/", op->catalog));
    plan.push_back(CsvStep(op->csv, op->catalog, op->catalog_ns));
  }
  for (const Json& ns_sub : steps.new_subs) {
    std::string csv = engine::GetString(ns_sub, {"spec", "startingCSV"});
    plan.push_back(
        Json{{"resolving", csv},
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
  for (const auto& [s, op] : steps.changed) {
    Json ref = Json{{"apiVersion", kApiVersion}, {"kind", "Subscription"}, {"name", s->name}};
    if (!s->view->uid.empty()) ref["uid"] = s->view->uid;
    ref["blockOwnerDeletion"] = false;
    ref["controller"] = false;
    owners.push_back(std::move(ref));
  }
  Json catalog_sources = Json::array();
  for (const auto& cs : sources) catalog_sources.push_back(cs.substr(cs.find('/') + 1));
  *status = Json{{"phase", manual ? "RequiresApproval" : "Installing"},
                 {"catalogSources", catalog_sources},
                 {"plan", plan}};
  return Json{{"apiVersion", kApiVersion},
              {"kind", "InstallPlan"},
              {"metadata", Json{{"name", name}, {"namespace", sync.ns}, {"ownerReferences", owners}}},
              {"spec", Json{{"clusterServiceVersionNames", csvs},
                            {"approval", manual ? "Manual" : "Automatic"},
                            {"approved", !manual},
                            {"generation", gen}}}};
}

}  // namespace

void OlmReducer::FailResolution(Emit& emit, NamespaceSync& sync, std::string_view reason,
                                const std::string& msg) const {
  for (SyncedSub& s : sync.subs) {
    const Json* old = FindCondition(s.status, "ResolutionFailed");
    if (old == nullptr || S(*old, "message") != msg)
      emit.Note(s.Subject(sync.ns), "wait", StrCat("resolution failed: ", msg));
    SetCondition(s.status, "ResolutionFailed", "True", reason, msg, sync.now);
  }
}

void OlmReducer::ResolveNamespace(Ctx& c, NamespaceSync& sync) {
  const NsIndex* x = sync.x;
  bool all_waiting = std::all_of(sync.subs.begin(), sync.subs.end(), [](const SyncedSub& s) {
    return !S(engine::Path(s.status, {"installPlanRef"}), "name").empty() &&
           S(s.status, "state") == "UpgradePending";
  });
  const CatalogInScope* broken = nullptr;
  for (const auto& cs : sync.cats)
    if (!cs.index && !broken) broken = &cs;
  if (x->groups.size() != 1) {
    FailResolution(c.emit, sync, "ErrorPreventedResolution",
                   StrCat("expected 1 OperatorGroup in the namespace, found ", x->groups.size()));
    return;
  }
  if (all_waiting) return;  // All subscriptions wait on their InstallPlans: nothing to resolve.
  // A replacement in progress (a CSV whose spec.replaces names one still
  // there, the new one not Failed): resolving now would count the old CSV,
  // no longer any subscription's, as a second provider of its APIs
  // (ResolutionFailed, issue 49's S1). Resolved once it is gone, as the real
  // OLM's resolver runs came out beside it (docs/conformance.md, session 22).
  for (const auto& [name, cv] : x->csvs) {
    if (!cv.installed || cv.replaces.empty() || cv.replaces == name || cv.phase == "Failed" ||
        !x->csvs.contains(cv.replaces))
      continue;
    for (const SyncedSub& s : sync.subs)
      c.emit.Note(s.Subject(sync.ns), "wait",
                  StrCat("resolution waits for ", cv.replaces, " to be replaced by ", name));
    return;
  }
  if (broken) {
    FailResolution(c.emit, sync, "ErrorPreventedResolution",
                   StrCat("error using catalogsource ", broken->ns, "/", broken->name, ": ", broken->error));
    return;
  }
  const absl::StatusOr<ResolveResult>& res = MemoizedResolve(sync);
  if (!res.ok()) {
    FailResolution(c.emit, sync,
                   res.status().code() == absl::StatusCode::kFailedPrecondition &&
                           Sv(res.status().message()).substr(0, 13) == "constraints n"
                       ? "ConstraintsNotSatisfiable"
                       : "ErrorPreventedResolution",
                   std::string(Sv(res.status().message())));
    return;
  }
  PlanNewSteps(c, sync, *res);
  for (SyncedSub& s : sync.subs) RemoveCondition(s.status, "ResolutionFailed");
}

const absl::StatusOr<ResolveResult>& OlmReducer::MemoizedResolve(const NamespaceSync& sync) {
  ResolveInput in;
  in.ns = sync.ns;
  for (const auto& cs : sync.cats) in.catalogs.push_back({cs.name, cs.ns, cs.priority, cs.index});
  std::map<std::string, std::pair<std::string_view, std::string_view>, std::less<>> installed_by;
  for (const SyncedSub& s : sync.subs) {
    std::string installed = S(s.status, "installedCSV");
    in.subscriptions.push_back({std::string(s.name), std::string(s.package), std::string(s.channel),
                                std::string(s.source), std::string(s.source_ns), std::string(s.starting_csv),
                                installed});
    if (!installed.empty()) installed_by[installed] = {s.name, s.package};
  }
  // The resolution's inputs as text: the same text, the same result.
  std::string key;
  // A catalog by its content's digest, never its index's address: a freed
  // index's address may be reused by the next one (issue 37).
  for (const CatalogInScope& cs : sync.cats) {
    AppendKey(&key, cs.name);
    AppendKey(&key, cs.ns);
    AppendKey(&key, std::to_string(cs.priority));
    AppendKey(&key, cs.digest);
    AppendKey(&key, cs.index ? "+" : "-");
  }
  key.push_back('\x1e');
  for (const SubscriptionInput& si : in.subscriptions) {
    for (const std::string* f :
         {&si.name, &si.package, &si.channel, &si.source, &si.source_ns, &si.starting_csv, &si.installed_csv})
      AppendKey(&key, *f);
  }
  key.push_back('\x1e');
  // Installed CSVs (§9.1) with the subscription whose installedCSV names them.
  std::vector<std::pair<const InstalledCsv*, const std::pair<std::string_view, std::string_view>*>> existing;
  for (const auto& [name, cv] : sync.x->csvs) {
    if (!cv.installed) continue;
    auto by = installed_by.find(name);
    existing.push_back({&*cv.installed, by == installed_by.end() ? nullptr : &by->second});
    AppendKey(&key, name);
    AppendKey(&key, std::to_string(cv.seq));
    AppendKey(&key, by == installed_by.end() ? "-" : by->second.first);
    AppendKey(&key, by == installed_by.end() ? "-" : by->second.second);
  }
  // Fail-forward walks every CSV's replacement chain: their phases count.
  const bool fail_forward = sync.x->groups.size() == 1 && sync.x->groups.begin()->second.fail_forward;
  if (fail_forward) {
    key.push_back('\x1e');
    for (const auto& [name, cv] : sync.x->csvs) {
      AppendKey(&key, name);
      AppendKey(&key, std::to_string(cv.seq));
    }
  }
  ++resolutions_;
  ResolveMemo& memo = memo_[sync.ns];
  if (memo.key != key || !sync_cache_) {
    ++resolutions_computed_;
    memo.key = std::move(key);
    absl::StatusOr<std::vector<std::string>> left_out = std::vector<std::string>{};
    if (fail_forward) left_out = FailedChainCsvs(*sync.x, sync.ns);
    if (!left_out.ok()) {
      // v0.24.0's wording of a snapshot that failed (cache.go), @existing's key as Name/Namespace.
      memo.result = absl::FailedPreconditionError(StrCat("failed to populate resolver cache from source @existing/",
                                                         sync.ns, ": ", left_out.status().message()));
      return memo.result;
    }
    for (const auto& [ic, by] : existing) {
      if (std::find(left_out->begin(), left_out->end(), ic->csv.entry.name) != left_out->end()) continue;
      in.existing.push_back(ic->csv);
      if (by == nullptr) continue;
      ExistingCsv& e = in.existing.back();
      e.subscription = std::string(by->first);
      if (!ic->package_from_properties) e.entry.package = std::string(by->second);
    }
    memo.result = Resolve(in);
  }
  return memo.result;
}

int64_t OlmReducer::NextPlanGeneration(const NamespaceSync& sync) const {
  int64_t gen = 0;
  for (const SyncedSub& s : sync.subs)
    gen = std::max(gen, Int(engine::Path(s.status, {"installPlanGeneration"})));
  for (const auto& [name, p] : sync.x->plans) gen = std::max(gen, p.generation);
  const std::string prefix = StrCat("InstallPlan/", sync.ns, "/");
  for (auto it = st_.created.lower_bound(prefix);
       it != st_.created.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    gen = std::max(gen, Int(engine::Path(it->second.body, {"spec", "generation"})));
  }
  return gen + 1;
}

std::string OlmReducer::ReusablePlanOf(const World& w, const NamespaceSync& sync,
                                       const std::vector<std::string>& csvs, bool manual,
                                       const std::vector<const SyncedSub*>& owners_needed,
                                       int64_t* gen) const {
  std::string reused = ReusablePlan(w, sync.x, sync.ns, csvs, manual ? "Manual" : "Automatic", gen);
  if (reused.empty()) return reused;
  // Only a plan of these very subscriptions (a subscription deleted and
  // created again is another owner: its old plan is garbage).
  const Json* body = nullptr;
  if (auto cr = st_.created.find(StrCat("InstallPlan/", sync.ns, "/", reused)); cr != st_.created.end())
    body = &cr->second.body;
  else if (const engine::Object* o = w.Get(kGroup, "InstallPlan", sync.ns, reused))
    body = &o->json();
  std::set<std::string> owners;
  if (body != nullptr) {
    const Json& refs = engine::Path(*body, {"metadata", "ownerReferences"});
    for (const Json& r : refs.is_array() ? refs : Json::array()) owners.insert(engine::GetString(r, {"uid"}));
  }
  for (const SyncedSub* s : owners_needed)
    if (!s->view->uid.empty() && !owners.contains(s->view->uid)) return "";
  return reused;
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

void OlmReducer::PlanNewSteps(Ctx& c, NamespaceSync& sync, const ResolveResult& result) {
  const std::string& ns = sync.ns;
  NewSteps steps = StepsToPlan(sync, result);
  if (steps.changed.empty()) return NoteNoUpgrade(c.emit, sync);
  int64_t gen = NextPlanGeneration(sync);
  bool manual = std::any_of(sync.subs.begin(), sync.subs.end(),
                            [](const SyncedSub& s) { return s.approval == "Manual"; });
  std::vector<std::string> csvs;
  for (const auto* op : steps.plan) csvs.push_back(op->csv);
  // The step may be planned already: a plan not finished that installs
  // exactly these CSVs, observed or with its create in flight, is
  // reused, never created again (upstream reuses the plan of the
  // generation). Without this a refused or lost status write, which
  // leaves the subscriptions without their installPlanRef, made every
  // re-sync create another plan for the same step.
  std::vector<const SyncedSub*> owners;
  for (const auto& [s, op] : steps.changed) owners.push_back(s);
  int64_t reused_gen = gen;
  std::string reused = ReusablePlanOf(c.world, sync, csvs, manual, owners, &reused_gen);
  if (!reused.empty()) gen = reused_gen;
  std::string name = reused.empty() ? PlanName(ns, gen, csvs) : reused;
  Json status;
  Json ip = InstallPlanObject(sync, steps, name, gen, manual, csvs, &status);
  if (execute_plans_ && reused.empty()) WithBundleSteps(c, sync, steps.plan, &status);
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
    c.emit.Note(StrCat("InstallPlan ", ns, "/", name), "note",
                "already plans this step (observed or its create in flight): reused, not created again");
  }
  for (auto& [s, op] : steps.changed) {
    std::string from = S(s->status, "installedCSV");
    s->status["currentCSV"] = op->csv;
    s->status["installPlanGeneration"] = gen;
    s->status["installPlanRef"] =
        Json{{"apiVersion", kApiVersion}, {"kind", "InstallPlan"}, {"name", name}, {"namespace", ns}};
    s->status["state"] = "UpgradePending";
    // With split writes the plan's conditions are the subscription
    // syncer's, written at the echo of this one (upstream's setIPReference
    // sets none).
    if (!split_writes_) {
      RemoveCondition(s->status, "InstallPlanMissing");
      RemoveCondition(s->status, "InstallPlanFailed");
      SetCondition(s->status, "InstallPlanPending", "True", manual ? "RequiresApproval" : "Installing", "",
                   sync.now);
    }
    auto& path = st_.paths[StrCat(ns, "/", s->name)];
    if (path.empty() && !from.empty()) path.push_back(from);
    path.push_back(op->csv);
    std::string path_text;
    for (const auto& p : path) StrAppend(&path_text, path_text.empty() ? "" : " -> ", p);
    c.emit.Note(
        s->Subject(ns), "state",
        StrCat(from.empty() ? "install " : StrCat("upgrade ", from, " -> "), op->csv, " from catalog ",
               op->catalog_ns, "/", op->catalog, " channel ", op->channel, " (", op->why, "); InstallPlan ",
               name, manual ? " needs approval" : " approved automatically", "; path so far: ", path_text));
    if (manual) {
      c.emit.Note(s->Subject(ns), "wait",
                  StrCat("waits for approval of InstallPlan ", ns, "/", name,
                         " (Manual approval; set spec.approved to true)"));
    }
  }
  for (const auto* op : steps.plan) {
    if (op->subscription.empty()) {
      c.emit.Note(StrCat("InstallPlan ", ns, "/", name), "note",
                  StrCat("also installs ", op->csv, " (", op->why, ")"));
    }
  }
}

void OlmReducer::NoteNoUpgrade(Emit& emit, const NamespaceSync& sync) const {
  for (const SyncedSub& s : sync.subs) {
    std::string cur = S(s.status, "currentCSV");
    if (cur.empty() || S(s.status, "state") != "AtLatestKnown" || S(*s.before, "state") == "AtLatestKnown")
      continue;
    emit.Note(s.Subject(sync.ns), "state",
              StrCat("at ", cur, ": no entry of channel ", s.channel.empty() ? "(any)" : s.channel,
                     " in catalog ", s.source_ns, "/", s.source,
                     " replaces, skips or has a skipRange covering it, so there is no upgrade"));
  }
}

}  // namespace recon::olm
