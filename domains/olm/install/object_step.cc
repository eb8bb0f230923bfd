// §A.5's table: every step kind but CRDs. A step in Unknown or NotPresent
// creates its object when the cluster does not have it, and otherwise
// takes the kind's already-exists path (nothing, a patch, or an update).
#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "base/strings.h"
#include "domains/olm/install/bundle_steps.h"
#include "domains/olm/install/json_values.h"
#include "domains/olm/install/step.h"

namespace recon::olm {
namespace {

using engine::Json;

constexpr std::string_view kOlmGroup = "operators.coreos.com";

// catalog/supportedresources.go: the other kinds a bundle may carry.
bool Supported(std::string_view kind) {
  for (std::string_view k : {"PrometheusRule", "ServiceMonitor", "PodDisruptionBudget", "PriorityClass",
                             "VerticalPodAutoscaler", "ConsoleYAMLSample", "ConsoleQuickStart",
                             "ConsoleCLIDownload", "ConsoleLink"})
    if (k == kind) return true;
  return false;
}

// How upstream's step ensurer wraps a failed create (catalog/step_ensurer.go).
std::string CreateError(std::string_view kind, std::string_view name, std::string_view err) {
  if (kind == "ClusterServiceVersion") return StrCat("error creating csv ", name, ": ", err);
  if (kind == "Subscription") return StrCat("error creating subscription ", name, ": ", err);
  if (kind == "ServiceAccount") return StrCat("error creating service account: ", err);
  if (kind == "Service") return StrCat("error creating service: ", err);
  if (kind == "Role" || kind == "RoleBinding" || kind == "ClusterRole" || kind == "ClusterRoleBinding" ||
      kind == "ConfigMap" || kind == "Secret") {
    std::string lower;
    for (char ch : std::string(kind)) lower.push_back(static_cast<char>(ch | 0x20));
    return StrCat("error creating ", lower, " ", name, ": ", err);
  }
  return StrCat("error creating unstructured object ", name, ": ", err);
}

std::string NotFound(std::string_view plural_group, std::string_view name) {
  return StrCat(plural_group, " \"", name, "\" not found");
}

// Adds the CSV as a non-blocking owner unless a reference to it is there.
void AddCsvOwner(Json& manifest, std::string_view csv) {
  Json& refs = manifest["metadata"]["ownerReferences"];
  if (!refs.is_array()) refs = Json::array();
  for (const Json& r : refs)
    if (engine::GetString(r, {"kind"}) == "ClusterServiceVersion" && engine::GetString(r, {"name"}) == csv)
      return;
  refs.push_back(CsvOwnerRef(csv));
}

// getUpdatedOwnerReferences: each CSV owner's uid read from the cluster.
// False with *wait set when that CSV is our own create not seen yet.
bool FillCsvUids(const StepContext& c, Json& manifest, StepOutcome* out) {
  Json& refs = manifest["metadata"]["ownerReferences"];
  if (!refs.is_array()) return true;
  for (Json& r : refs) {
    if (engine::GetString(r, {"kind"}) != "ClusterServiceVersion") continue;
    std::string csv = engine::GetString(r, {"name"});
    if (const Json* live = c.view.Get(kOlmGroup, "ClusterServiceVersion", c.ip_ns, csv)) {
      r["uid"] = engine::GetString(*live, {"metadata", "uid"});
      continue;
    }
    OwnCreate own = c.view.CreateOf(kOlmGroup, "ClusterServiceVersion", c.ip_ns, csv);
    if (own.state == OwnCreate::kInFlight || own.state == OwnCreate::kLanded) {
      out->in_flight = true;
      out->waiting_for = StrCat("ClusterServiceVersion ", csv);
      return false;
    }
    out->error = absl::NotFoundError(NotFound("clusterserviceversions.operators.coreos.com", csv));
    return false;
  }
  return true;
}

// The owned CRDs of the CSV that another CSV of the namespace owns too
// (the CSV step's check when the CSV is not one the plan was made for).
absl::Status CheckCrdOwners(const StepContext& c, const Json& csv) {
  const Json& owned = engine::Path(csv, {"spec", "customresourcedefinitions", "owned"});
  bool conflict = false;
  for (const Json& crd : ArrayOrEmpty(owned)) {
    std::string crd_name = engine::GetString(crd, {"name"});
    std::vector<std::string> owners;
    for (const Json* other : c.view.List(kOlmGroup, "ClusterServiceVersion", c.ip_ns)) {
      if (engine::GetString(*other, {"metadata", "name"}) == c.name) continue;
      const Json& theirs = engine::Path(*other, {"spec", "customresourcedefinitions", "owned"});
      for (const Json& t : ArrayOrEmpty(theirs))
        if (engine::GetString(t, {"name"}) == crd_name) owners.push_back(engine::GetString(*other, {"metadata", "name"}));
    }
    if (owners.size() > 1) {
      std::string list;
      for (const auto& o : owners) StrAppend(&list, list.empty() ? "" : " ", o);
      return absl::FailedPreconditionError(StrCat("error checking crd owners for: ", c.name, ": Existing CSVs [",
                                                  list, "] in namespace ", c.ip_ns, " all claim to own CRD ",
                                                  crd_name));
    }
    conflict |= owners.size() == 1;
  }
  if (conflict)
    return absl::FailedPreconditionError(
        StrCat("pre-existing CRD owners found for owned CRD(s) of dependent CSV ", c.name));
  return absl::OkStatus();
}

// What a two-way strategic merge from the live object to the manifest
// leaves: the live object's server fields, the manifest's labels,
// annotations, owners and content (fields it lacks are removed).
Json Patched(const Json& live, const Json& manifest) {
  Json out = Json{{"apiVersion", manifest.value("apiVersion", Json(""))},
                  {"kind", manifest.value("kind", Json(""))},
                  {"metadata", engine::Path(live, {"metadata"})}};
  Json& meta = out["metadata"];
  for (const char* k : {"labels", "annotations", "ownerReferences"}) {
    const Json& v = engine::Path(manifest, {"metadata", k});
    if (v.is_null()) {
      meta.erase(k);
    } else {
      meta[k] = v;
    }
  }
  for (auto it = manifest.begin(); it != manifest.end(); ++it)
    if (it.key() != "apiVersion" && it.key() != "kind" && it.key() != "metadata" && it.key() != "status")
      out[it.key()] = it.value();
  return out;
}

// Whether the patch would change the live object.
bool Changes(const Json& live, const Json& patched) {
  for (const char* k : {"labels", "annotations", "ownerReferences"})
    if (!SameValue(engine::Path(live, {"metadata", k}), engine::Path(patched, {"metadata", k}))) return true;
  std::set<std::string> keys;
  for (const Json* o : {&live, &patched})
    for (auto it = o->begin(); it != o->end(); ++it) keys.insert(it.key());
  for (const std::string& k : keys) {
    if (k == "apiVersion" || k == "kind" || k == "metadata" || k == "status") continue;
    if (!SameValue(engine::Path(live, {k}), engine::Path(patched, {k}))) return true;
  }
  return false;
}

// The already-exists path of the kinds that patch or update.
void Existing(const StepContext& c, std::string_view kind, const Json& live, Json desired, StepOutcome* out) {
  out->status = "Present";
  if (kind == "ClusterServiceVersion" || kind == "Subscription" || kind == "Secret") return;
  if (kind == "ServiceAccount") {
    // Keep the live secrets; owners are the union of live and desired.
    if (live.contains("secrets")) desired["secrets"] = live["secrets"];
    Json owners = engine::Path(live, {"metadata", "ownerReferences"}).is_array()
                      ? live["metadata"]["ownerReferences"]
                      : Json::array();
    const Json& mine = engine::Path(desired, {"metadata", "ownerReferences"});
    for (const Json& r : ArrayOrEmpty(mine)) {
      bool have = std::any_of(owners.begin(), owners.end(), [&](const Json& o) {
        return engine::GetString(o, {"uid"}) == engine::GetString(r, {"uid"});
      });
      if (!have) owners.push_back(r);
    }
    desired["metadata"]["ownerReferences"] = owners;
  }
  if (kind == "Service") {
    const Json& ip = engine::Path(live, {"spec", "clusterIP"});
    if (!ip.is_null()) desired["spec"]["clusterIP"] = ip;  // immutable: the live one is kept
  }
  if (kind == "ClusterRole" || kind == "ClusterRoleBinding") desired["metadata"]["labels"]["olm.owner"] = c.resolving;
  Json body;
  if (Supported(kind)) {
    body = desired;  // a full update (replace) over the live resourceVersion
    body["metadata"]["resourceVersion"] = engine::GetString(live, {"metadata", "resourceVersion"});
    if (!Changes(live, body) && SameValue(engine::Path(live, {"metadata", "labels"}),
                                          engine::Path(body, {"metadata", "labels"})))
      return;
  } else {
    body = Patched(live, desired);
    if (!Changes(live, body)) return;
  }
  out->write = PlanWrite{"update", std::move(body), 0};
}

}  // namespace

StepOutcome ApplyObjectStep(const StepContext& c, Json manifest) {
  StepOutcome out;
  out.status = c.status;
  std::string kind = c.kind == "BundleSecret" ? "Secret" : c.kind;
  bool namespaced = true;
  if (kind == "ClusterRole" || kind == "ClusterRoleBinding") {
    namespaced = false;
  } else if (Supported(kind)) {
    std::optional<bool> ns = c.view.Namespaced(c.group, c.version, kind);
    if (!ns) {
      out.error = absl::NotFoundError(StrCat("Unable to find GVK in discovery: ", c.group, " ", c.version, " ", kind));
      return out;
    }
    namespaced = *ns;
  } else if (kind != "ClusterServiceVersion" && kind != "Subscription" && kind != "Secret" && kind != "Role" &&
             kind != "RoleBinding" && kind != "ServiceAccount" && kind != "Service" && kind != "ConfigMap") {
    out.status = "UnsupportedResource";
    out.error = absl::InvalidArgumentError("the InstallPlan contains invalid data");
    return out;
  }
  if (!manifest.contains("metadata") || !manifest["metadata"].is_object()) manifest["metadata"] = Json::object();
  // OLM's own Subscription steps carry a manifest without apiVersion and
  // kind (its typed client knows them): the step's resource names them.
  if (!manifest.contains("kind")) manifest["kind"] = kind;
  if (!manifest.contains("apiVersion"))
    manifest["apiVersion"] = c.group.empty() ? c.version : StrCat(c.group, "/", c.version);
  const std::string object_ns = namespaced ? c.ip_ns : "";
  if (namespaced) manifest["metadata"]["namespace"] = c.ip_ns;
  // Before the write (§A.5's second column).
  if (kind == "ClusterServiceVersion" &&
      std::find(c.csv_names.begin(), c.csv_names.end(), c.name) == c.csv_names.end()) {
    out.error = CheckCrdOwners(c, manifest);
    if (!out.error.ok()) return out;
  }
  if (kind == "Subscription") manifest["metadata"]["annotations"]["olm.generated-by"] = c.ip_name;
  if (c.kind == "Secret") {
    // A pull secret: the data of the catalog operator's own Secret.
    const Json* src = c.view.Get("", "Secret", c.options.operator_ns, c.name);
    if (src == nullptr) {
      out.error = absl::NotFoundError(
          StrCat("secret ", c.name, " does not exist - ", NotFound("secrets", c.name)));
      return out;
    }
    for (const char* k : {"data", "type"})
      if (src->contains(k)) manifest[k] = (*src)[k];
  }
  if (c.kind == "BundleSecret" || kind == "Service" || kind == "ConfigMap" || (Supported(kind) && namespaced))
    AddCsvOwner(manifest, c.resolving);
  if (Supported(kind) && !namespaced) {
    Json& labels = manifest["metadata"]["labels"];
    labels["olm.owner"] = c.resolving;
    labels["olm.owner.namespace"] = c.ip_ns;
    labels["olm.owner.kind"] = "ClusterServiceVersion";
  }
  OwnCreate own = c.view.CreateOf(c.group, kind, object_ns, c.name);
  if (own.state == OwnCreate::kFailed) {
    out.error = absl::UnknownError(CreateError(kind, c.name, own.error));
    return out;
  }
  if (own.state == OwnCreate::kInFlight) {
    out.in_flight = true;
    out.waiting_for = StrCat(kind, " ", c.name);
    return out;
  }
  if (own.state == OwnCreate::kLanded) {
    out.status = "Created";
    return out;
  }
  if (c.kind != "ClusterServiceVersion" && c.kind != "Subscription" && c.kind != "Secret" &&
      !FillCsvUids(c, manifest, &out))
    return out;
  const Json* live = c.view.Get(c.group, kind, object_ns, c.name);
  if (live == nullptr) {
    out.write = PlanWrite{"create", std::move(manifest), 0};
    out.in_flight = true;
    out.waiting_for = StrCat(kind, " ", c.name);
    return out;
  }
  Existing(c, kind, *live, std::move(manifest), &out);
  return out;
}

}  // namespace recon::olm
