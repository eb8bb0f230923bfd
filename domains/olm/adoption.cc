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

}  // namespace

void OlmReducer::SetComponentLabel(Ctx& c, const engine::Object& o, const std::string& key, bool on) {
  if (HasLabel(o.json(), key) == on || WriteHeld(c, o.group(), o.kind(), o.ns(), o.name())) return;
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
