// The reducer's side of §B.1.4 (csv/api_intersection.h): what a CSV's sync
// reads of the groups (its own and those whose targets meet its group's:
// group_targets.h), and what a conflict makes it do — delete its
// Deployments, or take its APIs out of its group's olm.providedAPIs.
#include <set>
#include <string>

#include "absl/strings/str_join.h"
#include "base/strings.h"
#include "domains/olm/csv/cluster_roles.h"
#include "domains/olm/reducer.h"

namespace recon::olm {

std::set<std::string> OlmReducer::IntersectingApis(const World& w, std::string_view ns,
                                                   std::string_view group) {
  if (!group_targets_.ready()) group_targets_.Build(w);
  std::set<std::string> others;
  for (const std::string& key : group_targets_.Intersecting(ns, group)) {
    const size_t slash = key.find('/');
    if (const engine::Object* o =
            w.Get(kGroup, "OperatorGroup", key.substr(0, slash), key.substr(slash + 1))) {
      std::set<std::string> apis = GroupProvidedApis(o->json());
      others.insert(apis.begin(), apis.end());
    }
  }
  return others;
}

std::optional<ApiReconcile> OlmReducer::GroupApis(const World& w, const NsIndex& x, const Json& csv,
                                                  bool* static_group) {
  if (x.groups.size() != 1) return std::nullopt;
  const std::set<std::string> add = CsvProvidedApis(csv);
  if (add.empty()) return std::nullopt;
  const std::string ns = engine::GetString(csv, {"metadata", "namespace"});
  const engine::Object* og = w.Get(kGroup, "OperatorGroup", ns, x.groups.begin()->first);
  if (og == nullptr) return std::nullopt;
  *static_group = engine::Path(og->json(), {"spec", "staticProvidedAPIs"}) == Json(true);
  return ReconcileApis(add, GroupProvidedApis(og->json()), IntersectingApis(w, ns, og->name()));
}

void OlmReducer::CarryOutApiStep(Ctx& c, const NsIndex& x, const CsvStep& step, const Json& csv) {
  const std::string ns = engine::GetString(csv, {"metadata", "namespace"});
  const std::string name = engine::GetString(csv, {"metadata", "name"});
  const std::string subject = StrCat(kCsv, " ", ns, "/", name);
  if (step.delete_deployments) {
    // The strategy's Deployments that are this CSV's (its owner labels).
    for (const Json& entry : engine::Path(csv, {"spec", "install", "spec", "deployments"})) {
      const std::string dname = engine::GetString(entry, {"name"});
      const engine::Object* d = c.world.Get("apps", "Deployment", ns, dname);
      if (d == nullptr || WriteHeld(c, "apps", "Deployment", ns, dname) ||
          engine::GetString(d->json(), {"metadata", "labels", "olm.owner"}) != name ||
          engine::GetString(d->json(), {"metadata", "labels", "olm.owner.namespace"}) != ns)
        continue;
      c.emit.Delete(Json{{"apiVersion", "apps/v1"},
                         {"kind", "Deployment"},
                         {"metadata", {{"name", dname}, {"namespace", ns}}}});
      c.emit.Note(subject, "state", StrCat("Deployment ", dname, " deleted: its APIs conflict"));
    }
  }
  if (!step.remove_apis || x.groups.size() != 1) return;
  const std::string group = x.groups.begin()->first;
  const engine::Object* og = c.world.Get(kGroup, "OperatorGroup", ns, group);
  if (og == nullptr || WriteHeld(c, kGroup, "OperatorGroup", ns, group)) return;
  std::set<std::string> want = GroupProvidedApis(og->json());
  for (const std::string& a : CsvProvidedApis(csv)) want.erase(a);
  Json obj = og->json();
  obj.erase("status");
  obj["metadata"]["annotations"]["olm.providedAPIs"] = absl::StrJoin(want, ",");
  obj["metadata"]["resourceVersion"] = Precondition(
      c.world, "OperatorGroup", ns, group, engine::GetString(og->json(), {"metadata", "resourceVersion"}));
  c.emit.Update(obj);
  c.emit.Note(StrCat("OperatorGroup ", ns, "/", group), "state",
              StrCat("olm.providedAPIs: APIs of ", name, " removed (an intersecting group provides them)"));
}

}  // namespace recon::olm
