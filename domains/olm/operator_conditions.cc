// OperatorConditions under csvLifecycle (reference olm-operator.md §B.6):
// the generator's OperatorCondition for each non-copied CSV of a namespace,
// then the reconciler's Role, RoleBinding, Deployment env and status for
// each OperatorCondition there. Upstream runs both as controller-runtime
// controllers beside the CSV sync; here they follow it, after every other
// write of the event (csv/operator_conditions.h holds the rules).
#include "domains/olm/csv/operator_conditions.h"

#include <set>
#include <string>

#include "base/strings.h"
#include "domains/olm/csv/phase.h"
#include "domains/olm/reducer.h"
#include "engine/time_format.h"

namespace recon::olm {
namespace {

constexpr std::string_view kRbac = "rbac.authorization.k8s.io";

// A CSV owner reference of that name (upstream's GetOwnerByKind: the first
// of kind ClusterServiceVersion).
bool OwnedByCsv(const Json& o, std::string_view csv) {
  for (const Json& ref : engine::Path(o, {"metadata", "ownerReferences"}))
    if (engine::GetString(ref, {"kind"}) == kCsv) return engine::GetString(ref, {"name"}) == csv;
  return false;
}

}  // namespace

bool OlmReducer::WriteHeld(Ctx& c, std::string_view group, std::string_view kind, std::string_view ns,
                           std::string_view name) const {
  // A write of ours not seen back yet (or made in this event): its echo
  // brings the next decision. A refused one waits for the object's next
  // event or the requeue timer.
  return c.emit.Written(group, kind, ns, name).has_value() ||
         c.world.writes().Pending(kDomain, group, kind, ns, name) != nullptr ||
         (c.ev.type != records::EventType::kTimer &&
          c.world.writes().Refused(kDomain, group, kind, ns, name) != nullptr);
}

std::string OlmReducer::OperatorConditionInputs(Ctx& c, const std::string& ns) const {
  auto held = [&](std::string_view group, std::string_view kind, std::string_view name) {
    return WriteHeld(c, group, kind, ns, name) ? "h" : "";
  };
  std::string out;
  if (const NsIndex* x = index_.Find(ns))
    for (const auto& [name, view] : x->csvs) {
      const engine::Object* o = c.world.Get(kGroup, kCsv, ns, name);
      StrAppend(&out, name, ":", o == nullptr ? 0 : o->seq(), held(kGroup, kOperatorCondition, name), ";");
    }
  out += "#";
  for (const engine::Object* o : c.world.ListIn(kGroup, kOperatorCondition, ns)) {
    StrAppend(&out, o->name(), ":", o->seq(), held(kGroup, kOperatorCondition, o->name()));
    for (std::string_view kind : {"Role", "RoleBinding"}) {
      const engine::Object* live = c.world.Get(kRbac, kind, ns, o->name());
      StrAppend(&out, ",", live == nullptr ? 0 : live->seq(), held(kRbac, kind, o->name()));
    }
    for (const Json& d : engine::Path(o->json(), {"spec", "deployments"})) {
      const std::string dname = d.is_string() ? d.get<std::string>() : "";
      const engine::Object* live = c.world.Get("apps", "Deployment", ns, dname);
      StrAppend(&out, ",", live == nullptr ? 0 : live->seq(), held("apps", "Deployment", dname));
    }
    out += ";";
  }
  return out;
}

void OlmReducer::SyncOperatorConditions(Ctx& c, const std::string& ns) {
  std::string inputs = OperatorConditionInputs(c, ns);
  if (auto it = conditions_found_.find(ns);
      sync_cache_ && it != conditions_found_.end() && it->second == inputs)
    return;
  conditions_found_.erase(ns);
  const size_t actions = c.emit.count(), notes = c.emit.note_count();
  SyncOperatorConditionsNow(c, ns);
  if (c.emit.count() == actions && c.emit.note_count() == notes) conditions_found_[ns] = std::move(inputs);
}

void OlmReducer::SyncOperatorConditionsNow(Ctx& c, const std::string& ns) {
  std::set<std::string> written;  // by the generator: reconciled at their echo
  if (const NsIndex* x = index_.Find(ns)) {
    for (const auto& [name, view] : x->csvs) {
      const engine::Object* o = c.world.Get(kGroup, kCsv, ns, name);
      if (o == nullptr || IsCopiedCsv(o->json()) ||
          engine::Path(o->json(), {"metadata", "deletionTimestamp"}).is_string() ||
          WriteHeld(c, kGroup, kOperatorCondition, ns, name))
        continue;
      const std::string subject = StrCat(kOperatorCondition, " ", ns, "/", name);
      Json want = OperatorConditionFor(o->json());
      const engine::Object* live = c.world.Get(kGroup, kOperatorCondition, ns, name);
      if (live == nullptr) {
        c.emit.Create(std::move(want));
        c.emit.Note(subject, "state", StrCat("created for ", kCsv, " ", name));
        written.insert(name);
      } else if (auto update = OperatorConditionUpdate(live->json(), want)) {
        c.emit.Update(std::move(*update));
        c.emit.Note(subject, "state", StrCat("owner, deployments and service accounts made ", name, "'s"));
        written.insert(name);
      }
    }
  }
  for (const engine::Object* o : c.world.ListIn(kGroup, kOperatorCondition, ns))
    if (!written.contains(std::string(o->name()))) ReconcileOperatorCondition(c, *o);
}

void OlmReducer::ReconcileOperatorCondition(Ctx& c, const engine::Object& o) {
  const Json& oc = o.json();
  const std::string ns(o.ns()), name(o.name());
  if (engine::Path(oc, {"metadata", "deletionTimestamp"}).is_string()) return;
  const std::string subject = StrCat(kOperatorCondition, " ", ns, "/", name);
  const std::string uid = engine::GetString(oc, {"metadata", "uid"});
  // Upstream stops at the first step that fails; a write on its way counts
  // as not done yet.
  for (Json want : {OperatorConditionRole(oc), OperatorConditionRoleBinding(oc)}) {
    const std::string kind = engine::GetString(want, {"kind"});
    if (WriteHeld(c, kRbac, kind, ns, name)) return;
    const engine::Object* live = c.world.Get(kRbac, kind, ns, name);
    if (live == nullptr) {
      c.emit.Create(std::move(want));
      c.emit.Note(subject, "state", StrCat(kind, " ", name, " created for it"));
      return;
    }
    if (auto update = RbacUpdate(live->json(), want, uid)) {
      c.emit.Update(std::move(*update));
      c.emit.Note(subject, "state", StrCat(kind, " ", name, " brought back to it"));
      return;
    }
  }
  for (const Json& d : engine::Path(oc, {"spec", "deployments"})) {
    const std::string dname = d.is_string() ? d.get<std::string>() : "";
    const engine::Object* live = c.world.Get("apps", "Deployment", ns, dname);
    if (live == nullptr) {
      c.emit.Note(subject, "wait", StrCat("Deployment ", dname, " not found"));
      return;
    }
    if (!OwnedByCsv(live->json(), name)) continue;
    if (WriteHeld(c, "apps", "Deployment", ns, dname)) return;
    if (auto fixed = WithOperatorConditionName(live->json(), name)) {
      c.emit.Update(std::move(*fixed));
      c.emit.Note(subject, "state", StrCat("OPERATOR_CONDITION_NAME set in Deployment ", dname));
      return;
    }
  }
  if (WriteHeld(c, kGroup, kOperatorCondition, ns, name)) return;
  if (auto status = OperatorConditionStatus(oc, engine::FormatRfc3339Seconds(c.ev.time_ns))) {
    c.emit.Note(subject, "state", "status.conditions set from spec.conditions");
    WriteStatus(c,
                Target{kOperatorCondition, ns, name, engine::GetString(oc, {"apiVersion"}),
                       engine::GetString(oc, {"metadata", "resourceVersion"})},
                std::move(*status));
  }
}

}  // namespace recon::olm
