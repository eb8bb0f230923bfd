// The generated ClusterRoles under csvLifecycle (reference olm-operator.md
// §B.1.5): each OperatorGroup's admin/edit/view roles aggregating the
// APIs its operators provide (the group sync's step 5), each Succeeded
// CSV's per-API roles for its owned CRDs, and a deleted group's roles gone
// (§B.7). Written after every other write of an event, so that logs
// recorded before keep their action ids (csv/cluster_roles.h holds the
// objects).
#include "domains/olm/csv/cluster_roles.h"

#include <set>
#include <string>

#include "base/strings.h"
#include "domains/olm/csv/phase.h"
#include "domains/olm/reducer.h"

namespace recon::olm {
namespace {

constexpr std::string_view kRbac = "rbac.authorization.k8s.io";
constexpr std::string_view kClusterRole = "ClusterRole";
constexpr std::string_view kCrdGroup = "apiextensions.k8s.io";

}  // namespace

bool OlmReducer::EnsureClusterRole(Ctx& c, Json want, const std::string& subject) {
  const std::string name = engine::GetString(want, {"metadata", "name"});
  if (WriteHeld(c, kRbac, kClusterRole, "", name)) return false;
  const engine::Object* live = c.world.Get(kRbac, kClusterRole, "", name);
  if (live == nullptr) {
    c.emit.Create(std::move(want));
    c.emit.Note(subject, "state", StrCat("ClusterRole ", name, " created"));
    return true;
  }
  if (auto update = ClusterRoleUpdate(live->json(), want)) {
    c.emit.Update(std::move(*update));
    c.emit.Note(subject, "state", StrCat("ClusterRole ", name, " brought back to what it generates"));
    return true;
  }
  return false;
}

void OlmReducer::SyncGroupClusterRoles(Ctx& c, const std::string& ns) {
  const NsIndex* x = index_.Find(ns);
  if (x == nullptr || x->groups.size() != 1) return;
  const engine::Object* og = c.world.Get(kGroup, "OperatorGroup", ns, x->groups.begin()->first);
  if (og == nullptr) return;
  // The APIs of the namespace's CSVs and those the group's annotation names.
  std::set<std::string> apis = GroupProvidedApis(og->json());
  for (const auto& [name, view] : x->csvs) {
    const engine::Object* o = c.world.Get(kGroup, kCsv, ns, name);
    if (o == nullptr || IsCopiedCsv(o->json())) continue;
    std::set<std::string> provided = CsvProvidedApis(o->json());
    apis.insert(provided.begin(), provided.end());
  }
  const std::string subject = StrCat("OperatorGroup ", ns, "/", og->name());
  for (Json& role : GroupClusterRoles(og->json(), apis)) EnsureClusterRole(c, std::move(role), subject);
}

std::string OlmReducer::CsvRolesInputs(Ctx& c, const engine::Object& csv) const {
  std::string out = StrCat(csv.seq());
  for (const Json& d : engine::Path(csv.json(), {"spec", "customresourcedefinitions", "owned"})) {
    const engine::Object* crd =
        c.world.Get(kCrdGroup, "CustomResourceDefinition", "", engine::GetString(d, {"name"}));
    StrAppend(&out, "|", crd == nullptr ? 0 : crd->seq());
    for (const std::string& role : CrdClusterRoleNames(d)) {
      const engine::Object* live = c.world.Get(kRbac, kClusterRole, "", role);
      StrAppend(&out, ",", live == nullptr ? 0 : live->seq(),
                WriteHeld(c, kRbac, kClusterRole, "", role) ? "h" : "");
    }
  }
  return out;
}

void OlmReducer::SyncCsvClusterRoles(Ctx& c, const std::string& ns, const std::string& name) {
  const engine::Object* o = c.world.Get(kGroup, kCsv, ns, name);
  const std::string key = StrCat(ns, "/", name);
  if (o == nullptr) {
    csv_roles_found_.erase(key);
    return;
  }
  std::string inputs = CsvRolesInputs(c, *o);
  if (auto it = csv_roles_found_.find(key);
      sync_cache_ && it != csv_roles_found_.end() && it->second == inputs)
    return;
  csv_roles_found_.erase(key);
  const std::string subject = StrCat(kCsv, " ", ns, "/", name);
  bool wrote = false;
  for (const Json& d : engine::Path(o->json(), {"spec", "customresourcedefinitions", "owned"})) {
    const std::string crd_name = engine::GetString(d, {"name"});
    const engine::Object* crd = c.world.Get(kCrdGroup, "CustomResourceDefinition", "", crd_name);
    if (crd == nullptr) {
      c.emit.Note(subject, "wait", StrCat("crd \"", crd_name, "\" not found: its ClusterRoles wait"));
      return;  // upstream's sync fails here
    }
    auto roles = CrdClusterRoles(d, crd->json());
    if (!roles) continue;
    for (Json& role : *roles) wrote |= EnsureClusterRole(c, std::move(role), subject);
  }
  if (!wrote) csv_roles_found_[key] = std::move(inputs);
}

void OlmReducer::CollectGroupClusterRoles(Ctx& c) {
  const Event& ev = c.ev;
  if (ev.type != records::EventType::kDeleted || ev.group != kGroup || ev.kind != "OperatorGroup") return;
  for (const char* suffix : {"admin", "edit", "view"}) {
    const std::string name = StrCat(ev.name, "-", suffix);
    const engine::Object* role = c.world.Get(kRbac, kClusterRole, "", name);
    if (role == nullptr || role->Label("olm.owner") != ev.name ||
        role->Label("olm.owner.namespace") != ev.ns || role->Label("olm.owner.kind") != "OperatorGroup" ||
        c.world.writes().Pending(kDomain, kRbac, kClusterRole, "", name) != nullptr)
      continue;
    c.emit.Note(StrCat("OperatorGroup ", ev.ns, "/", ev.name), "state",
                StrCat("ClusterRole ", name, " deleted with its group"));
    c.emit.Delete(Json{{"apiVersion", "rbac.authorization.k8s.io/v1"},
                       {"kind", kClusterRole},
                       {"metadata", {{"name", name}}}});
  }
}

}  // namespace recon::olm
