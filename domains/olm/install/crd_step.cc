// §A.6: a CRD step. Created and then WaitingForApi until the CRD is
// Established with its names accepted; an existing CRD is updated after
// the storage-version check, its installed-alongside annotations merged.
//
// Not done (said in domains/olm/README.md): upstream also validates every
// existing custom resource of the live CRD's served versions against the
// new schema; recon does not watch arbitrary custom resources, so that
// check passes.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "base/strings.h"
#include "domains/olm/install/json_values.h"
#include "domains/olm/install/step.h"

namespace recon::olm {
namespace {

using engine::Json;

constexpr std::string_view kAlongside = "operatorframework.io/installed-alongside-";

bool ConditionTrue(const Json& crd, std::string_view type) {
  const Json& cs = engine::Path(crd, {"status", "conditions"});
  for (const Json& cond : ArrayOrEmpty(cs))
    if (engine::GetString(cond, {"type"}) == type) return engine::GetString(cond, {"status"}) == "True";
  return false;
}

// The versions a CRD manifest serves or stores (v1: spec.versions; v1beta1
// also spec.version).
std::set<std::string> Versions(const Json& crd) {
  std::set<std::string> out;
  const Json& vs = engine::Path(crd, {"spec", "versions"});
  for (const Json& v : ArrayOrEmpty(vs)) out.insert(engine::GetString(v, {"name"}));
  std::string single = engine::GetString(crd, {"spec", "version"});
  if (!single.empty()) out.insert(single);
  return out;
}

// pkg/lib/crd/storage.go SafeStorageVersionUpgrade.
absl::Status StorageCheck(const Json& live, const Json& desired, std::string_view name) {
  std::set<std::string> versions = Versions(desired);
  const Json& stored = engine::Path(live, {"status", "storedVersions"});
  for (const Json& v : ArrayOrEmpty(stored)) {
    if (!v.is_string() || versions.contains(v.get<std::string>())) continue;
    return absl::FailedPreconditionError(StrCat("risk of data loss updating \"", name, "\": new CRD removes version ",
                                                v.get<std::string>(),
                                                " that is listed as a stored version on the existing CRD"));
  }
  return absl::OkStatus();
}

// The references "<ns>/<name>" of the alongside annotations on `o`.
void AlongsideRefs(const Json& o, std::set<std::string>* refs) {
  const Json& ann = engine::Path(o, {"metadata", "annotations"});
  if (!ann.is_object()) return;
  for (auto it = ann.begin(); it != ann.end(); ++it)
    if (it.key().rfind(kAlongside, 0) == 0 && it.value().is_string()) refs->insert(it.value().get<std::string>());
}

// setInstalledAlongsideAnnotation: every alongside key removed, then one
// per reference that still names an existing CSV that is not a copy, and
// one for this plan's CSV. Keys sorted (Go's JSON encoding of a map).
void SetAlongside(const StepContext& c, Json& manifest, const Json* live) {
  std::set<std::string> refs;
  AlongsideRefs(manifest, &refs);
  if (live != nullptr) AlongsideRefs(*live, &refs);
  std::map<std::string, std::string> keep;
  for (const std::string& ref : refs) {
    auto slash = ref.find('/');
    if (slash == std::string::npos) continue;
    const std::string ns = ref.substr(0, slash), name = ref.substr(slash + 1);
    const Json* csv = c.view.Get("operators.coreos.com", "ClusterServiceVersion", ns, name);
    // A CSV another plan's pass is creating counts too (it is not
    // observed yet; upstream's passes run one after the other).
    const OwnCreate::State own =
        c.view.CreateOf("operators.coreos.com", "ClusterServiceVersion", ns, name).state;
    if (csv == nullptr && (own == OwnCreate::kInFlight || own == OwnCreate::kLanded)) {
      keep[AlongsideKey(ref)] = ref;
      continue;
    }
    if (csv == nullptr || !engine::Path(*csv, {"metadata", "labels", "olm.copiedFrom"}).is_null()) continue;
    keep[AlongsideKey(ref)] = ref;
  }
  std::string mine = StrCat(c.ip_ns, "/", c.resolving);
  keep[AlongsideKey(mine)] = mine;
  Json& ann = manifest["metadata"]["annotations"];
  Json merged = Json::object();
  if (live != nullptr && engine::Path(*live, {"metadata", "annotations"}).is_object())
    for (auto it = (*live)["metadata"]["annotations"].begin(); it != (*live)["metadata"]["annotations"].end(); ++it)
      if (it.key().rfind(kAlongside, 0) != 0) merged[it.key()] = it.value();
  if (ann.is_object())
    for (auto it = ann.begin(); it != ann.end(); ++it)
      if (it.key().rfind(kAlongside, 0) != 0) merged[it.key()] = it.value();
  for (const auto& [k, v] : keep) merged[k] = v;
  ann = std::move(merged);
}

}  // namespace

std::string AlongsideKey(std::string_view ns_name) {
  uint64_t h = 14695981039346656037ULL;
  for (char ch : ns_name) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ULL;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  do {
    hex.insert(hex.begin(), kHex[h & 0xf]);
    h >>= 4;
  } while (h != 0);
  return StrCat(kAlongside, hex);
}

StepOutcome ApplyCrdStep(const StepContext& c, Json manifest) {
  StepOutcome out;
  out.status = c.status;
  const std::string api = engine::GetString(manifest, {"apiVersion"});
  if (api != "apiextensions.k8s.io/v1" && api != "apiextensions.k8s.io/v1beta1") {
    out.error = absl::InvalidArgumentError(StrCat("CRD APIVersion from manifest not supported: ", api));
    return out;
  }
  if (c.status == "Present" || c.status == "Created") return out;
  if (c.status != "WaitingForApi" && c.status != "Unknown" && c.status != "NotPresent") {
    out.error = absl::InvalidArgumentError("the InstallPlan contains invalid data");
    return out;
  }
  const Json* live = c.view.Get("apiextensions.k8s.io", "CustomResourceDefinition", "", c.name);
  OwnCreate own = c.view.CreateOf("apiextensions.k8s.io", "CustomResourceDefinition", "", c.name);
  if (c.status == "WaitingForApi") {
    if (live == nullptr && own.state == OwnCreate::kLanded) {
      // Our create was answered; its watch event is still to come.
      out.waiting_for_api = true;
      return out;
    }
    if (live == nullptr) {
      out.status = "NotPresent";
    } else if (ConditionTrue(*live, "Established") && ConditionTrue(*live, "NamesAccepted")) {
      out.status = "Created";
    } else {
      out.status = "Unknown";  // upstream's quirk: no error, and nothing holds the plan
    }
    return out;
  }
  if (own.state == OwnCreate::kFailed) {
    out.status = "Unknown";
    out.error = absl::UnknownError(own.error);
    return out;
  }
  if (own.state == OwnCreate::kInFlight) {
    out.in_flight = true;
    out.waiting_for = StrCat("CustomResourceDefinition ", c.name);
    return out;
  }
  if (own.state == OwnCreate::kLanded) {
    out.status = "WaitingForApi";
    out.waiting_for_api = true;
    return out;
  }
  if (!manifest.contains("metadata") || !manifest["metadata"].is_object()) manifest["metadata"] = Json::object();
  if (live == nullptr) {
    SetAlongside(c, manifest, nullptr);
    out.write = PlanWrite{"create", std::move(manifest), 0};
    out.in_flight = true;
    out.waiting_for = StrCat("CustomResourceDefinition ", c.name);
    return out;
  }
  // Exists: the safety checks, then an update over the live version.
  if (absl::Status s = StorageCheck(*live, manifest, c.name); !s.ok()) {
    out.status = "Unknown";
    out.error = s;
    return out;
  }
  SetAlongside(c, manifest, live);
  manifest["metadata"]["resourceVersion"] = engine::GetString(*live, {"metadata", "resourceVersion"});
  out.status = "Present";
  out.write = PlanWrite{"update", std::move(manifest), 0};
  return out;
}

}  // namespace recon::olm
