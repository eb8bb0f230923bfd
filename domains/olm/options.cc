// The olm domain's options (`--set olm.<key>=<value>`): what each means,
// its default, and the checks of a value.
#include "absl/strings/str_split.h"
#include "base/strings.h"
#include "domains/olm/reducer.h"

namespace recon::olm {

std::vector<engine::OptionSpec> OlmReducer::Options() const {
  return {
      {"globalNamespace", "openshift-marketplace",
       "the global catalog namespace: its CatalogSources serve every namespace (upstream OLM: olm)", false,
       ""},
      {"executePlans", "true",
       "true: carry out InstallPlans as OLM's catalog operator does (steps from inline bundle content, or "
       "from bundle images unpacked by a Job); false: the cluster's OLM carries them out (a cluster "
       "where OLM's catalog operator runs)",
       false, ""},
      {"csvLifecycle", "true",
       "true: move ClusterServiceVersions through their phases and create their Deployments as OLM's olm "
       "operator does (requirements, install, health, replacement); false: the cluster's OLM does (a "
       "cluster where OLM's olm operator runs)",
       false, ""},
      {"protectedCopiedCSVNamespaces", "",
       "with csvLifecycle: the namespaces (comma-separated) where the copies of an all-namespaces operator's "
       "CSV stay while OLMConfig cluster sets spec.features.disableCopiedCSVs (upstream's "
       "--protectedCopiedCSVNamespaces)",
       false, ""},
      {"subscriptionWrites", "split",
       "split: as OLM, a subscription's health and plan conditions are written apart from its state and "
       "resolution, each over the status the last event showed, and an agent waits for a write's echo "
       "before the next (only states OLM writes); combined: one status write per sync with every step's "
       "change (fewer round trips; some combinations OLM never writes)",
       false, ""}};
}

absl::Status OlmReducer::SetOption(std::string_view key, std::string_view value) {
  if (key == "globalNamespace") {
    if (value.empty()) return absl::InvalidArgumentError("globalNamespace: expected a namespace name");
    global_ns_ = std::string(value);
    return absl::OkStatus();
  }
  if (key == "executePlans") {
    if (value != "true" && value != "false")
      return absl::InvalidArgumentError(StrCat("executePlans: expected true or false, got \"", value, "\""));
    execute_plans_ = value == "true";
    return absl::OkStatus();
  }
  if (key == "csvLifecycle") {
    if (value != "true" && value != "false")
      return absl::InvalidArgumentError(StrCat("csvLifecycle: expected true or false, got \"", value, "\""));
    csv_lifecycle_ = value == "true";
    return absl::OkStatus();
  }
  if (key == "protectedCopiedCSVNamespaces") {
    protected_copy_ns_.clear();
    for (absl::string_view n :
         absl::StrSplit(absl::string_view(value.data(), value.size()), ',', absl::SkipEmpty()))
      protected_copy_ns_.insert(std::string(n));
    return absl::OkStatus();
  }
  if (key == "subscriptionWrites") {
    if (value != "split" && value != "combined")
      return absl::InvalidArgumentError(
          StrCat("subscriptionWrites: expected split or combined, got \"", value, "\""));
    split_writes_ = value == "split";
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(StrCat("unknown option \"", key,
                                           "\" (olm options: globalNamespace, executePlans, csvLifecycle, "
                                           "protectedCopiedCSVNamespaces, subscriptionWrites)"));
}

}  // namespace recon::olm
