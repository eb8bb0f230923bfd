// A grouped CSV's RBAC spread to the namespaces its group targets under
// csvLifecycle (reference olm-operator.md §B.1.5; csv/tenant_rbac.h): after
// the CSV's sync, for an all-namespaces group its owned Roles and
// RoleBindings lifted to ClusterRoles and ClusterRoleBindings while its
// permissions are not granted cluster-wide; for a group with other
// targets, copied into each target where they are not granted, owned by
// the CSV's copy there. Created once (a Role's rules brought up to date),
// the copies go with the copied CSV (Kubernetes' garbage
// collector), the lifted ones and a plan's cluster RBAC with the CSV they
// are labelled for (CollectCsvClusterRbac, §B.7 step 6).
#include "domains/olm/csv/tenant_rbac.h"

#include <set>
#include <string>

#include "base/strings.h"
#include "domains/olm/csv/deployments.h"
#include "domains/olm/csv/phase.h"
#include "domains/olm/reducer.h"
#include "domains/olm/requirement_view.h"

namespace recon::olm {
namespace {

constexpr std::string_view kRbac = "rbac.authorization.k8s.io";

}  // namespace

void OlmReducer::SpreadRbac(Ctx& c, const engine::Object& o, const std::set<std::string>& targets, bool all,
                            bool copiable) {
  const Json& csv = o.json();
  const std::string ns(o.ns());
  const RequirementView view = RequirementsIn(c.world, ns);
  if (all) {
    if (PermissionsMet(csv, "", true, view)) return;
    for (const auto& [kind, cluster_kind] :
         {std::pair<std::string_view, std::string_view>{"Role", "ClusterRole"},
          {"RoleBinding", "ClusterRoleBinding"}}) {
      for (const engine::Object* r : c.world.ListIn(kRbac, kind, ns)) {
        if (!HasCsvOwnerLabels(r->json(), csv) ||
            c.world.Get(kRbac, cluster_kind, "", r->name()) != nullptr ||
            WriteHeld(c, kRbac, cluster_kind, "", r->name()))
          continue;
        c.emit.Create(kind == "Role" ? LiftedClusterRole(r->json()) : LiftedClusterRoleBinding(r->json()));
        c.emit.Note(StrCat(cluster_kind, " ", r->name()), "state",
                    StrCat("lifted from ", kind, " ", ns, "/", r->name(), ": ", o.name(),
                           "'s permissions are not granted cluster-wide (all-namespaces group)"));
      }
    }
    return;
  }
  if (!copiable) return;
  for (const std::string& t : targets) {
    if (t == ns || PermissionsMet(csv, t, false, view)) continue;
    // Owned by the CSV's copy there: once that is seen (its echo syncs
    // the parent again).
    const engine::Object* copy = c.world.Get(kGroup, kCsv, t, o.name());
    if (copy == nullptr || !IsCopiedCsv(copy->json())) continue;
    for (const std::string_view kind : {"Role", "RoleBinding"}) {
      for (const engine::Object* r : c.world.ListIn(kRbac, kind, ns)) {
        if (!HasCsvOwnerLabels(r->json(), csv) || !OwnedByCsv(r->json(), csv) ||
            WriteHeld(c, kRbac, kind, t, r->name()))
          continue;
        const std::string subject = StrCat(kind, " ", t, "/", r->name());
        const engine::Object* have = c.world.Get(kRbac, kind, t, r->name());
        if (have == nullptr) {
          c.emit.Create(TenantCopy(r->json(), copy->json(), ns));
          c.emit.Note(subject, "state",
                      StrCat("copied from ", ns, ": ", o.name(), "'s permissions are not granted in ", t));
          continue;
        }
        // An existing Role of the copy's gets the rules; a RoleBinding is left be.
        if (kind != "Role" || !HasCsvOwnerLabels(have->json(), copy->json()) ||
            engine::Path(have->json(), {"rules"}) == engine::Path(r->json(), {"rules"}))
          continue;
        Json update = have->json();
        update["rules"] = engine::Path(r->json(), {"rules"});
        c.emit.Update(std::move(update));
        c.emit.Note(subject, "state", StrCat("rules brought up to date with ", ns, "/", r->name()));
      }
    }
  }
}

void OlmReducer::CollectCsvClusterRbac(Ctx& c) {
  const Event& ev = c.ev;
  if (ev.type != records::EventType::kDeleted || ev.group != kGroup || ev.kind != kCsv) return;
  // The CSV's name elsewhere may be a copy; a copy owns nothing cluster-wide.
  if (auto gone = engine::ParseJson(ev.body); gone.ok() && IsCopiedCsv(*gone)) return;
  for (const std::string_view kind : {"ClusterRole", "ClusterRoleBinding"}) {
    const std::set<std::string>* names = refs_.OwnedBy(ev.ns, ev.name, kRbac, kind);
    if (names == nullptr) continue;
    for (const std::string& name : *names) {
      const engine::Object* o = c.world.Get(kRbac, kind, "", name);
      if (o == nullptr || o->Label("olm.owner.kind") != kCsv || WriteHeld(c, kRbac, kind, "", name)) continue;
      c.emit.Delete(Json{
          {"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", kind}, {"metadata", {{"name", name}}}});
      c.emit.Note(StrCat(kind, " ", name), "state",
                  StrCat("deleted: its ClusterServiceVersion ", ev.ns, "/", ev.name, " is gone"));
    }
  }
}

}  // namespace recon::olm
