#include "adapters/sim/olm_stand_in.h"

#include <map>
#include <utility>
#include <vector>

#include "base/strings.h"

namespace recon::sim {
namespace {

using engine::Json;

constexpr char kGroup[] = "operators.coreos.com";
constexpr char kApiVersion[] = "operators.coreos.com/v1alpha1";

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
  return body;
}

constexpr int64_t kSecond = 1'000'000'000;

// The objects of one OLM kind in one namespace: a range of the store's map
// (ordered by group, kind, namespace, name), not a scan of the cluster.
std::vector<std::pair<const ObjectKey&, const Json&>> InNamespace(const ObjectStore& objects, const char* kind,
                                                                  const std::string& ns) {
  std::vector<std::pair<const ObjectKey&, const Json&>> out;
  const auto& all = objects.objects();
  for (auto it = all.lower_bound(ObjectKey{kGroup, kind, ns, ""});
       it != all.end() && it->first.group == kGroup && it->first.kind == kind && it->first.ns == ns; ++it)
    out.emplace_back(it->first, it->second);
  return out;
}

Json CsvRef(const std::string& name, const std::string& ns) {
  return Json{{"apiVersion", kApiVersion},
              {"kind", "ClusterServiceVersion"},
              {"metadata", Json{{"name", name}, {"namespace", ns}}}};
}

// OLM's operator on a CSV that succeeded: a CSV of the namespace that
// another Succeeded one replaces (spec.replaces) is deleted, whichever of
// the two came first. Judged on every CSV change, not when a plan starts:
// two plans carried out at once (the newer planned while the older had not
// run) each see no CSV of the package yet, and the older CSV must still
// go once the newer one has succeeded.
std::vector<ControllerWrite> ReplacedCsvs(const engine::EventRecord& e, const ObjectStore& objects) {
  auto csv = engine::ParseJson(e.body);
  if (!csv.ok() || engine::GetString(*csv, {"status", "phase"}) != "Succeeded") return {};
  const std::string& ns = e.object.ns;
  const std::string& name = e.object.name;
  std::vector<ControllerWrite> out;
  const std::string replaces = engine::GetString(*csv, {"spec", "replaces"});
  if (!replaces.empty() && replaces != name &&
      objects.Get(ObjectKey{kGroup, "ClusterServiceVersion", ns, replaces}) != nullptr)
    out.push_back({kSecond / 2, "delete", CsvRef(replaces, ns)});
  for (const auto& [key, obj] : InNamespace(objects, "ClusterServiceVersion", ns)) {
    if (key.name == name) continue;
    if (engine::GetString(obj, {"spec", "replaces"}) == name &&
        engine::GetString(obj, {"status", "phase"}) == "Succeeded") {
      out.push_back({kSecond / 2, "delete", CsvRef(name, ns)});
      break;
    }
  }
  return out;
}

// The kubelet running a bundle unpack Job (bundle_lookup.h's UnpackJob):
// what `opm alpha bundle extract` would write into the ConfigMap it names,
// from the bundle whose image the Job pulls (a CSV built from the bundle,
// as the catalogs of datasets/ carry no manifests), then the Job Complete.
// An image no bundle has: the Job fails as a pull that never succeeds.
std::vector<ControllerWrite> RunUnpackJob(const engine::EventRecord& e, const ObjectStore& objects,
                                          const OlmBundles& bundles,
                                          const std::map<std::string, std::string>& by_image) {
  if (e.type != engine::EventType::kAdded) return {};
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
  filled["metadata"]["annotations"] = Json{{"olm.sourceImage", image}};
  out.push_back({kSecond, "update", filled});
  done["status"] = Json{{"succeeded", 1}, {"conditions", Json::array({Json{{"type", "Complete"}, {"status", "True"}}})}};
  out.push_back({kSecond + kSecond / 4, "updateStatus", done});
  return out;
}

// The package of a CSV, from the properties OLM's catalog operator records on it.
std::string CsvPackage(const Json& csv) {
  auto props =
      engine::ParseJson(engine::GetString(csv, {"metadata", "annotations", "operatorframework.io/properties"}));
  if (!props.ok()) return "";
  const Json& list = engine::Path(*props, {"properties"});
  for (const Json& p : list.is_array() ? list : Json::array())
    if (engine::GetString(p, {"type"}) == "olm.package") return engine::GetString(p, {"value", "packageName"});
  return "";
}

// OLM's olm operator on a CSV the agent created (no phase yet): its
// Operator-API label (package.namespace, which users delete an operator's
// CSVs by), then Succeeded.
std::vector<ControllerWrite> CsvSucceeded(const engine::EventRecord& e) {
  auto csv = engine::ParseJson(e.body);
  if (!csv.ok() || !engine::GetString(*csv, {"status", "phase"}).empty()) return {};
  std::vector<ControllerWrite> out;
  if (std::string pkg = CsvPackage(*csv); !pkg.empty()) {
    Json labelled = *csv;
    labelled["metadata"]["labels"][recon::StrCat("operators.coreos.com/", pkg, ".", e.object.ns)] = "";
    out.push_back({kSecond / 4, "update", std::move(labelled)});
  }
  (*csv)["status"] = Json{{"phase", "Succeeded"}, {"reason", "InstallSucceeded"}};
  out.push_back({kSecond / 2, "updateStatus", *csv});
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

}  // namespace

Controller OlmClusterStandIn(std::shared_ptr<const OlmBundles> bundles) {
  // The bundle an unpack Job's image is (the first by name, as a scan would find).
  auto by_image = std::make_shared<std::map<std::string, std::string>>();
  for (const auto& [name, b] : *bundles)
    if (!b.image.empty()) by_image->emplace(b.image, name);
  return [bundles, by_image](const engine::EventRecord& e,
                             const ObjectStore& objects) -> std::vector<ControllerWrite> {
    if (e.type == engine::EventType::kDeleted) {
      if (e.object.group != kGroup || e.object.kind != "Subscription") return {};
      return OrphanedPlans(e.object.ns, objects);
    }
    if (e.object.group == "batch" && e.object.kind == "Job") return RunUnpackJob(e, objects, *bundles, *by_image);
    if (e.object.group != kGroup || e.object.kind != "ClusterServiceVersion") return {};
    std::vector<ControllerWrite> out = CsvSucceeded(e);
    for (auto& w : ReplacedCsvs(e, objects)) out.push_back(std::move(w));
    return out;
  };
}

}  // namespace recon::sim
