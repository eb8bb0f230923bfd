#include "domains/olm/csv/copies.h"

#include <set>

#include "absl/strings/str_split.h"
#include "base/strings.h"
#include "domains/olm/csv/deployments.h"

namespace recon::olm {
namespace {

using engine::Json;

// Group failures: a CSV in one of these is not copied (§B.5.1).
const std::set<std::string, std::less<>>& UncopiableReasons() {
  static const std::set<std::string, std::less<>> kReasons = {
      "Copied",
      "InvalidInstallModes",
      "NoTargetNamespaces",
      "UnsupportedOperatorGroup",
      "NoOperatorGroup",
      "TooManyOperatorGroups",
      "InterOperatorGroupOwnerConflict",
      "CannotModifyStaticOperatorGroupProvidedAPIs",
  };
  return kReasons;
}

// An absent map and an empty one are the same to a hash of the object, and
// key order is the writer's, not the object's.
Json MapOrEmpty(const Json& j) { return j.is_object() ? CanonicalJson(j) : Json::object(); }

}  // namespace

bool CsvCopiable(const Json& csv) {
  return !engine::GetString(csv, {"status", "phase"}).empty() &&
         !UncopiableReasons().contains(engine::GetString(csv, {"status", "reason"}));
}

Json CsvCopy(const Json& parent, std::string_view target_ns) {
  const std::string parent_ns = engine::GetString(parent, {"metadata", "namespace"});
  Json labels = Json::object();
  const Json parent_labels = MapOrEmpty(engine::Path(parent, {"metadata", "labels"}));
  for (const auto& [k, v] : parent_labels.items()) {
    if (k.rfind("operators.coreos.com/", 0) != 0) labels[k] = v;
  }
  labels["olm.copiedFrom"] = parent_ns;
  Json annotations = Json::object();
  const Json parent_annotations = MapOrEmpty(engine::Path(parent, {"metadata", "annotations"}));
  for (const auto& [k, v] : parent_annotations.items()) {
    if (k != "olm.targetNamespaces" && k != "kubectl.kubernetes.io/last-applied-configuration")
      annotations[k] = v;
  }
  Json copy = {{"apiVersion", engine::GetString(parent, {"apiVersion"})},
               {"kind", "ClusterServiceVersion"},
               {"metadata",
                {{"name", engine::GetString(parent, {"metadata", "name"})},
                 {"namespace", std::string(target_ns)},
                 {"labels", std::move(labels)},
                 {"annotations", std::move(annotations)}}}};
  copy["spec"] = engine::Path(parent, {"spec"}).is_object() ? engine::Path(parent, {"spec"}) : Json::object();
  Json status =
      engine::Path(parent, {"status"}).is_object() ? engine::Path(parent, {"status"}) : Json::object();
  status["reason"] = "Copied";
  status["message"] = StrCat("The operator is running in ", parent_ns, " but is managing this namespace");
  copy["status"] = std::move(status);
  return copy;
}

bool CopyMetadataDiffers(const Json& want, const Json& live) {
  return engine::GetString(want, {"metadata", "name"}) != engine::GetString(live, {"metadata", "name"}) ||
         MapOrEmpty(engine::Path(want, {"metadata", "labels"})) !=
             MapOrEmpty(engine::Path(live, {"metadata", "labels"})) ||
         MapOrEmpty(engine::Path(want, {"metadata", "annotations"})) !=
             MapOrEmpty(engine::Path(live, {"metadata", "annotations"})) ||
         MapOrEmpty(engine::Path(want, {"spec"})) != MapOrEmpty(engine::Path(live, {"spec"}));
}

bool CopyStatusDiffers(const Json& want, const Json& live) {
  return MapOrEmpty(engine::Path(want, {"status"})) != MapOrEmpty(engine::Path(live, {"status"}));
}

std::string DanglingCopyReason(const Json& copy, const Json* parent) {
  const std::string ns = engine::GetString(copy, {"metadata", "namespace"});
  const Json& operator_ns = engine::Path(copy, {"metadata", "annotations", "olm.operatorNamespace"});
  if (!operator_ns.is_string()) return "it has no olm.operatorNamespace annotation";
  const std::string parent_ns = operator_ns.get<std::string>();
  if (parent == nullptr)
    return StrCat("its parent ", parent_ns, "/", engine::GetString(copy, {"metadata", "name"}), " is gone");
  if (engine::GetString(*parent, {"status", "phase"}) == "Failed" &&
      engine::GetString(*parent, {"status", "reason"}) == "InterOperatorGroupOwnerConflict")
    return "its parent failed with InterOperatorGroupOwnerConflict";
  const Json& targets = engine::Path(*parent, {"metadata", "annotations", "olm.targetNamespaces"});
  if (targets.is_string()) {
    bool found = false;
    for (absl::string_view t : absl::StrSplit(targets.get_ref<const std::string&>(), ','))
      found |= t == ns || t.empty();
    if (!found) return StrCat("its parent no longer targets ", ns);
  }
  if (ns == parent_ns) return "it is in its parent's namespace";
  return "";
}

bool CopiedCsvsEnabled(const Json* olm_config) {
  return olm_config == nullptr ||
         engine::Path(*olm_config, {"spec", "features", "disableCopiedCSVs"}) != Json(true);
}

CopiedCsvsCondition DisabledCopiedCsvsCondition(bool enabled, bool mismatch) {
  if (enabled) {
    return {"False", "CopiedCSVsEnabled",
            mismatch ? "Copied CSVs are enabled and at least one copied CSVs is missing"
                     : "Copied CSVs are enabled and present across the cluster"};
  }
  if (mismatch) {
    return {
        "False", "CopiedCSVsDisabled",
        "Copied CSVs are disabled and at least one unexpected copied CSV was found for an operator installed "
        "in AllNamespace mode"};
  }
  return {"True", "CopiedCSVsDisabled",
          "Copied CSVs are disabled and no unexpected copied CSVs were found for operators installed in "
          "AllNamespace mode"};
}

std::optional<Json> OlmConfigStatus(const Json& olm_config, const CopiedCsvsCondition& want,
                                    std::string_view now) {
  const Json& seen = engine::Path(olm_config, {"status"});
  Json status = seen.is_object() ? seen : Json::object();
  if (!status["conditions"].is_array()) status["conditions"] = Json::array();
  for (Json& c : status["conditions"]) {
    if (engine::GetString(c, {"type"}) != "DisabledCopiedCSVs") continue;
    if (engine::GetString(c, {"status"}) == want.status && engine::GetString(c, {"reason"}) == want.reason &&
        engine::GetString(c, {"message"}) == want.message)
      return std::nullopt;
    if (engine::GetString(c, {"status"}) != want.status) c["lastTransitionTime"] = now;
    c["status"] = want.status;
    c["reason"] = want.reason;
    c["message"] = want.message;
    return status;
  }
  status["conditions"].push_back(Json{{"type", "DisabledCopiedCSVs"},
                                      {"status", want.status},
                                      {"lastTransitionTime", now},
                                      {"reason", want.reason},
                                      {"message", want.message}});
  return status;
}

}  // namespace recon::olm
