#include "adapters/sim/olm_executor.h"

#include <algorithm>
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

// The ClusterServiceVersion OLM's executor creates for a bundle.
Json CsvObject(const OlmBundle& b, const std::string& csv, const std::string& ns,
               const std::string& replaces) {
  Json props =
      Json{{"properties",
            Json::array({Json{{"type", "olm.package"},
                              {"value", Json{{"packageName", b.package}, {"version", b.version}}}}})}};
  Json body = {
      {"apiVersion", kApiVersion},
      {"kind", "ClusterServiceVersion"},
      {"metadata", Json{{"name", csv},
                        {"namespace", ns},
                        {"annotations", Json{{"operatorframework.io/properties", engine::Dump(props)}}}}},
      // displayName and install are required by the real CSV CRD.
      {"spec",
       Json{{"displayName", b.package},
            {"install", Json{{"strategy", "deployment"}, {"spec", Json{{"deployments", Json::array()}}}}},
            {"version", b.version},
            {"customresourcedefinitions", Json{{"owned", b.owned}}}}}};
  if (!replaces.empty()) body["spec"]["replaces"] = replaces;
  // OLM labels an operator's CSV with the operator (package.namespace).
  body["metadata"]["labels"] = Json{{recon::StrCat("operators.coreos.com/", b.package, ".", ns), ""}};
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
  Json csv = CsvObject(bundle->second, bundle->first, "", bundle->second.replaces);
  csv["metadata"].erase("namespace");
  csv["metadata"].erase("labels");
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
// orphaned. (With the stand-in carrying plans out, a plan is judged when it
// would run.)
std::vector<ControllerWrite> OrphanedPlans(const std::string& ns, const ObjectStore& objects) {
  std::vector<ControllerWrite> out;
  for (const auto& [key, ip] : InNamespace(objects, "InstallPlan", ns))
    if (Orphaned(ip, ns, objects)) out.push_back({kSecond / 2, "delete", ip});
  return out;
}

}  // namespace

Controller OlmInstallPlanExecutor(std::shared_ptr<const OlmBundles> bundles, OlmExecutorOptions options) {
  auto done = std::make_shared<std::set<std::string>>();  // plan uids carried out
  // The bundle an unpack Job's image is (the first by name, as a scan would find).
  auto by_image = std::make_shared<std::map<std::string, std::string>>();
  for (const auto& [name, b] : *bundles)
    if (!b.image.empty()) by_image->emplace(b.image, name);
  return [bundles, done, options, by_image](const engine::EventRecord& e,
                                  const ObjectStore& objects) -> std::vector<ControllerWrite> {
    if (e.type == engine::EventType::kDeleted) {
      if (options.plans || e.object.group != kGroup || e.object.kind != "Subscription") return {};
      return OrphanedPlans(e.object.ns, objects);
    }
    if (!options.plans && e.object.group == "batch" && e.object.kind == "Job")
      return RunUnpackJob(e, objects, *bundles, *by_image);
    if (e.object.group != kGroup) return {};
    if (e.object.kind == "ClusterServiceVersion") {
      std::vector<ControllerWrite> out = options.plans ? std::vector<ControllerWrite>{} : CsvSucceeded(e);
      for (auto& w : ReplacedCsvs(e, objects)) out.push_back(std::move(w));
      return out;
    }
    if (e.object.kind != "InstallPlan" || !options.plans) return {};
    auto ip = engine::ParseJson(e.body);
    if (!ip.ok()) return {};
    const Json& approved = engine::Path(*ip, {"spec", "approved"});
    std::string phase = engine::GetString(*ip, {"status", "phase"});
    // A plan without a phase has not had its status written yet (a create's
    // .status is dropped): OLM's executor waits for Installing too.
    if (!approved.is_boolean() || !approved.get<bool>() || phase.empty() || phase == "Complete" ||
        phase == "Failed")
      return {};
    std::string uid = engine::GetString(*ip, {"metadata", "uid"});
    if (!done->insert(uid).second) return {};
    const std::string ns = e.object.ns, plan = e.object.name;
    std::vector<ControllerWrite> out;
    // A late plan for a subscription the user deleted would leave a CSV no
    // subscription refers to: it is collected instead of carried out.
    if (Orphaned(*ip, ns, objects)) {
      out.push_back({kSecond / 2, "delete", *ip});
      return out;
    }
    // The CSVs installed now, by package (from their properties annotation).
    std::map<std::string, std::string> installed;
    for (const auto& [key, obj] : InNamespace(objects, "ClusterServiceVersion", ns)) {
      auto c = (*bundles).find(key.name);
      if (c != (*bundles).end()) installed[c->second.package] = key.name;
    }
    // Whether the bundle `csv` is newer than `older` (their versions).
    auto supersedes = [&](const std::string& csv, const std::string& older) {
      auto a = bundles->find(csv), b = bundles->find(older);
      return a == bundles->end() || b == bundles->end() || a->second.rank > b->second.rank;
    };
    Json steps = Json::array();
    const Json& names = engine::Path(*ip, {"spec", "clusterServiceVersionNames"});
    for (const Json& n : names.is_array() ? names : Json::array()) {
      if (!n.is_string()) continue;
      const std::string csv = n.get<std::string>();
      steps.push_back(Json{
          {"resolving", csv},
          {"resource",
           Json{
               {"group", kGroup}, {"version", "v1alpha1"}, {"kind", "ClusterServiceVersion"}, {"name", csv}}},
          {"status", "Created"}});
      auto c = (*bundles).find(csv);
      if (c == (*bundles).end()) continue;  // not a bundle the soak knows: left to fail
      const std::string old = installed[c->second.package];
      if (old == csv) continue;  // already there: the step is "Present"
      // OLM's resolver makes the new CSV replace the installed one (by
      // replaces, skips or skipRange); a fresh install keeps the bundle's
      // own replaces. A plan carried out late (its create was retried) may
      // install a CSV older than the one there: it replaces nothing.
      const bool upgrade = !old.empty() && supersedes(csv, old);
      const std::string replaces = upgrade ? old : c->second.replaces;
      Json body = CsvObject(c->second, csv, ns, replaces);
      out.push_back({kSecond, "create", body});
      body["status"] = Json{{"phase", "Succeeded"}, {"reason", "InstallSucceeded"}};
      out.push_back({kSecond + kSecond / 2, "updateStatus", body});
      // The CSV it replaces goes once it has succeeded (ReplacedCsvs).
    }
    // Subscription steps (a dependency's generated subscription).
    const Json& plan_steps = engine::Path(*ip, {"status", "plan"});
    for (const Json& st : plan_steps.is_array() ? plan_steps : Json::array()) {
      if (engine::GetString(st, {"resource", "kind"}) != "Subscription") continue;
      auto sub = engine::ParseJson(engine::GetString(st, {"resource", "manifest"}));
      if (!sub.ok()) continue;
      (*sub)["metadata"]["annotations"] = Json{{"olm.generated-by", plan}};
      out.push_back({kSecond, "create", *sub});
      steps.push_back(st);
    }
    Json status = engine::Path(*ip, {"status"}).is_object() ? (*ip)["status"] : Json::object();
    status["phase"] = "Complete";
    if (!status.contains("plan")) status["plan"] = steps;
    Json done_ip = *ip;
    done_ip["status"] = status;
    out.push_back({2 * kSecond, "updateStatus", done_ip});
    return out;
  };
}

}  // namespace recon::sim
