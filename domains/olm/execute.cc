// executePlans (issue 49): the catalog operator carrying out InstallPlans
// (reference olm-operator.md §A) pass by pass (install/plan_pass.h), and
// the steps a new plan gets from its bundles' content (§A.3, §A.4).
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "base/strings.h"
#include "domains/olm/catalog/bundle_objects.h"
#include "domains/olm/catalog/loader.h"
#include "domains/olm/install/bundle_lookup.h"
#include "domains/olm/install/bundle_steps.h"
#include "domains/olm/install/plan_pass.h"
#include "domains/olm/plan_view.h"
#include "domains/olm/reducer.h"
#include "domains/olm/sync_state.h"
#include "engine/file_source.h"

namespace recon::olm {
namespace {

// The kinds a plan step creates that the domain watches with executePlans:
// 1 namespaced, 2 cluster-scoped, 0 not a step kind.
int StepKind(std::string_view group, std::string_view kind) {
  if (group == "apiextensions.k8s.io" && kind == "CustomResourceDefinition") return 2;
  if (group == "rbac.authorization.k8s.io") return kind == "Role" || kind == "RoleBinding" ? 1 : 2;
  if (group.empty() && (kind == "ServiceAccount" || kind == "Service" || kind == "ConfigMap")) return 1;
  return 0;
}

// A resolved operator's entry: among its package's ordered entries (a
// resolution only picks those).
const Entry* FindEntry(const CatalogIndex& idx, std::string_view package, std::string_view csv) {
  const std::vector<int>* of = idx.OfPackage(package);
  if (of == nullptr) return nullptr;
  for (int i : *of)
    if (idx.entries()[static_cast<size_t>(i)].name == csv) return &idx.entries()[static_cast<size_t>(i)];
  return nullptr;
}

// The entry's properties as {type, value} (payloads aside).
Json PropertiesOf(const Entry& e) {
  Json out = Json::array();
  if (!e.properties) return out;
  for (const PropertyText& p : *e.properties) {
    auto v = engine::ParseJson(p.value);
    out.push_back(Json{{"type", p.type}, {"value", v.ok() ? *v : Json(p.value)}});
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<Json>> OlmReducer::InlineObjects(const World& world, std::string_view catalog_ns,
                                                            std::string_view catalog, std::string_view bundle) {
  const std::string content = StrCat(kCatalogPrefix, catalog_ns, "/", catalog);
  auto ce = world.contents().find(content);
  if (ce == world.contents().end() || ce->second.files == nullptr)
    return absl::NotFoundError(StrCat("no catalog content observed (no Content event named ", content, ")"));
  const std::string& digest = ce->second.digest;
  auto it = payloads_.find(digest);
  if (it == payloads_.end()) {
    // Only the digests some catalog still holds stay.
    std::erase_if(payloads_, [&](const auto& p) {
      return std::none_of(catalogs_.begin(), catalogs_.end(), [&](const auto& c) { return c.second.digest == p.first; });
    });
    const records::ContentFiles& files = *ce->second.files;
    engine::MemoryFileSource source(std::map<std::string, std::string>(files.begin(), files.end()));
    LoadOptions lo;
    lo.keep_payloads = true;
    auto cfg = LoadCatalog(source, lo);
    if (!cfg.ok()) return cfg.status();
    it = payloads_.emplace(digest, std::make_shared<const DeclarativeConfig>(*std::move(cfg))).first;
  }
  for (const Bundle& b : it->second->bundles) {
    if (b.name != bundle) continue;
    std::vector<Json> out;
    for (auto& o : DecodeBundleObjects(*it->second, b)) {
      if (!o.ok()) return o.status();
      out.push_back(*std::move(o));
    }
    return out;
  }
  return absl::NotFoundError(StrCat("bundle ", bundle, " is not in catalog ", catalog_ns, "/", catalog));
}

bool OlmReducer::BundlePlan(Ctx& c, const NamespaceSync& sync, const std::vector<const ResolvedOperator*>& ops,
                            std::vector<Json>* steps, Json* lookups) {
  for (const ResolvedOperator* op : ops) {
    const std::string subject = StrCat("InstallPlan step ", op->csv);
    auto cat = std::find_if(sync.cats.begin(), sync.cats.end(), [&](const CatalogInScope& cs) {
      return cs.name == op->catalog && cs.ns == op->catalog_ns && cs.index != nullptr;
    });
    const Entry* e = cat == sync.cats.end() ? nullptr : FindEntry(*cat->index, op->package, op->csv);
    if (e == nullptr) {
      c.emit.Note(subject, "note", "its catalog entry is gone: the plan carries the CSV step alone");
      return false;
    }
    Json props = PropertiesOf(*e);
    if (!e->image.empty()) {
      lookups->push_back(NewBundleLookup(e->image, op->csv, op->replaces, op->catalog, op->catalog_ns, props));
      continue;
    }
    auto objects = InlineObjects(c.world, op->catalog_ns, op->catalog, op->csv);
    BundleContent b;
    if (objects.ok()) {
      for (const Json& o : *objects)
        if (engine::GetString(o, {"kind"}) == "ClusterServiceVersion" && b.csv.is_null()) b.csv = o;
      b.objects = *std::move(objects);
    }
    b.properties = std::move(props);
    b.replaces = op->replaces;
    b.catalog = op->catalog;
    b.catalog_ns = op->catalog_ns;
    auto bundle_steps = b.csv.is_null() ? absl::StatusOr<std::vector<Json>>(absl::InvalidArgumentError(
                                              objects.ok() ? "the bundle has no ClusterServiceVersion"
                                                           : std::string(objects.status().message())))
                                        : BundleSteps(b, sync.ns);
    if (!bundle_steps.ok()) {
      c.emit.Note(subject, "note",
                  StrCat("its inline content cannot be read (", bundle_steps.status().message(),
                         "): the plan carries the CSV step alone"));
      return false;
    }
    for (Json& s : *bundle_steps) steps->push_back(std::move(s));
  }
  return true;
}

void OlmReducer::WithBundleSteps(Ctx& c, const NamespaceSync& sync, const std::vector<const ResolvedOperator*>& ops,
                                 Json* status) {
  std::vector<Json> steps;
  Json lookups = Json::array();
  if (!BundlePlan(c, sync, ops, &steps, &lookups)) return;
  std::set<std::string> sources;
  for (const Json& s : steps) sources.insert(engine::GetString(s, {"resource", "sourceName"}));
  for (const Json& s : ArrayOrEmpty(engine::Path(*status, {"plan"}))) {
    if (engine::GetString(s, {"resource", "kind"}) != "Subscription") continue;
    steps.push_back(s);
    sources.insert(engine::GetString(s, {"resource", "sourceName"}));
  }
  Json plan = Json::array();
  for (Json& s : OrderSteps(std::move(steps))) plan.push_back(std::move(s));
  (*status)["plan"] = std::move(plan);
  // Counted from the steps only (a plan of lookups alone has none).
  (*status)["catalogSources"] = Json(std::vector<std::string>(sources.begin(), sources.end()));
  if (!lookups.empty()) (*status)["bundleLookups"] = std::move(lookups);
}

void OlmReducer::PlanEvent(const Event& ev, const World& world, std::set<std::string>& out) {
  // A deleted plan's pass is over: a plan made later under the same name
  // (its subscription created again) starts its own.
  if (ev.type == records::EventType::kDeleted && ev.group == kGroup && ev.kind == "InstallPlan")
    ForgetPlanPass(StrCat(ev.ns, "/", ev.name));
  if (ev.type == records::EventType::kActionResult) {
    CountStepWarnings(ev, world);
    ForgetRefusedUpdate(world);
    // A step create answered AlreadyExists (another plan created it
    // first): upstream updates the object then; so does the next pass,
    // once the object is seen (PlanWorldView::CreateOf).
    if (auto k = create_by_action_.find(ev.action);
        k != create_by_action_.end() && !ev.ok && ev.status && *ev.status == 409)
      st_.step_creates.at(k->second).body["exists"] = true;
  }
  PlanNamespaces(ev, world, out);
}

void OlmReducer::CountStepWarnings(const Event& ev, const World& world) {
  // §A.10: a step whose write the server answered with warnings (an
  // unknown field dropped, a deprecated API) counts once. Upstream also
  // writes a Kubernetes Event on the plan (AppliedWithWarnings); recon
  // writes no Events.
  if (ev.warnings.empty()) return;
  bool step = create_by_action_.contains(ev.action);
  if (const engine::TrackedWrite* a = world.writes().answered();
      !step && a != nullptr && a->domain == kDomain && a->verb == "update") {
    const std::string suffix = StrCat("|", StepObjectKey(a->group, a->kind, a->ns, a->name));
    for (const std::string& u : st_.step_updates)
      if (u.ends_with(suffix)) step = true;
  }
  if (step) ++plan_warnings_;
}

void OlmReducer::PlanNamespaces(const Event& ev, const World& world, std::set<std::string>& out) const {
  auto all_with_plans = [&] {
    for (const auto& [ns, x] : index_.namespaces())
      if (!x.plans.empty()) out.insert(ns);
  };
  if (ev.type == records::EventType::kTimer) {
    if (ev.timer == kPlansTimer) all_with_plans();
    return;
  }
  if (ev.type == records::EventType::kActionResult) {
    // The answer to a plan's status write: its echo may have come first,
    // held as possibly ours until now (the pass waits for it).
    if (const engine::TrackedWrite* a = world.writes().answered();
        a != nullptr && a->domain == kDomain && a->kind == "InstallPlan") {
      out.insert(a->ns);
      return;
    }
    if (auto k = create_by_action_.find(ev.action); k != create_by_action_.end()) {
      std::string plan = engine::GetString(st_.step_creates.at(k->second).body, {"plan"});
      out.insert(plan.substr(0, plan.find('/')));
      return;
    }
    // An update of a step's object answered: the plans writing it wait
    // for that answer (a refused one is sent again).
    if (const engine::TrackedWrite* a = world.writes().answered();
        a != nullptr && a->domain == kDomain && a->verb == "update") {
      const int step = StepKind(a->group, a->kind);
      if (step == 1) out.insert(a->ns);
      if (const std::set<std::string>* users = step == 2 ? index_.StepUsers(a->kind, a->name) : nullptr)
        out.insert(users->begin(), users->end());
    }
    return;
  }
  if (!ev.IsObject() || !world.Synced()) return;
  int step = StepKind(ev.group, ev.kind);
  // An unpack Job or its ConfigMap lives in the catalog's namespace,
  // named for the bundle: it wakes the namespaces whose plans look that
  // bundle up (every namespace with plans woke before: quadratic in the
  // namespaces unpacking at once).
  const bool unpack = (ev.group == "batch" && ev.kind == "Job") || (ev.group.empty() && ev.kind == "ConfigMap");
  if (unpack)
    if (const std::set<std::string>* users = index_.UnpackUsers(ev.name)) out.insert(users->begin(), users->end());
  if (step == 2) {
    // A cluster-scoped step object: the namespaces whose running plans
    // name it (every namespace with plans woke before: quadratic again).
    if (const std::set<std::string>* users = index_.StepUsers(ev.kind, ev.name))
      out.insert(users->begin(), users->end());
  } else if (step == 1 || (ev.group == kGroup && (ev.kind == "ClusterServiceVersion" || ev.kind == "InstallPlan" ||
                                                  ev.kind == "Subscription"))) {
    out.insert(std::string(ev.ns));
  }
}

void OlmReducer::ExecutePlans(Ctx& c, const std::string& ns) {
  const NsIndex* x = index_.Find(ns);
  if (x == nullptr) return;
  std::vector<std::string> names;
  for (const auto& [name, pv] : x->plans) {
    // A finished plan's pass is over (ExecutePlan's first check, from the
    // index: its tree is not parsed, nor kept parsed in the World).
    if (pv.valid && (pv.seen.phase == "Complete" || pv.seen.phase == "Failed")) {
      ForgetPlanPass(StrCat(ns, "/", name));
      continue;
    }
    names.push_back(name);
  }
  for (const std::string& name : names) ExecutePlan(c, ns, name);
}

void OlmReducer::ExecutePlan(Ctx& c, const std::string& ns, const std::string& name) {
  const engine::Object* o = c.world.Get(kGroup, "InstallPlan", ns, name);
  if (o == nullptr || !o->json().is_object()) return;
  const Json& ip = o->json();
  const std::string plan_key = StrCat(ns, "/", name);
  const Json& status = engine::Path(ip, {"status"});
  const std::string phase = engine::GetString(status, {"phase"});
  if (phase == "Complete" || phase == "Failed") return ForgetPlanPass(plan_key);
  const Json& approved = engine::Path(ip, {"spec", "approved"});
  const bool is_approved = approved.is_boolean() && approved.get<bool>();
  // Bundles unpack while a plan waits for approval too.
  if (phase != "Installing" && phase != "RequiresApproval") return;
  // Our own status write to it not seen yet: the next pass runs on its
  // echo, as upstream's runs on its informer's copy.
  if (c.world.writes().Pending(kDomain, kGroup, "InstallPlan", ns, name) != nullptr) return;
  const std::string subject = StrCat("InstallPlan ", plan_key);
  auto requeue = [&] {
    const int64_t at = c.ev.time_ns + kInstallPlanRequeueNs;
    plan_timer_at_ = plan_timer_at_ == 0 ? at : std::min(plan_timer_at_, at);
  };
  std::vector<UnpackedManifests> unpacked;
  if (!ArrayOrEmpty(engine::Path(status, {"bundleLookups"})).empty()) {
    Unpacked u = UnpackLookups(c, ip, plan_key);
    if (!u.fatal.empty()) return FailPlan(c, ip, status, u.fatal);
    if (!u.error.empty()) {
      c.emit.Note(subject, "wait", StrCat("bundle unpacking failed: ", u.error));
      return requeue();
    }
    std::optional<Json> next;  // built only when something moved
    if (u.plan || !SameValue(u.lookups, engine::Path(status, {"bundleLookups"}))) next = u.StatusOver(status);
    if (next && !SameValue(*next, status)) {
      WriteStatus(c,
                  Target{"InstallPlan", ns, name, engine::GetString(ip, {"apiVersion"}, kApiVersion),
                         engine::GetString(ip, {"metadata", "resourceVersion"})},
                  *std::move(next));
      c.emit.Note(subject, "state", u.all_unpacked ? "bundles unpacked: their steps added" : "bundle lookups moved on");
      return;
    }
    if (u.failed)
      return FailPlan(c, ip, status,
                      StrCat("bundle unpacking failed. Reason: ", u.failed_reason, ", and Message: ", u.failed_message));
    if (!u.all_unpacked) {
      c.emit.Note(subject, "wait", "waits for its bundles to unpack");
      return requeue();
    }
    unpacked = std::move(u.unpacked);
  }
  if (phase != "Installing" || !is_approved) return;
  PlanWorldView view(c.world, st_.step_creates, c.ev.seq, &sent_updates_, plan_key);
  PassOptions options;
  options.manifests = &manifest_cache_[plan_key];
  PassResult r = ExecutePass(ip, view, unpacked, options);
  std::string updating;  // an update this pass waits for
  bool held = false;     // one refused, to be sent again
  for (PlanWrite& w : r.writes) {
    const std::string kind = engine::GetString(w.object, {"kind"});
    const std::string obj = engine::GetString(w.object, {"metadata", "name"});
    const std::string obj_ns = engine::GetString(w.object, {"metadata", "namespace"});
    std::string api = engine::GetString(w.object, {"apiVersion"});
    std::string group = api.find('/') == std::string::npos ? "" : api.substr(0, api.find('/'));
    std::string key = StepObjectKey(group, kind, obj_ns, obj);
    if (w.verb == "create") {
      std::string id = c.emit.Create(w.object);
      PutStepCreate(key, plan_key, c.ev.seq, id);
    } else if (st_.step_updates.contains(StrCat(plan_key, "|", key))) {
      continue;  // sent by this pass at an earlier event
    } else if (c.ev.type != records::EventType::kTimer &&
               c.world.writes().Refused(kDomain, group, kind, obj_ns, obj) != nullptr) {
      // Refused (ForgetRefusedUpdate): sent again over the newer object
      // once it is seen, or at the plan's timer (a 409 no change follows).
      updating = StrCat(kind, " ", obj);
      held = true;
      continue;
    } else {
      st_.step_updates.insert(StrCat(plan_key, "|", key));
      c.emit.Update(w.object);
      sent_updates_[key] = w.object;
      updating = StrCat(kind, " ", obj);
    }
    c.emit.Note(subject, "step", StrCat(w.verb, " ", kind, " ", obj, " (step ", w.step, ")"));
  }
  if (r.error.ok() && r.in_flight) {
    c.emit.Note(subject, "wait", StrCat("waits for ", r.waiting_for, " to be created"));
    return;
  }
  if (updating.empty()) updating = UpdateInFlight(c.world, plan_key);
  if (r.error.ok() && !updating.empty()) {
    // Upstream's updates return before its plan moves on; ours are
    // answered later, so the pass waits for them.
    c.emit.Note(subject, "wait", StrCat("waits for ", updating, " to be updated"));
    if (held) requeue();
    return;
  }
  Json next = InstallingOutcome(status, r, c.ev.time_ns, kInstallPlanRetryTimeoutNs);
  const std::string next_phase = engine::GetString(next, {"phase"});
  if (!SameValue(next, status)) {
    WriteStatus(c,
                Target{"InstallPlan", ns, name, engine::GetString(ip, {"apiVersion"}, kApiVersion),
                       engine::GetString(ip, {"metadata", "resourceVersion"})},
                next);
    ForgetReportedCreates(c.world, plan_key);
    DropStepUpdates(plan_key);
    c.emit.Note(subject, "state",
                r.error.ok() ? StrCat("executed: phase ", next_phase)
                             : StrCat("step failed: ", r.error.message(), " (phase ", next_phase, ")"));
  }
  if (next_phase == "Installing") requeue();
}

std::string OlmReducer::UpdateInFlight(const World& world, const std::string& plan_key) const {
  const std::string prefix = StrCat(plan_key, "|");
  for (auto it = st_.step_updates.lower_bound(prefix);
       it != st_.step_updates.end() && it->starts_with(prefix); ++it) {
    std::vector<std::string> k = absl::StrSplit(it->substr(prefix.size()), '/');  // StepObjectKey
    if (k.size() != 4) continue;
    // A refused one is not waited for: the pass sends it again if the
    // object still needs it.
    if (!world.writes().InFlight(kDomain, k[0], k[1], k[2], k[3]).empty()) return StrCat(k[1], " ", k[3]);
  }
  return "";
}

void OlmReducer::ForgetReportedCreates(const World& world, const std::string& plan_key) {
  auto of = creates_by_plan_.find(plan_key);
  if (of == creates_by_plan_.end()) return;
  PlanWorldView view(world, st_.step_creates, 0);
  std::vector<std::string> reported;
  for (const std::string& key : of->second) {
    std::vector<std::string> k = absl::StrSplit(key, '/');  // StepObjectKey: group/kind/ns/name
    if (k.size() == 4 && world.Get(k[0], k[1], k[2], k[3]) != nullptr &&
        view.CreateOf(k[0], k[1], k[2], k[3]).state == OwnCreate::kLanded)
      reported.push_back(key);
  }
  for (const std::string& key : reported) DropStepCreate(key);
}

void OlmReducer::PutStepCreate(const std::string& key, const std::string& plan_key, uint64_t seq,
                               const std::string& action) {
  DropStepCreate(key);
  st_.step_creates[key] = PendingWrite{Json{{"plan", plan_key}}, seq, action};
  creates_by_plan_[plan_key].insert(key);
  create_by_action_[action] = key;
}

void OlmReducer::DropStepCreate(const std::string& key) {
  auto it = st_.step_creates.find(key);
  if (it == st_.step_creates.end()) return;
  const std::string plan = engine::GetString(it->second.body, {"plan"});
  if (auto of = creates_by_plan_.find(plan); of != creates_by_plan_.end()) {
    of->second.erase(key);
    if (of->second.empty()) creates_by_plan_.erase(of);
  }
  if (auto a = create_by_action_.find(it->second.action); a != create_by_action_.end() && a->second == key)
    create_by_action_.erase(a);
  st_.step_creates.erase(it);
}

void OlmReducer::ForgetPlanPass(const std::string& plan_key) {
  if (auto of = creates_by_plan_.find(plan_key); of != creates_by_plan_.end())
    for (const std::string& key : std::set<std::string>(of->second)) DropStepCreate(key);
  DropStepUpdates(plan_key);
  const std::string prefix = StrCat(plan_key, "#");
  for (auto it = steps_memo_.lower_bound(prefix); it != steps_memo_.end() && it->first.starts_with(prefix);)
    it = steps_memo_.erase(it);
  manifest_cache_.erase(plan_key);
}

void OlmReducer::ForgetRefusedUpdate(const World& world) {
  const engine::TrackedWrite* s = world.writes().settled();
  if (s == nullptr || s->domain != kDomain || s->verb != "update") return;
  const std::string suffix = StrCat("|", StepObjectKey(s->group, s->kind, s->ns, s->name));
  for (auto it = st_.step_updates.begin(); it != st_.step_updates.end();)
    it = it->ends_with(suffix) ? st_.step_updates.erase(it) : std::next(it);
}

void OlmReducer::DropStepUpdates(const std::string& plan_key) {
  const std::string prefix = StrCat(plan_key, "|");
  auto from = st_.step_updates.lower_bound(prefix);
  auto to = from;
  while (to != st_.step_updates.end() && to->starts_with(prefix)) ++to;
  st_.step_updates.erase(from, to);
}

void OlmReducer::IndexStepCreates() {
  creates_by_plan_.clear();
  create_by_action_.clear();
  for (const auto& [key, w] : st_.step_creates) {
    creates_by_plan_[engine::GetString(w.body, {"plan"})].insert(key);
    create_by_action_[w.action] = key;
  }
}

void OlmReducer::FailPlan(Ctx& c, const Json& ip, Json status, const std::string& message) {
  status["phase"] = "Failed";
  SetPlanCondition(status, "Installed", "False", "InstallCheckFailed", message, c.ev.time_ns);
  const std::string ns = engine::GetString(ip, {"metadata", "namespace"});
  const std::string name = engine::GetString(ip, {"metadata", "name"});
  WriteStatus(c,
              Target{"InstallPlan", ns, name, engine::GetString(ip, {"apiVersion"}, kApiVersion),
                     engine::GetString(ip, {"metadata", "resourceVersion"})},
              std::move(status));
  c.emit.Note(StrCat("InstallPlan ", ns, "/", name), "state", StrCat("Failed: ", message));
}

}  // namespace recon::olm
