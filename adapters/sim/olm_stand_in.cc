#include "adapters/sim/olm_stand_in.h"

#include <map>
#include <set>
#include <utility>
#include <vector>

#include "base/strings.h"

namespace recon::sim {
namespace {

using engine::Json;

constexpr char kGroup[] = "operators.coreos.com";
constexpr char kApiVersion[] = "operators.coreos.com/v1alpha1";

std::string LowerPlural(const std::string& kind) {
  std::string out;
  for (char c : kind) out.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
  return out + "s";
}

// An owned CRD's name as the API server requires it (lower-case plural.group).
std::string CrdName(const Json& owned) {
  const std::string name = engine::GetString(owned, {"name"});
  const size_t dot = name.find('.');
  return recon::StrCat(LowerPlural(engine::GetString(owned, {"kind"})),
                       dot == std::string::npos ? "" : name.substr(dot));
}

// Every version any bundle gives each CRD (by CrdName): a bundle's CRD
// serves them all, so that no upgrade drops a version the cluster stored
// (the catalogs carry no manifests; a real bundle's CRD keeps its old
// versions, and one that drops a stored version fails the plan, as
// upstream's "risk of data loss" check says: cert-manager 1.5.4 -> 1.6.0
// hung there when each bundle's CRD served only the CSV's version).
using CrdVersions = std::map<std::string, std::set<std::string>>;
CrdVersions AllCrdVersions(const OlmBundles& bundles) {
  CrdVersions out;
  for (const auto& [name, b] : bundles)
    for (const Json& o : b.owned)
      if (std::string v = engine::GetString(o, {"version"}); !v.empty()) out[CrdName(o)].insert(std::move(v));
  return out;
}

// The manifests of the CSV's owned CRDs, as a bundle carries them: one per
// name, storing the version the CSV lists last for it.
std::vector<Json> CrdObjects(const Json& csv, const CrdVersions& versions) {
  std::map<std::string, Json> by_name;
  for (const Json& o : engine::Path(csv, {"spec", "customresourcedefinitions", "owned"})) {
    const std::string name = engine::GetString(o, {"name"}), kind = engine::GetString(o, {"kind"});
    const size_t dot = name.find('.');
    if (dot == std::string::npos) continue;
    const std::string singular = name.substr(0, dot - 1), storage = engine::GetString(o, {"version"});
    std::set<std::string> served = {storage};
    if (auto it = versions.find(name); it != versions.end())
      served.insert(it->second.begin(), it->second.end());
    Json list = Json::array();
    for (const std::string& v : served)
      list.push_back(Json{
          {"name", v},
          {"served", true},
          {"storage", v == storage},
          {"schema",
           {{"openAPIV3Schema", {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}}}}});
    by_name[name] = Json{{"apiVersion", "apiextensions.k8s.io/v1"},
                         {"kind", "CustomResourceDefinition"},
                         {"metadata", {{"name", name}}},
                         {"spec",
                          {{"group", name.substr(dot + 1)},
                           {"names",
                            {{"kind", kind},
                             {"listKind", kind + "List"},
                             {"plural", name.substr(0, dot)},
                             {"singular", singular}}},
                           {"scope", "Namespaced"},
                           {"versions", std::move(list)}}}};
  }
  std::vector<Json> out;
  for (auto& [name, crd] : by_name) out.push_back(std::move(crd));
  return out;
}

// The CSV an unpacked bundle holds: built from the bundle's properties (the
// catalogs of datasets/ carry no manifests).
Json CsvObject(const OlmBundle& b, const std::string& csv) {
  Json props =
      Json{{"properties",
            Json::array({Json{{"type", "olm.package"},
                              {"value", Json{{"packageName", b.package}, {"version", b.version}}}}})}};
  Json body = {
      {"apiVersion", kApiVersion},
      {"kind", "ClusterServiceVersion"},
      {"metadata",
       Json{{"name", csv}, {"annotations", Json{{"operatorframework.io/properties", engine::Dump(props)}}}}},
      // displayName and install are required by the real CSV CRD.
      {"spec",
       Json{{"displayName", b.package},
            {"install", Json{{"strategy", "deployment"}, {"spec", Json{{"deployments", Json::array()}}}}},
            {"version", b.version},
            {"customresourcedefinitions", Json{{"owned", b.owned}}}}}};
  if (!b.replaces.empty()) body["spec"]["replaces"] = b.replaces;
  body["spec"]["installModes"] = Json::array({Json{{"type", "OwnNamespace"}, {"supported", true}},
                                              Json{{"type", "SingleNamespace"}, {"supported", true}},
                                              Json{{"type", "MultiNamespace"}, {"supported", false}},
                                              Json{{"type", "AllNamespaces"}, {"supported", true}}});
  {
    // Owned CRDs named as the API server requires (lower-case plural.group),
    // since the bundle carries their manifests (CrdObjects).
    Json owned = Json::array();
    for (Json crd : b.owned) {
      crd["name"] = CrdName(crd);
      owned.push_back(std::move(crd));
    }
    body["spec"]["customresourcedefinitions"]["owned"] = std::move(owned);
    // What an operator bundle installs: its controller's Deployment, run
    // as a service account the CSV's permissions are granted to.
    const std::string sa = recon::StrCat(b.package, "-controller");
    const Json labels = {{"app", b.package}};
    Json pod = {{"serviceAccountName", sa},
                {"containers", Json::array({Json{{"name", "manager"}, {"image", b.image.empty() ? "operator:latest" : b.image}}})}};
    Json dspec = {{"replicas", 1},
                  {"selector", {{"matchLabels", labels}}},
                  {"template", {{"metadata", {{"labels", labels}}}, {"spec", pod}}}};
    Json& install = body["spec"]["install"]["spec"];
    install["deployments"] = Json::array({Json{{"name", recon::StrCat(b.package, "-controller-manager")}, {"spec", dspec}}});
    install["permissions"] = Json::array({Json{
        {"serviceAccountName", sa},
        {"rules", Json::array({Json{{"apiGroups", {""}}, {"resources", {"configmaps"}}, {"verbs", {"get", "list", "watch"}}}})}}});
  }
  return body;
}

constexpr int64_t kSecond = 1'000'000'000;

// The objects of one OLM kind in one namespace: a range of the store's map
// (ordered by group, kind, namespace, name), not a scan of the cluster.
std::vector<std::pair<const ObjectKey&, const Json&>> InNamespace(const ObjectStore& objects,
                                                                  const char* kind, const std::string& ns,
                                                                  const std::string& group = kGroup) {
  std::vector<std::pair<const ObjectKey&, const Json&>> out;
  const auto& all = objects.objects();
  for (auto it = all.lower_bound(ObjectKey{group, kind, ns, ""});
       it != all.end() && it->first.group == group && it->first.kind == kind && it->first.ns == ns; ++it)
    out.emplace_back(it->first, it->second);
  return out;
}

// Kubernetes' garbage collector after a delete: the objects of the
// namespace, of the kinds the deleted one may own, whose owner references
// all point at it or at other objects gone (by uid) are deleted; those
// another owner still holds lose their references to the gone ones (the
// collector's patch of dangling references). Only the kinds an olm
// operator's objects own: a CSV its OperatorCondition, ServiceAccounts,
// Roles, RoleBindings and Deployments; an OperatorCondition its Role and
// RoleBinding.
std::vector<ControllerWrite> Dependents(const records::EventRecord& e, const ObjectStore& objects) {
  std::vector<std::pair<std::string, const char*>> kinds;
  if (e.object.group == kGroup && e.object.kind == "ClusterServiceVersion")
    kinds = {{kGroup, "OperatorCondition"},
             {"", "ServiceAccount"},
             {"rbac.authorization.k8s.io", "Role"},
             {"rbac.authorization.k8s.io", "RoleBinding"},
             {"apps", "Deployment"}};
  if (e.object.group == kGroup && e.object.kind == "OperatorCondition")
    kinds = {{"rbac.authorization.k8s.io", "Role"}, {"rbac.authorization.k8s.io", "RoleBinding"}};
  if (kinds.empty()) return {};
  auto gone = engine::ParseJson(e.body);
  const std::string uid = gone.ok() ? engine::GetString(*gone, {"metadata", "uid"}) : "";
  if (uid.empty()) return {};
  std::set<std::string> live_uids;  // of the namespace's objects of the owner's kind
  for (const auto& [key, o] : InNamespace(objects, e.object.kind.c_str(), e.object.ns, e.object.group))
    live_uids.insert(engine::GetString(o, {"metadata", "uid"}));
  std::vector<ControllerWrite> out;
  for (const auto& [group, kind] : kinds) {
    for (const auto& [key, o] : InNamespace(objects, kind, e.object.ns, group)) {
      const Json& refs = engine::Path(o, {"metadata", "ownerReferences"});
      bool mine = false, kept = false;
      std::vector<std::string> dangling;  // references to owners gone
      for (const Json& r : refs.is_array() ? refs : Json::array()) {
        const std::string u = engine::GetString(r, {"uid"});
        if (engine::GetString(r, {"kind"}) != e.object.kind || (u != uid && live_uids.contains(u))) {
          kept = true;
          continue;
        }
        mine |= u == uid;
        dangling.push_back(u);
      }
      if (!mine) continue;
      if (!kept) {
        out.push_back({kSecond / 2, "delete", o});
        continue;
      }
      ControllerWrite patch{kSecond / 2, "update", o};
      patch.drop_owners = std::move(dangling);
      out.push_back(std::move(patch));
    }
  }
  return out;
}

// The kubelet running a bundle unpack Job (bundle_lookup.h's UnpackJob):
// what `opm alpha bundle extract` would write into the ConfigMap it names,
// from the bundle whose image the Job pulls (a CSV built from the bundle,
// as the catalogs of datasets/ carry no manifests), then the Job Complete.
// An image no bundle has: the Job fails as a pull that never succeeds.
std::vector<ControllerWrite> RunUnpackJob(const records::EventRecord& e, const ObjectStore& objects,
                                          const OlmBundles& bundles,
                                          const std::map<std::string, std::string>& by_image,
                                          const CrdVersions& crd_versions) {
  if (e.type != records::EventType::kAdded) return {};
  auto job = engine::ParseJson(e.body);
  if (!job.ok()) return {};
  const Json& spec = engine::Path(*job, {"spec", "template", "spec"});
  std::string image, cm, ns;
  for (const Json& c : engine::Path(spec, {"initContainers"}).is_array() ? spec["initContainers"] : Json::array())
    if (engine::GetString(c, {"name"}) == "pull") image = engine::GetString(c, {"image"});
  const Json& containers = engine::Path(spec, {"containers"});
  const Json& command = containers.is_array() && !containers.empty() ? engine::Path(containers[0], {"command"})
                                                                     : engine::Path(spec, {"none"});
  for (size_t i = 0; command.is_array() && i + 1 < command.size(); ++i) {
    if (command[i] == "-c") cm = command[i + 1].get<std::string>();
    if (command[i] == "-n") ns = command[i + 1].get<std::string>();
  }
  if (image.empty() || cm.empty()) return {};
  std::vector<ControllerWrite> out;
  Json done = *job;
  const Json* live = objects.Get(ObjectKey{"", "ConfigMap", ns, cm});
  auto named = by_image.find(image);
  auto bundle = named == by_image.end() ? bundles.end() : bundles.find(named->second);
  if (bundle == bundles.end() || live == nullptr) {
    done["status"] = Json{{"failed", 4},
                          {"conditions", Json::array({Json{{"type", "Failed"},
                                                           {"status", "True"},
                                                           {"reason", "BackoffLimitExceeded"},
                                                           {"message", "Job has reached the specified backoff limit"}}})}};
    out.push_back({kSecond, "updateStatus", done});
    return out;
  }
  Json csv = CsvObject(bundle->second, bundle->first);
  Json filled = *live;
  filled["data"] = Json{{recon::StrCat(bundle->first, ".clusterserviceversion.json"), engine::Dump(csv)}};
  for (const Json& crd : CrdObjects(csv, crd_versions))
    filled["data"][recon::StrCat(engine::GetString(crd, {"metadata", "name"}), ".crd.json")] =
        engine::Dump(crd);
  filled["metadata"]["annotations"] = Json{{"olm.sourceImage", image}};
  out.push_back({kSecond, "update", filled});
  done["status"] = Json{{"succeeded", 1}, {"conditions", Json::array({Json{{"type", "Complete"}, {"status", "True"}}})}};
  out.push_back({kSecond + kSecond / 4, "updateStatus", done});
  return out;
}

// Kubernetes' garbage collector: a plan whose owners (Subscriptions) are all gone.
bool Orphaned(const Json& ip, const std::string& ns, const ObjectStore& objects) {
  const Json& owners = engine::Path(ip, {"metadata", "ownerReferences"});
  bool owned = false, alive = false;
  for (const Json& o : owners.is_array() ? owners : Json::array()) {
    if (engine::GetString(o, {"kind"}) != "Subscription") continue;
    owned = true;
    const Json* sub = objects.Get(ObjectKey{kGroup, "Subscription", ns, engine::GetString(o, {"name"})});
    alive |= sub != nullptr && (engine::GetString(o, {"uid"}).empty() ||
                                engine::GetString(*sub, {"metadata", "uid"}) == engine::GetString(o, {"uid"}));
  }
  return owned && !alive;
}

// After a Subscription is deleted, the plans of its namespace it leaves
// orphaned.
std::vector<ControllerWrite> OrphanedPlans(const std::string& ns, const ObjectStore& objects) {
  std::vector<ControllerWrite> out;
  for (const auto& [key, ip] : InNamespace(objects, "InstallPlan", ns))
    if (Orphaned(ip, ns, objects)) out.push_back({kSecond / 2, "delete", ip});
  return out;
}

// kube-apiserver's CRD controller: a CRD not Established yet gets its
// names accepted and is Established.
std::vector<ControllerWrite> EstablishCrd(const records::EventRecord& e) {
  auto crd = engine::ParseJson(e.body);
  if (!crd.ok()) return {};
  for (const Json& c : engine::Path(*crd, {"status", "conditions"}))
    if (engine::GetString(c, {"type"}) == "Established" && engine::GetString(c, {"status"}) == "True") return {};
  Json& status = (*crd)["status"];
  status["acceptedNames"] = engine::Path(*crd, {"spec", "names"});
  status["conditions"] = Json::array(
      {Json{{"type", "NamesAccepted"}, {"status", "True"}, {"reason", "NoConflicts"}, {"message", "no conflicts found"}},
       Json{{"type", "Established"}, {"status", "True"}, {"reason", "InitialNamesAccepted"},
            {"message", "the initial names have been accepted"}}});
  Json stored = Json::array();
  for (const Json& v : engine::Path(*crd, {"spec", "versions"}))
    if (engine::Path(v, {"storage"}) == Json(true)) stored.push_back(engine::GetString(v, {"name"}));
  status["storedVersions"] = stored;
  return {{kSecond / 10, "updateStatus", std::move(*crd)}};
}

// Kubernetes' garbage collector on an object that names only owners gone
// already (by uid): created after its owner's delete (an olm operator
// that had not seen the delete yet), it goes at once too.
std::vector<ControllerWrite> OwnersGone(const records::EventRecord& e, const ObjectStore& objects) {
  const char* owner = nullptr;
  if (e.object.group == kGroup && e.object.kind == "OperatorCondition") owner = "ClusterServiceVersion";
  if (e.object.group == "rbac.authorization.k8s.io" &&
      (e.object.kind == "Role" || e.object.kind == "RoleBinding"))
    owner = "OperatorCondition";
  if (owner == nullptr) return {};
  auto o = engine::ParseJson(e.body);
  if (!o.ok()) return {};
  const Json& refs = engine::Path(*o, {"metadata", "ownerReferences"});
  if (!refs.is_array() || refs.empty()) return {};
  std::set<std::string> live;
  for (const auto& [key, x] : InNamespace(objects, owner, e.object.ns, kGroup))
    live.insert(engine::GetString(x, {"metadata", "uid"}));
  for (const Json& r : refs) {
    const std::string uid = engine::GetString(r, {"uid"});
    if (engine::GetString(r, {"kind"}) != owner || uid.empty() || live.contains(uid)) return {};
  }
  return {{kSecond / 2, "delete", *std::move(o)}};
}

// kube-controller-manager and a kubelet: a Deployment whose spec is not
// observed yet rolls out at once, its replicas updated and Available.
std::vector<ControllerWrite> RollOutDeployment(const records::EventRecord& e) {
  auto d = engine::ParseJson(e.body);
  if (!d.ok()) return {};
  const Json& gen = engine::Path(*d, {"metadata", "generation"});
  const Json& seen = engine::Path(*d, {"status", "observedGeneration"});
  const int64_t generation = gen.is_number_integer() ? gen.get<int64_t>() : 1;
  if (seen.is_number_integer() && seen.get<int64_t>() >= generation) return {};
  const Json& r = engine::Path(*d, {"spec", "replicas"});
  const int64_t replicas = r.is_number_integer() ? r.get<int64_t>() : 1;
  (*d)["status"] = Json{{"observedGeneration", generation},
                        {"replicas", replicas},
                        {"updatedReplicas", replicas},
                        {"readyReplicas", replicas},
                        {"availableReplicas", replicas},
                        {"conditions", Json::array({Json{{"type", "Available"},
                                                         {"status", "True"},
                                                         {"reason", "MinimumReplicasAvailable"},
                                                         {"message", "Deployment has minimum availability."}},
                                                    Json{{"type", "Progressing"},
                                                         {"status", "True"},
                                                         {"reason", "NewReplicaSetAvailable"},
                                                         {"message", "ReplicaSet has successfully progressed."}}})}};
  return {{kSecond, "updateStatus", std::move(*d)}};
}

}  // namespace

Controller OlmClusterStandIn(std::shared_ptr<const OlmBundles> bundles) {
  // The bundle an unpack Job's image is (the first by name, as a scan would find).
  auto by_image = std::make_shared<std::map<std::string, std::string>>();
  for (const auto& [name, b] : *bundles)
    if (!b.image.empty()) by_image->emplace(b.image, name);
  auto crd_versions = std::make_shared<const CrdVersions>(AllCrdVersions(*bundles));
  return [bundles, by_image, crd_versions](const records::EventRecord& e,
                                           const ObjectStore& objects) -> std::vector<ControllerWrite> {
    if (e.type == records::EventType::kDeleted) {
      if (auto dependents = Dependents(e, objects); !dependents.empty()) return dependents;
      if (e.object.group != kGroup || e.object.kind != "Subscription") return {};
      return OrphanedPlans(e.object.ns, objects);
    }
    if (e.object.group == "batch" && e.object.kind == "Job")
      return RunUnpackJob(e, objects, *bundles, *by_image, *crd_versions);
    if (e.type == records::EventType::kAdded)
      if (auto orphan = OwnersGone(e, objects); !orphan.empty()) return orphan;
    // A plan created after its Subscription's delete (a catalog operator
    // that had not seen it yet): collected as well, or it runs on (the olm
    // soak's fault-free leg once ended with its CSV beside the new
    // subscription's, both taking the same Deployment over).
    if (e.type == records::EventType::kAdded && e.object.group == kGroup && e.object.kind == "InstallPlan")
      if (auto ip = engine::ParseJson(e.body); ip.ok() && Orphaned(*ip, e.object.ns, objects))
        return {{kSecond / 2, "delete", *std::move(ip)}};
    if (e.object.group == "apiextensions.k8s.io" && e.object.kind == "CustomResourceDefinition")
      return EstablishCrd(e);
    if (e.object.group == "apps" && e.object.kind == "Deployment") return RollOutDeployment(e);
    return {};
  };
}

}  // namespace recon::sim
