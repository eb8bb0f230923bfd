#include "domains/olm/ns_index.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "base/strings.h"
#include "domains/olm/install/bundle_lookup.h"
#include "domains/olm/reducer.h"

namespace recon::olm {
namespace {

constexpr std::string_view kKinds[] = {"Subscription", "InstallPlan", "ClusterServiceVersion",
                                       "CatalogSource", "OperatorGroup"};

std::string S(const Json& j, std::string_view k) { return engine::GetString(j, {k}); }

int64_t Int(const Json& j) {
  if (j.is_number_integer()) return j.get<int64_t>();
  if (j.is_number_unsigned()) return static_cast<int64_t>(j.get<uint64_t>());
  return 0;
}

SubView MakeSub(const engine::Object& o, const Json& j) {
  SubView s;
  s.seq = o.seq();
  s.valid = j.is_object();
  if (!s.valid) return s;
  const Json& spec = engine::Path(j, {"spec"});
  s.package = S(spec, "name");
  s.channel = S(spec, "channel");
  s.source = S(spec, "source");
  s.source_ns = S(spec, "sourceNamespace");
  if (s.source_ns.empty()) s.source_ns = std::string(o.ns());
  s.starting_csv = S(spec, "startingCSV");
  s.approval = S(spec, "installPlanApproval");
  s.generated_by = engine::GetString(j, {"metadata", "annotations", "olm.generated-by"});
  s.uid = engine::GetString(j, {"metadata", "uid"});
  s.api_version = engine::GetString(j, {"apiVersion"}, kApiVersion);
  s.resource_version = engine::GetString(j, {"metadata", "resourceVersion"});
  const Json& seen = engine::Path(j, {"status"});
  s.seen_status = seen.is_object() && !seen.empty();
  s.status = Canonical(seen.is_object() ? seen : Json::object());
  s.status_exact = s.status == seen;
  if (s.seen_status && !s.status_exact) s.raw = seen;
  return s;
}

PlanView MakePlan(const engine::Object& o, const Json& j) {
  PlanView p;
  p.seq = o.seq();
  p.valid = j.is_object();
  p.generation = Int(engine::Path(j, {"spec", "generation"}));
  if (!p.valid) return p;
  p.approval = engine::GetString(j, {"spec", "approval"});
  const Json& names = engine::Path(j, {"spec", "clusterServiceVersionNames"});
  if (names.is_array())
    for (const Json& n : names)
      if (n.is_string()) p.csvs.push_back(n.get<std::string>());
  const Json& refs = engine::Path(j, {"metadata", "ownerReferences"});
  for (const Json& r : refs.is_array() ? refs : Json::array())
    if (engine::GetString(r, {"kind"}) == "Subscription") p.owners.push_back(engine::GetString(r, {"uid"}));
  const Json& seen = engine::Path(j, {"status"});
  p.seen_status = seen.is_object() && !seen.empty();
  p.seen = PlanFactsOf(seen.is_object() ? seen : Json::object());
  const Json& lookups = engine::Path(seen, {"bundleLookups"});
  for (const Json& l : lookups.is_array() ? lookups : Json::array())
    p.unpacks.push_back(UnpackName(engine::GetString(l, {"path"})));
  if (p.seen.phase == "Complete" || p.seen.phase == "Failed") return p;
  const Json& steps = engine::Path(seen, {"plan"});
  for (const Json& s : steps.is_array() ? steps : Json::array()) {
    const Json& r = engine::Path(s, {"resource"});
    const std::string group = S(r, "group"), kind = S(r, "kind");
    if ((group == "apiextensions.k8s.io" && kind == "CustomResourceDefinition") ||
        (group == "rbac.authorization.k8s.io" && (kind == "ClusterRole" || kind == "ClusterRoleBinding")))
      p.cluster_steps.push_back(StrCat(kind, "/", S(r, "name")));
  }
  return p;
}

constexpr const char* kStatusOrder[] = {
    "currentCSV",     "installedCSV",  "state",      "installPlanGeneration",
    "installPlanRef", "catalogHealth", "conditions", "lastUpdated"};
bool Empty(const Json& v) {
  return v.is_null() || (v.is_string() && v.get<std::string>().empty()) || (v.is_array() && v.empty());
}
}  // namespace

Json Canonical(const Json& s) {
  Json out = Json::object();
  for (const char* k : kStatusOrder) {
    auto it = s.find(k);
    if (it == s.end() || Empty(*it)) continue;
    out[k] = *it;
  }
  return out;
}

Json CanonicalMove(Json&& s) {
  Json out = Json::object();
  for (const char* k : kStatusOrder) {
    auto it = s.find(k);
    if (it == s.end() || Empty(*it)) continue;
    out[k] = std::move(*it);
  }
  return out;
}

PlanFacts PlanFactsOf(const Json& status) {
  PlanFacts f;
  f.phase = S(status, "phase");
  const Json& ipc = engine::Path(status, {"conditions"});
  if (ipc.is_array()) {
    for (const Json& cond : ipc) {
      if (S(cond, "type") != "Installed") continue;
      f.installed_message = S(cond, "message");
      if (S(cond, "status") == "False") f.failed_reason = S(cond, "reason");
    }
  }
  return f;
}

void OlmIndex::Build(const World& world) {
  Clear();
  for (std::string_view kind : kKinds) {
    for (const engine::Object* o : world.List(kGroup, kind)) Put(*o);
  }
}

bool OlmIndex::Update(const World& world, std::string_view kind, std::string_view ns, std::string_view name) {
  if (std::find(std::begin(kKinds), std::end(kKinds), kind) == std::end(kKinds)) return false;
  if (const engine::Object* o = world.Get(kGroup, kind, ns, name)) {
    Put(*o);
    return true;
  }
  auto it = ns_.find(ns);
  if (it == ns_.end()) return true;
  NsIndex& x = it->second;
  auto erase = [&](auto& m) {
    if (auto e = m.find(name); e != m.end()) m.erase(e);
  };
  if (kind == "Subscription") erase(x.subs);
  if (kind == "InstallPlan") {
    const std::set<std::string> before = UnpacksOf(ns);
    erase(x.plans);
    Reindex(ns, before);
  }
  if (kind == "ClusterServiceVersion") erase(x.csvs);
  if (kind == "CatalogSource") erase(x.catalogs);
  if (kind == "OperatorGroup") erase(x.groups);
  if (x.Empty()) ns_.erase(it);
  return true;
}

// The keys of unpack_users_ a namespace's plans are under: an unpack
// object's name, or "\x01Kind/name" for a running plan's cluster-scoped step.
std::set<std::string> OlmIndex::UnpacksOf(std::string_view ns) const {
  std::set<std::string> out;
  if (const NsIndex* x = Find(ns))
    for (const auto& [name, p] : x->plans) {
      out.insert(p.unpacks.begin(), p.unpacks.end());
      for (const std::string& s : p.cluster_steps) out.insert(StrCat("\x01", s));
    }
  return out;
}

void OlmIndex::Reindex(std::string_view ns, const std::set<std::string>& before) {
  const std::set<std::string> now = UnpacksOf(ns);
  for (const std::string& u : before) {
    if (now.contains(u)) continue;
    auto it = unpack_users_.find(u);
    if (it == unpack_users_.end()) continue;
    it->second.erase(std::string(ns));
    if (it->second.empty()) unpack_users_.erase(it);
  }
  for (const std::string& u : now) unpack_users_[u].insert(std::string(ns));
}

const std::set<std::string>* OlmIndex::UnpackUsers(std::string_view name) const {
  auto it = unpack_users_.find(name);
  return it == unpack_users_.end() ? nullptr : &it->second;
}

const std::set<std::string>* OlmIndex::StepUsers(std::string_view kind, std::string_view name) const {
  auto it = unpack_users_.find(StrCat("\x01", kind, "/", name));
  return it == unpack_users_.end() ? nullptr : &it->second;
}

const NsIndex* OlmIndex::Find(std::string_view ns) const {
  auto it = ns_.find(ns);
  return it == ns_.end() ? nullptr : &it->second;
}

void OlmIndex::Put(const engine::Object& o) {
  // Parsed here, not through Object::json(): the World would keep every
  // parsed tree (every InstallPlan's steps) for the rest of the run.
  auto parsed = engine::ParseJson(o.body());
  const Json j = parsed.ok() ? std::move(*parsed) : Json();
  NsIndex& x = ns_[std::string(o.ns())];
  std::string name(o.name());
  std::string_view kind = o.kind();
  if (kind == "Subscription") {
    x.subs[name] = MakeSub(o, j);
  } else if (kind == "InstallPlan") {
    const std::set<std::string> before = UnpacksOf(o.ns());
    x.plans[name] = MakePlan(o, j);
    Reindex(o.ns(), before);
  } else if (kind == "ClusterServiceVersion") {
    x.csvs[name] = CsvView{o.seq(), InstalledCsvOf(o, j), engine::GetString(j, {"status", "phase"}),
                           engine::GetString(j, {"spec", "replaces"})};
  } else if (kind == "CatalogSource") {
    x.catalogs[name] = CatalogSourceView{engine::GetString(j, {"metadata", "uid"}),
                                         static_cast<int>(Int(engine::Path(j, {"spec", "priority"})))};
  } else if (kind == "OperatorGroup") {
    x.groups[name] = GroupView{
        engine::GetString(j, {"metadata", "annotations",
                              "olm.operatorframework.io/exclude-global-namespace-resolution"}) == "true",
        engine::GetString(j, {"spec", "upgradeStrategy", "name"}) == "TechPreviewUnsafeFailForward"};
  }
}

}  // namespace recon::olm
