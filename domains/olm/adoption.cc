// The Operator API's component labels under csvLifecycle (OLM's adoption
// controller, csv/component_labels.h): for each Subscription of a
// namespace, the label on itself, its installed CSV and its latest
// InstallPlan (removed from its older plans); for each CSV of the
// namespace with such a label, on what it owns. Upstream patches the
// labels alone; recon updates the object as it saw it with the label
// added, one write per object per event, after every other write.
#include <set>
#include <string>

#include "base/strings.h"
#include "domains/olm/csv/component_labels.h"
#include "domains/olm/csv/phase.h"
#include "domains/olm/reducer.h"
#include "engine/write_tracker.h"

namespace recon::olm {
namespace {

struct KindRef {
  std::string_view group, kind;
  bool namespaced;
};

// What a CSV may own among the kinds recon watches (upstream's list also
// has Services, ConfigMaps, Secrets labelled olm.managed and APIServices,
// which recon watches only with executePlans or not at all).
constexpr KindRef kComponentKinds[] = {
    {"apps", "Deployment", true},
    {"", "Service", true},
    {"", "ConfigMap", true},
    {"", "ServiceAccount", true},
    {"rbac.authorization.k8s.io", "Role", true},
    {"rbac.authorization.k8s.io", "RoleBinding", true},
    {kGroup, "Subscription", true},
    {kGroup, "InstallPlan", true},
    {kGroup, "ClusterServiceVersion", true},
    {kGroup, "OperatorCondition", true},
    {"", "Namespace", false},
    {"apiextensions.k8s.io", "CustomResourceDefinition", false},
    {"rbac.authorization.k8s.io", "ClusterRole", false},
    {"rbac.authorization.k8s.io", "ClusterRoleBinding", false},
};

// Whether `have` shows every field `want` sets (arrays item by item), the
// resourceVersion aside.
bool Shows(const Json& have, const Json& want, bool top = true) {
  if (want.is_object()) {
    if (!have.is_object()) return false;
    for (auto it = want.begin(); it != want.end(); ++it) {
      if (top && it.key() == "metadata" && it.value().is_object()) {
        for (auto m = it.value().begin(); m != it.value().end(); ++m)
          if (m.key() != "resourceVersion" &&
              !Shows(engine::Path(have, {"metadata", m.key()}), m.value(), false))
            return false;
        continue;
      }
      auto h = have.find(it.key());
      if (h == have.end() || !Shows(*h, it.value(), false)) return false;
    }
    return true;
  }
  if (want.is_array()) {
    if (!have.is_array() || have.size() != want.size()) return false;
    for (size_t i = 0; i < want.size(); ++i)
      if (!Shows(have[i], want[i], false)) return false;
    return true;
  }
  return have == want;
}

}  // namespace

bool OlmReducer::LabelHeld(Ctx& c, const engine::Object& o) const {
  if (!WriteHeld(c, o.group(), o.kind(), o.ns(), o.name())) return false;
  // In a log whose answers carry no resourceVersion (a shadow agent's,
  // whose predictions are never sent) an update the object already showed
  // when it was decided never sees an echo of its own: it would hold the
  // label until another writer's change. Acting, its answer (a no-op on
  // the server) comes at once; so the label goes ahead over it here.
  if (c.world.writes().answers_carry_rv() ||
      c.emit.Written(o.group(), o.kind(), o.ns(), o.name()).has_value())
    return true;
  const engine::TrackedWrite* w = c.world.writes().Pending(kDomain, o.group(), o.kind(), o.ns(), o.name());
  if (w == nullptr || w->verb != "update") return true;
  auto body = engine::ParseJson(w->body);
  return !body.ok() || !Shows(o.json(), *body);
}

void OlmReducer::SetComponentLabel(Ctx& c, const engine::Object& o, const std::string& key, bool on) {
  if (HasLabel(o.json(), key) == on || LabelHeld(c, o)) return;
  Json next = o.json();
  Json& labels = next["metadata"]["labels"];
  if (on) {
    if (!labels.is_object()) labels = Json::object();
    labels[key] = "";
  } else {
    labels.erase(key);
    if (labels.empty()) next["metadata"].erase("labels");
  }
  c.emit.Update(std::move(next));
  c.emit.Note(StrCat(o.kind(), " ", o.ns().empty() ? "" : StrCat(o.ns(), "/"), o.name()), "state",
              StrCat(on ? "labelled " : "unlabelled ", key));
}

void OlmReducer::AdoptComponents(Ctx& c, const std::string& ns) {
  for (const engine::Object* s : c.world.ListIn(kGroup, "Subscription", ns)) {
    const std::string package = engine::GetString(s->json(), {"spec", "name"});
    if (package.empty()) continue;
    auto key = ComponentLabelKey(StrCat(package, ".", ns));
    if (!key) continue;
    SetComponentLabel(c, *s, *key, true);
    const std::string installed = engine::GetString(s->json(), {"status", "installedCSV"});
    if (const engine::Object* csv = installed.empty() ? nullptr : c.world.Get(kGroup, kCsv, ns, installed);
        csv != nullptr && !IsCopiedCsv(csv->json()))
      SetComponentLabel(c, *csv, *key, true);
    const Json& ref = engine::Path(s->json(), {"status", "installPlanRef"});
    const std::string plan = engine::GetString(ref, {"name"}),
                      plan_ns = engine::GetString(ref, {"namespace"});
    if (plan.empty()) continue;
    if (const engine::Object* ip = c.world.Get(kGroup, "InstallPlan", plan_ns, plan))
      SetComponentLabel(c, *ip, *key, true);
    for (const engine::Object* ip : c.world.ListIn(kGroup, "InstallPlan", plan_ns))
      if (ip->name() != plan) SetComponentLabel(c, *ip, *key, false);
  }
  const NsIndex* x = index_.Find(ns);
  if (x == nullptr) return;
  for (const auto& [name, view] : x->csvs) {
    const engine::Object* o = c.world.Get(kGroup, kCsv, ns, name);
    if (o == nullptr || IsCopiedCsv(o->json())) continue;
    const Json& csv = o->json();
    for (const std::string& key : CsvComponentKeys(csv)) {
      // Owner references only reach the owner's namespace: namespaced
      // candidates are looked for there; a cluster-scoped object is the
      // CSV's by its olm.owner labels alone (cluster_refs.h).
      for (const KindRef& k : kComponentKinds) {
        if (k.namespaced) {
          for (const engine::Object* part : c.world.ListIn(k.group, k.kind, ns))
            if (!HasLabel(part->json(), key) && IsCsvComponent(part->json(), csv))
              SetComponentLabel(c, *part, key, true);
          continue;
        }
        if (const std::set<std::string>* names = refs_.OwnedBy(ns, name, k.group, k.kind))
          for (const std::string& n : *names)
            if (const engine::Object* part = c.world.Get(k.group, k.kind, "", n);
                part != nullptr && !HasLabel(part->json(), key) && IsCsvComponent(part->json(), csv))
              SetComponentLabel(c, *part, key, true);
      }
      for (const Json& d : engine::Path(csv, {"spec", "customresourcedefinitions", "owned"}))
        if (const engine::Object* crd = c.world.Get("apiextensions.k8s.io", "CustomResourceDefinition", "",
                                                    engine::GetString(d, {"name"})))
          SetComponentLabel(c, *crd, key, true);
    }
  }
}

}  // namespace recon::olm
