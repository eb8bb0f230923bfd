// csvLifecycle: the olm operator's CSV sync (reference olm-operator.md
// §B.2-§B.4; upstream's syncClusterServiceVersion at v0.24.0). For each
// CSV of a namespace an event touches: read what upstream's sync reads
// (its OperatorGroup, CRDs, service accounts and RBAC, its Deployments,
// the CSV it replaces and the one replacing it), take one step of the
// phase table (csv/transition.h) and carry it out: the status write (only
// when phase, reason, message or lastUpdateTime changed, as upstream), the
// strategy's Deployments, the delete of a replaced CSV.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "base/strings.h"
#include "domains/olm/csv/operator_conditions.h"
#include "domains/olm/csv/transition.h"
#include "domains/olm/reducer.h"
#include "domains/olm/requirement_view.h"
#include "engine/time_format.h"

namespace recon::olm {
namespace {

constexpr std::string_view kRbac = "rbac.authorization.k8s.io";
constexpr std::string_view kCrdGroup = "apiextensions.k8s.io";
// The install's retry after a refused Deployment write (upstream requeues
// the CSV with its rate limiter's backoff).
constexpr int64_t kInstallRetryBaseNs = 1'000'000'000;  // 1 s
constexpr int64_t kInstallRetryMaxNs = 300'000'000'000;

const Json* JsonOf(const engine::Object* o) { return o == nullptr ? nullptr : &o->json(); }

// The Subscription config and cluster proxy the Deployments are built with.
DeploymentOverrides Overrides(const World& w, std::string_view ns, std::string_view csv) {
  DeploymentOverrides o;
  for (const engine::Object* s : w.ListIn(kGroup, "Subscription", ns)) {
    if (engine::GetString(s->json(), {"status", "installedCSV"}) != csv) continue;
    o.config = engine::Path(s->json(), {"spec", "config"});
    break;
  }
  if (const engine::Object* p = w.Get("config.openshift.io", "Proxy", "", "cluster")) {
    const Json& st = engine::Path(p->json(), {"status"});
    o.proxy = ClusterProxy{engine::GetString(st, {"httpProxy"}), engine::GetString(st, {"httpsProxy"}),
                           engine::GetString(st, {"noProxy"})};
  }
  return o;
}

bool Annotated(const Json& csv, const World& w, const NsIndex& x, std::string_view ns) {
  if (x.groups.size() != 1) return false;
  const std::string& group = x.groups.begin()->first;
  const Json& a = engine::Path(csv, {"metadata", "annotations"});
  if (engine::GetString(a, {"olm.operatorGroup"}) != group ||
      engine::GetString(a, {"olm.operatorNamespace"}) != ns)
    return false;
  const engine::Object* og = w.Get(kGroup, "OperatorGroup", ns, group);
  // The targets annotation comes once the group has a status (AnnotateCsvs).
  return og == nullptr || !engine::Path(og->json(), {"status", "namespaces"}).is_array() ||
         engine::Path(a, {"olm.targetNamespaces"}).is_string();
}

// Whether a Deployment write's body is the install strategy's for `csv`
// (its controller owner reference names the CSV).
bool InstalledFor(const std::string& body, std::string_view csv) {
  auto j = engine::ParseJson(body);
  if (!j.ok()) return false;
  for (const Json& r : engine::Path(*j, {"metadata", "ownerReferences"}))
    if (engine::GetString(r, {"kind"}) == kCsv && engine::GetString(r, {"name"}) == csv) return true;
  return false;
}

// §B.3.1's last step: after the strategy's Deployments are written, a
// Deployment of the namespace that carries the CSV's three owner labels
// and its owner reference (by uid) but that the strategy no longer names
// is deleted (a CSV whose strategy changed in place). Upstream deletes in
// the foreground with a 1 s grace period; recon's delete names neither.
void DeleteStrayDeployments(const World& w, engine::Emit& emit, const Json& csv, const std::string& ns,
                            const std::string& subject) {
  const std::string name = engine::GetString(csv, {"metadata", "name"});
  const std::string uid = engine::GetString(csv, {"metadata", "uid"});
  std::set<std::string> named;
  for (const Json& entry : engine::Path(csv, {"spec", "install", "spec", "deployments"}))
    named.insert(engine::GetString(entry, {"name"}));
  for (const engine::Object* d : w.ListIn("apps", "Deployment", ns)) {
    const Json& labels = engine::Path(d->json(), {"metadata", "labels"});
    if (named.contains(std::string(d->name())) || engine::GetString(labels, {"olm.owner"}) != name ||
        engine::GetString(labels, {"olm.owner.namespace"}) != ns ||
        engine::GetString(labels, {"olm.owner.kind"}) != kCsv ||
        w.writes().Pending(kDomain, "apps", "Deployment", ns, d->name()) != nullptr)
      continue;
    bool owned = false;
    for (const Json& ref : engine::Path(d->json(), {"metadata", "ownerReferences"}))
      owned = owned || (!uid.empty() && engine::GetString(ref, {"uid"}) == uid);
    if (!owned) continue;
    emit.Delete(Json{{"apiVersion", "apps/v1"},
                     {"kind", "Deployment"},
                     {"metadata", {{"name", d->name()}, {"namespace", ns}}}});
    emit.Note(subject, "state",
              StrCat("Deployment ", d->name(), " deleted: the install strategy no longer names it"));
  }
}

// The install step: the strategy's Deployments written (created, or
// updated over the live ones). Upstream installs every Deployment before
// the CSV moves on; while a write of ours to one is not settled, ours
// waits for its echo (or the requeue after a refusal) and returns false.
// Moved on without the write, the CSV sat Installing on the previous
// CSV's Deployment ("missing deployment") until the install timeout.
// A refused write is sent again at the CSV timer (`retry_at`: after a
// backoff doubling with the refusals in a row), never in a loop.
bool InstallDeployments(const World& w, engine::Emit& emit, bool requeued, const Json& csv,
                        const std::string& ns, const DeploymentOverrides& overrides,
                        const std::string& subject, int64_t now_ns, int64_t* retry_at) {
  const Json& entries = engine::Path(csv, {"spec", "install", "spec", "deployments"});
  for (const Json& entry : entries) {
    const std::string dname = engine::GetString(entry, {"name"});
    const bool refused = !requeued && w.writes().Refused(kDomain, "apps", "Deployment", ns, dname) != nullptr;
    if (w.writes().Pending(kDomain, "apps", "Deployment", ns, dname) != nullptr || refused) {
      emit.Note(subject, "wait", StrCat("installs once our write to Deployment ", dname, " is settled"));
      if (refused) {
        const int n = std::max(1, w.writes().Refusals(kDomain, "apps", "Deployment", ns, dname));
        *retry_at = now_ns + std::min(kInstallRetryBaseNs << std::min(n - 1, 9), kInstallRetryMaxNs);
      }
      return false;
    }
  }
  for (const Json& entry : entries) {
    Json want = CsvDeployment(csv, entry, overrides);
    const std::string dname = engine::GetString(entry, {"name"});
    if (const engine::Object* live = w.Get("apps", "Deployment", ns, dname)) {
      want["metadata"]["resourceVersion"] = engine::GetString(live->json(), {"metadata", "resourceVersion"});
      emit.Update(want);
    } else {
      emit.Create(want);
    }
    emit.Note(subject, "state", StrCat("Deployment ", dname, " written from the install strategy"));
  }
  DeleteStrayDeployments(w, emit, csv, ns, subject);
  return true;
}

// A refused status write of the CSV's own waits for a timer (or the CSV's
// next event, which a refusal for nothing never brings): a timer that
// found the install waiting on a write in flight comes back, or the CSV
// stays where the refusal left it (the olm soak). 0: not refused.
int64_t RefusedCsvRetry(const World& w, const std::string& ns, const std::string& name, int64_t now_ns) {
  if (w.writes().Refused(kDomain, kGroup, kCsv, ns, name) == nullptr) return 0;
  const int n = std::max(1, w.writes().Refusals(kDomain, kGroup, kCsv, ns, name));
  return now_ns + std::min(kInstallRetryBaseNs << std::min(n - 1, 9), kInstallRetryMaxNs);
}

}  // namespace

void OlmReducer::CsvLifecycleNamespaces(const Event& ev, const World& world, std::set<std::string>& out) {
  if (!refs_ready_) {
    refs_.Build(world);
    refs_ready_ = true;
  }
  std::set<std::string> wake;
  if (ev.IsObject()) refs_.Update(world, ev.group, ev.kind, ev.ns, ev.name, &wake);
  // A group's targets changed: the CSVs of the groups they met check their
  // APIs against it again (§B.1.4; upstream requeues every CSV providing
  // the group's APIs).
  if (!group_targets_.ready()) group_targets_.Build(world);
  if (ev.IsObject() && ev.group == kGroup && ev.kind == "OperatorGroup")
    group_targets_.Update(world, ev.ns, ev.name, &wake);
  // The answer to a write of ours to a cluster-scoped object (a component
  // label on a CRD) whose echo came first: nothing else wakes the
  // namespaces it concerns, and their syncs held while the write was on
  // its way.
  if (const engine::TrackedWrite* a = world.writes().answered();
      ev.type == records::EventType::kActionResult && ev.ok && a != nullptr && a->domain == kDomain &&
      a->ns.empty() && world.writes().Pending(kDomain, a->group, a->kind, a->ns, a->name) == nullptr)
    refs_.Update(world, a->group, a->kind, a->ns, a->name, &wake);
  CsvNamespaces(ev, world, wake, out);
}

void OlmReducer::CsvNamespaces(const Event& ev, const World& world, const std::set<std::string>& wake,
                               std::set<std::string>& out) const {
  auto every = [&] {
    for (const auto& [ns, x] : index_.namespaces())
      if (!x.csvs.empty()) out.insert(ns);
  };
  switch (ev.type) {
    case records::EventType::kAdded:
    case records::EventType::kModified:
    case records::EventType::kDeleted:
      if (ev.group == kGroup && (ev.kind == kCsv || ev.kind == "OperatorGroup" || ev.kind == "Subscription" ||
                                 ev.kind == kOperatorCondition || ev.kind == "InstallPlan")) {
        out.insert(std::string(ev.ns));
        if (ev.kind == "OperatorGroup")
          for (const std::string& ns : wake)
            if (const NsIndex* x = index_.Find(ns); x != nullptr && !x->csvs.empty()) out.insert(ns);
        // A copy's event: its parent (a CSV of that name elsewhere) checks it.
        if (ev.kind == kCsv) {
          for (const auto& [ns, x] : index_.namespaces()) {
            auto it = x.csvs.find(ev.name);
            if (ns != ev.ns && it != x.csvs.end() && it->second.installed) out.insert(ns);
          }
        }
      } else if ((ev.group == "" && ev.kind == "Namespace") ||
                 (ev.group == kGroup && ev.kind == kOlmConfig)) {
        every();  // copies for the groups that target every namespace
      } else if ((ev.group == "apps" && ev.kind == "Deployment") ||
                 (ev.group == "" && ev.kind == "ServiceAccount") ||
                 (ev.group == kRbac && (ev.kind == "Role" || ev.kind == "RoleBinding"))) {
        if (index_.Find(ev.ns) != nullptr) out.insert(std::string(ev.ns));
      } else if ((ev.group == kCrdGroup && ev.kind == "CustomResourceDefinition") ||
                 (ev.group == kRbac && (ev.kind == "ClusterRole" || ev.kind == "ClusterRoleBinding"))) {
        // Only the namespaces whose CSVs name it or are granted through it
        // (cluster_refs.h), not every one.
        for (const std::string& ns : wake)
          if (const NsIndex* x = index_.Find(ns); x != nullptr && !x->csvs.empty()) out.insert(ns);
      } else if (ev.group == "config.openshift.io" && ev.kind == "Proxy") {
        every();
      }
      break;
    case records::EventType::kActionResult:
      // Our write to a CSV or Deployment answered: a refusal or a loss is
      // decided on again; an ok one's echo wakes the namespace, or this
      // answer when the echo came first (the sync waited for the write).
      // (Any namespaced kind: a component label's write held the others.)
      if (const engine::TrackedWrite* a = world.writes().answered();
          a != nullptr && a->domain == kDomain && !a->ns.empty() && index_.Find(a->ns) != nullptr &&
          (!ev.ok || world.writes().Pending(kDomain, a->group, a->kind, a->ns, a->name) == nullptr))
        out.insert(a->ns);
      for (const std::string& ns : wake)
        if (const NsIndex* x = index_.Find(ns); x != nullptr && !x->csvs.empty()) out.insert(ns);
      break;
    case records::EventType::kCluster:
      if (world.Synced()) every();
      break;
    case records::EventType::kTimer:
      if (ev.timer == kRequeueTimer || ev.timer == kCsvTimeoutTimer) every();
      break;
    default:
      break;
  }
}

void OlmReducer::SyncCsvs(Ctx& c, const std::string& ns) {
  const NsIndex* x = index_.Find(ns);
  if (x == nullptr) return;
  for (const auto& [name, view] : x->csvs) {
    const engine::Object* o = c.world.Get(kGroup, kCsv, ns, name);
    if (o == nullptr) continue;
    SyncCsv(c, *x, *o);
    SyncCopies(c, *x, *o);
  }
}

void OlmReducer::SyncCsv(Ctx& c, const NsIndex& x, const engine::Object& o) {
  const Json& csv = o.json();
  const std::string ns(o.ns()), name(o.name());
  if (IsCopiedCsv(csv) || engine::Path(csv, {"metadata", "deletionTimestamp"}).is_string()) return;
  // A write of ours not seen back yet: its echo syncs the CSV again. A
  // refused one waits for the CSV's next event or the requeue timer (a
  // 409 sets it), never a loop of refusals.
  const bool requeued = c.ev.type == records::EventType::kTimer;
  if (c.world.writes().Pending(kDomain, kGroup, kCsv, ns, name) != nullptr ||
      (!requeued && c.world.writes().Refused(kDomain, kGroup, kCsv, ns, name) != nullptr))
    return;
  const std::string subject = StrCat(kCsv, " ", ns, "/", name);

  CsvSyncInputs in;
  in.groups = static_cast<int>(x.groups.size());
  in.annotated = Annotated(csv, c.world, x, ns);
  const Json& targets = engine::Path(csv, {"metadata", "annotations", "olm.targetNamespaces"});
  in.apis = GroupApis(c.world, x, csv, &in.static_group);
  in.install_modes = CheckInstallModes(
      engine::Path(csv, {"spec", "installModes"}), ns,
      targets.is_string() ? std::optional<std::string_view>(targets.get_ref<const std::string&>())
                          : std::nullopt);
  RequirementView view = RequirementsIn(c.world, ns);
  for (std::string r = engine::GetString(csv, {"spec", "replaces"});
       !r.empty() && !view.replaced_chain.contains(r);) {
    view.replaced_chain.insert(r);
    auto it = x.csvs.find(r);
    r = it == x.csvs.end() ? "" : it->second.replaces;
  }
  in.requirements = CheckRequirements(csv, view);
  for (const std::string& what : in.requirements.unchecked)
    c.emit.Note(subject, "note", StrCat(what, " not checked"));
  for (const std::string& what : in.requirements.not_built)
    c.emit.Note(subject, "note", StrCat(what, " not installed: not built in recon"));
  const DeploymentOverrides overrides = Overrides(c.world, ns, name);
  const Json& entries = engine::Path(csv, {"spec", "install", "spec", "deployments"});
  for (const Json& entry : entries) {
    const std::string dname = engine::GetString(entry, {"name"});
    const engine::Object* live = c.world.Get("apps", "Deployment", ns, dname);
    in.deployments.push_back(CheckCsvDeployment(csv, entry, overrides, live ? live->json() : Json()));
    // Our install write of it, for this CSV, refused since.
    if (const engine::TrackedWrite* r =
            c.world.writes().LastRefused(kDomain, "apps", "Deployment", ns, dname);
        r != nullptr && !in.install_failed && InstalledFor(r->body, name))
      in.install_failed = r->error;
  }
  if (std::string r = engine::GetString(csv, {"spec", "replaces"}); !r.empty()) {
    if (const engine::Object* p = c.world.Get(kGroup, kCsv, ns, r)) {
      in.replaced_phase = engine::GetString(p->json(), {"status", "phase"});
      in.not_upgradeable = NotUpgradeable(JsonOf(c.world.Get(kGroup, kOperatorCondition, ns, r)));
    }
  }
  for (const auto& [other, v] : x.csvs) {
    if (v.replaces != name || !v.installed) continue;  // copies are not in @existing
    in.replacement = other;
    in.replacement_phase = v.phase;
    break;
  }

  in.now_ns = c.ev.time_ns;
  const CsvStep step = NextCsvStep(csv, in);
  if (step.wake_at_ns != 0)
    csv_timer_at_ = csv_timer_at_ == 0 ? step.wake_at_ns : std::min(csv_timer_at_, step.wake_at_ns);
  if (!step.note.empty()) c.emit.Note(subject, "state", step.note);
  if (step.cluster_roles) csv_roles_due_.emplace_back(ns, name);
  if (step.phase && step.phase->reason == "OperatorConditionNotUpgradeable")
    c.emit.Note(subject, "wait",
                StrCat("upgrade held by OperatorCondition ", ns, "/",
                       engine::GetString(csv, {"spec", "replaces"}), ": ", *in.not_upgradeable));
  // Which requirement holds the CSV back, for explain.
  for (const Json& r : in.requirements.statuses) {
    if (engine::GetString(r, {"status"}) == "Present") continue;
    c.emit.Note(subject, "wait",
                StrCat("requirement ", engine::GetString(r, {"kind"}), " ", engine::GetString(r, {"name"}),
                       ": ", engine::GetString(r, {"status"}), " (", engine::GetString(r, {"message"}), ")"));
  }
  const Json& seen = engine::Path(csv, {"status"});
  Json status = seen.is_object() ? seen : Json::object();
  auto key = [](const Json& s) {
    return StrCat(engine::GetString(s, {"lastUpdateTime"}), "|", engine::GetString(s, {"phase"}), "|",
                  engine::GetString(s, {"reason"}), "|", engine::GetString(s, {"message"}));
  };
  const std::string before = key(status);
  if (step.store_requirements) status["requirementStatus"] = in.requirements.statuses;
  const std::string now = engine::FormatRfc3339Seconds(c.ev.time_ns);
  if (step.phase) {
    if (step.if_changed) {
      SetCsvPhaseIfChanged(status, *step.phase, now);
    } else {
      SetCsvPhase(status, *step.phase, now);
    }
  }
  if (int64_t retry_at = 0; step.install && !InstallDeployments(c.world, c.emit, requeued, csv, ns, overrides,
                                                                subject, c.ev.time_ns, &retry_at)) {
    if (retry_at == 0 && requeued) retry_at = RefusedCsvRetry(c.world, ns, name, c.ev.time_ns);
    if (retry_at != 0) csv_timer_at_ = csv_timer_at_ == 0 ? retry_at : std::min(csv_timer_at_, retry_at);
    return;
  }
  // Upstream writes the status only when one of these four changed.
  if (key(status) != before) {
    c.emit.Note(subject, "state",
                StrCat(engine::GetString(status, {"phase"}), " (", engine::GetString(status, {"reason"}),
                       "): ", engine::GetString(status, {"message"})));
    if (engine::GetString(status, {"phase"}) == "Replacing" &&
        engine::GetString(csv, {"status", "phase"}) != "Replacing")
      ++csv_upgrades_;  // upstream's csv_upgrade_count
    WriteStatus(c,
                Target{kCsv, ns, name, engine::GetString(csv, {"apiVersion"}),
                       engine::GetString(csv, {"metadata", "resourceVersion"})},
                std::move(status));
  }
  if (step.delete_deployments || step.remove_apis) CarryOutApiStep(c, x, step, csv);
  if (step.remove) {
    c.emit.Delete(Json{{"apiVersion", engine::GetString(csv, {"apiVersion"})},
                       {"kind", kCsv},
                       {"metadata", {{"name", name}, {"namespace", ns}}}});
  }
}

}  // namespace recon::olm
