// The olm-operator's OperatorGroup sync (OLM v0.24.0 olm/operatorgroup.go
// syncOperatorGroups, and the provided-API step of transitionCSVState):
//   - status.namespaces (the group's target namespaces, "" for all) and
//     lastUpdated, written when the set changed; conditions kept;
//   - MultipleOperatorGroup=True/MultipleOperatorGroupsFound on every group
//     of a namespace holding more than one, removed when one is left;
//   - the olm.operatorGroup, olm.operatorNamespace and olm.targetNamespaces
//     annotations on the namespace's CSVs (annotateCSVs, issue 50): a CSV
//     whose three differ from its one group's is updated with them;
//   - the olm.providedAPIs annotation: a member CSV's provided APIs added
//     (one CSV per write, as upstream's per-CSV sync), APIs no CSV of the
//     namespace provides any more pruned.
// Not modelled: label selectors (needs Namespaces), service accounts,
// the aggregated ClusterRoles. Intersecting groups' API conflicts are the
// CSV sync's (api_intersection.cc).
#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/strings.h"
#include "domains/olm/csv/cluster_roles.h"
#include "domains/olm/csv/phase.h"
#include "domains/olm/reducer.h"
#include "domains/olm/sync_state.h"
#include "engine/time_format.h"

namespace recon::olm {
namespace {

constexpr std::string_view kProvidedApis = "olm.providedAPIs";
constexpr std::string_view kMultiple = "MultipleOperatorGroup";

struct Group {
  const engine::Object* obj;
  const Json& j;
};

// spec.targetNamespaces, else all namespaces for an empty selector;
// nullopt when a selector picks them (Namespaces are not watched) or the
// list is invalid (upstream refuses NamespaceAll in it).
std::optional<std::set<std::string>> Targets(const Json& og) {
  const Json& tn = engine::Path(og, {"spec", "targetNamespaces"});
  std::set<std::string> out;
  if (tn.is_array() && !tn.empty()) {
    for (const Json& n : tn) {
      if (!n.is_string() || n.get<std::string>().empty()) return std::nullopt;
      out.insert(n.get<std::string>());
    }
    return out;
  }
  const Json& sel = engine::Path(og, {"spec", "selector"});
  if (sel.is_object()) {
    const Json& ml = engine::Path(sel, {"matchLabels"});
    const Json& me = engine::Path(sel, {"matchExpressions"});
    if ((ml.is_object() && !ml.empty()) || (me.is_array() && !me.empty())) return std::nullopt;
  }
  out.insert("");
  return out;
}

bool SameSet(const std::set<std::string>& want, const Json& have) {
  if (!have.is_array() || have.size() != want.size()) return false;
  for (const Json& n : have)
    if (!n.is_string() || !want.contains(n.get<std::string>())) return false;
  return true;
}

// Kind.version.group of each owned CRD and APIService (upstream's APIKey strings).
}  // namespace

void OlmReducer::SyncOperatorGroups(Ctx& c, const std::string& ns) {
  const NsIndex* x = index_.Find(ns);
  if (x == nullptr || x->groups.empty()) return;
  std::vector<Group> groups;
  for (const auto& [name, view] : x->groups) {
    const engine::Object* o = c.world.Get(kGroup, "OperatorGroup", ns, name);
    if (o == nullptr || o->json().is_null()) continue;
    groups.push_back(Group{o, o->json()});
  }
  // The CSVs of the namespace that are not copies, in name order (the
  // World's parse: each CSV's sync reads it too).
  std::vector<const Json*> csvs;
  for (const auto& [name, view] : x->csvs) {
    const engine::Object* o = c.world.Get(kGroup, "ClusterServiceVersion", ns, name);
    if (o == nullptr || o->json().is_null()) continue;
    if (!IsCopiedCsv(o->json())) csvs.push_back(&o->json());
  }
  for (const Group& g : groups) {
    // A write of ours not seen back yet: its echo syncs the group again.
    if (c.world.writes().Pending(kDomain, kGroup, "OperatorGroup", ns, g.obj->name()) != nullptr) continue;
    if (WriteGroupStatus(c, g.obj, g.j, groups.size())) continue;
    if (groups.size() != 1) continue;
    annotate_ns_.insert(ns);  // after every other write of the event (Reduce)
    WriteProvidedApis(c, g.obj, g.j, csvs);
  }
}

bool OlmReducer::WriteGroupStatus(Ctx& c, const engine::Object* o, const Json& og, size_t groups_in_ns) {
  const std::string subject = StrCat("OperatorGroup ", o->ns(), "/", o->name());
  const Json& seen = engine::Path(og, {"status"});
  Json status = seen.is_object() ? seen : Json::object();
  Json conditions = engine::Path(status, {"conditions"}).is_array() ? status["conditions"] : Json::array();
  bool changed = false;
  auto multiple = std::find_if(conditions.begin(), conditions.end(),
                               [](const Json& k) { return S(k, "type") == kMultiple; });
  if (groups_in_ns > 1 && multiple == conditions.end()) {
    conditions.push_back(Json{{"type", kMultiple},
                              {"status", "True"},
                              {"lastTransitionTime", engine::FormatRfc3339Seconds(c.ev.time_ns)},
                              {"reason", "MultipleOperatorGroupsFound"},
                              {"message", "Multiple OperatorGroup found in the same namespace"}});
    c.emit.Note(subject, "state", StrCat(groups_in_ns, " OperatorGroups in the namespace: nothing installs there"));
    changed = true;
  } else if (groups_in_ns == 1 && multiple != conditions.end()) {
    conditions.erase(multiple);
    changed = true;
  }
  std::optional<std::set<std::string>> targets = Targets(og);
  if (!targets) {
    c.emit.Note(subject, "note", "targets chosen by a label selector or invalid: its status is not modelled");
  } else if (!SameSet(*targets, engine::Path(status, {"namespaces"}))) {
    // Upstream replaces the status with these three (a serviceAccountRef
    // is dropped) and lists the namespaces from a map: any order.
    status = Json{{"namespaces", Json(std::vector<std::string>(targets->begin(), targets->end()))},
                  {"lastUpdated", engine::FormatRfc3339Seconds(c.ev.time_ns)}};
    c.emit.Note(subject, "state",
                StrCat("targets ", targets->contains("") ? std::string("all namespaces")
                                                         : absl::StrJoin(*targets, ", ")));
    changed = true;
  }
  if (!changed) return false;
  if (conditions.empty()) {
    status.erase("conditions");
  } else {
    status["conditions"] = std::move(conditions);
  }
  WriteStatus(c,
              Target{"OperatorGroup", o->ns(), o->name(), engine::GetString(og, {"apiVersion"}),
                     engine::GetString(og, {"metadata", "resourceVersion"})},
              std::move(status));
  return true;
}

void OlmReducer::AnnotateCsvs(Ctx& c, const std::string& ns) {
  const NsIndex* x = index_.Find(ns);
  if (x == nullptr || x->groups.size() != 1) return;
  const engine::Object* o = c.world.Get(kGroup, "OperatorGroup", ns, x->groups.begin()->first);
  if (o == nullptr) return;
  const Json& og = o->json();
  if (og.is_null()) return;
  const std::string group = engine::GetString(og, {"metadata", "name"});
  // The targets of the group's status, sorted and joined (upstream's
  // BuildTargetNamespaces: beside the real OLM a status stored as
  // [conf-percona, conf-etcd] gave "conf-etcd,conf-percona"); none while
  // the group has no status yet.
  const Json& held = engine::Path(og, {"status", "namespaces"});
  std::optional<std::string> targets;
  if (held.is_array()) {
    std::set<std::string> names;
    for (const Json& n : held)
      if (n.is_string()) names.insert(n.get<std::string>());
    targets = absl::StrJoin(names, ",");
  }
  for (const auto& [name, view] : x->csvs) {
    const engine::Object* co = c.world.Get(kGroup, "ClusterServiceVersion", ns, name);
    if (co == nullptr) continue;
    const Json& csv = co->json();
    if (csv.is_null() || IsCopiedCsv(csv)) continue;
    const Json& ann = engine::Path(csv, {"metadata", "annotations"});
    auto same = [&](const char* key, const std::string& want) {
      const Json& v = engine::Path(ann, {key});
      return v.is_string() && v.get<std::string>() == want;
    };
    if (same("olm.operatorNamespace", ns) && same("olm.operatorGroup", group) &&
        (!targets || same("olm.targetNamespaces", *targets)))
      continue;
    // A write of ours not seen back yet: its echo syncs the group again. A
    // refusal is held until the CSV's next event or the requeue timer
    // (never a loop of 409s).
    const bool requeued = c.ev.type == records::EventType::kTimer;
    if (c.world.writes().Pending(kDomain, kGroup, "ClusterServiceVersion", ns, name) != nullptr ||
        (!requeued && c.world.writes().Refused(kDomain, kGroup, "ClusterServiceVersion", ns, name) != nullptr))
      continue;
    Json obj = csv;
    obj.erase("status");
    Json& a = obj["metadata"]["annotations"];
    if (!a.is_object()) a = Json::object();
    a["olm.operatorNamespace"] = ns;
    a["olm.operatorGroup"] = group;
    if (targets) a["olm.targetNamespaces"] = *targets;
    obj["metadata"]["resourceVersion"] = Precondition(c.world, "ClusterServiceVersion", ns, name,
                                                      engine::GetString(csv, {"metadata", "resourceVersion"}));
    c.emit.Update(obj);
    c.emit.Note(StrCat("ClusterServiceVersion ", ns, "/", name), "state",
                StrCat("annotated with OperatorGroup ", group, targets ? StrCat(", targets \"", *targets, "\"") : ""));
  }
}

void OlmReducer::WriteProvidedApis(Ctx& c, const engine::Object* o, const Json& og,
                                   const std::vector<const Json*>& csvs) {
  if (engine::Path(og, {"spec", "staticProvidedAPIs"}) == Json(true)) return;
  const std::set<std::string> have = GroupProvidedApis(og);
  std::set<std::string> want = have;
  std::string why;
  // Added: the first member CSV (annotated with its targets by the group
  // sync, not being deleted) whose APIs the annotation lacks, and no group
  // whose targets meet this one's records (§B.1.4: that CSV fails instead).
  std::optional<std::set<std::string>> others;
  for (const Json* each : csvs) {
    const Json& csv = *each;
    if (!engine::Path(csv, {"metadata", "annotations", "olm.targetNamespaces"}).is_string() ||
        engine::Path(csv, {"metadata", "deletionTimestamp"}).is_string() ||
        S(engine::Path(csv, {"status"}), "reason") == "InstallComponentFailedNoRetry")
      continue;
    std::set<std::string> apis = CsvProvidedApis(csv);
    if (std::includes(have.begin(), have.end(), apis.begin(), apis.end())) continue;
    if (!others) others = IntersectingApis(c.world, o->ns(), o->name());
    if (std::any_of(apis.begin(), apis.end(), [&](const std::string& a) { return others->contains(a); }))
      continue;
    want.insert(apis.begin(), apis.end());
    why = StrCat("APIs of ", engine::GetString(csv, {"metadata", "name"}), " added");
    break;
  }
  if (why.empty()) {
    // Pruned: APIs no CSV provides, unless a CSV still Pending provides
    // one the annotation lacks (its APIs are on their way).
    std::set<std::string> provided;
    for (const Json* each : csvs) {
      const Json& csv = *each;
      std::set<std::string> apis = CsvProvidedApis(csv);
      const std::string phase = S(engine::Path(csv, {"status"}), "phase");
      const bool pending = (phase.empty() || phase == "Pending") &&
                           !engine::Path(csv, {"metadata", "deletionTimestamp"}).is_string();
      for (const std::string& a : apis)
        if (!have.contains(a) && pending) return;
      provided.insert(apis.begin(), apis.end());
    }
    std::erase_if(want, [&](const std::string& a) { return !provided.contains(a); });
    if (want.size() == have.size()) return;
    why = "APIs no CSV of the namespace provides removed";
  }
  Json obj = og;
  obj.erase("status");
  obj["metadata"]["annotations"][std::string(kProvidedApis)] = absl::StrJoin(want, ",");
  obj["metadata"]["resourceVersion"] =
      Precondition(c.world, "OperatorGroup", o->ns(), o->name(),
                   engine::GetString(og, {"metadata", "resourceVersion"}));
  c.emit.Update(obj);
  c.emit.Note(StrCat("OperatorGroup ", o->ns(), "/", o->name()), "state", StrCat(kProvidedApis, ": ", why));
}

}  // namespace recon::olm
