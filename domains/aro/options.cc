#include "domains/aro/options.h"

#include "base/strings.h"
#include "engine/time_format.h"

namespace recon::aro {

std::vector<engine::OptionSpec> Options::Specs() {
  return {
      {"role", "master",
       "which operator process this is: master (every controller) or worker (internet checker only)"},
      {"subnetsInterval", "1h", "period of the subnet/NSG remediation timer (Go duration, > 0)"},
      {"restoreDefaultNsgRules", "false",
       "also restore the default NSG rule set (apiserver_in) of V2 clusters when it drifted (true|false)"},
      {"apiVisibility", "Public", "API server visibility the default NSG rules follow: Public or Private"},
      {"operatorVersion", "recon",
       "the version stamped into Cluster status.operatorVersion and ClusterOperator aro"},
      {"servicePrincipalCheck", "defaultCredential",
       "which upstream's service-principal check: defaultCredential (ARO-RP bf96a7527b: a token through "
       "DefaultAzureCredential, False/CheckFailed on any error) or clusterSecret (the older check: Unknown "
       "unless AAD rejects the credentials)"},
  };
}

absl::Status Options::Set(std::string_view key, std::string_view value) {
  if (key == "role") {
    if (value != "master" && value != "worker") {
      return absl::InvalidArgumentError(recon::StrCat("expected master or worker, got \"", value, "\""));
    }
    role = value;
    return absl::OkStatus();
  }
  if (key == "subnetsInterval") {
    auto d = engine::ParseDurationNs(value);
    if (!d.ok() || *d <= 0) {
      return absl::InvalidArgumentError(
          recon::StrCat("expected a positive duration such as 1h or 30m, got \"", value, "\""));
    }
    subnets_interval_ns = *d;
    return absl::OkStatus();
  }
  if (key == "restoreDefaultNsgRules") {
    if (value != "true" && value != "false") {
      return absl::InvalidArgumentError(recon::StrCat("expected true or false, got \"", value, "\""));
    }
    restore_default_nsg_rules = value == "true";
    return absl::OkStatus();
  }
  if (key == "apiVisibility") {
    if (value != "Public" && value != "Private") {
      return absl::InvalidArgumentError(recon::StrCat("expected Public or Private, got \"", value, "\""));
    }
    api_visibility_public = value == "Public";
    return absl::OkStatus();
  }
  if (key == "operatorVersion") {
    if (value.empty()) return absl::InvalidArgumentError("expected a non-empty version string");
    operator_version = value;
    return absl::OkStatus();
  }
  if (key == "servicePrincipalCheck") {
    if (value != "defaultCredential" && value != "clusterSecret") {
      return absl::InvalidArgumentError(
          recon::StrCat("expected defaultCredential or clusterSecret, got \"", value, "\""));
    }
    sp_default_credential = value == "defaultCredential";
    return absl::OkStatus();
  }
  std::string known;
  for (const auto& s : Specs()) recon::StrAppend(&known, known.empty() ? "" : ", ", "aro.", s.key);
  return absl::InvalidArgumentError(recon::StrCat("unknown option (known: ", known, ")"));
}

Json Options::ToJson() const {
  return {{"role", role},
          {"subnetsInterval", subnets_interval_ns},
          {"restoreDefaultNsgRules", restore_default_nsg_rules},
          {"apiVisibilityPublic", api_visibility_public},
          {"operatorVersion", operator_version},
          {"servicePrincipalCheck", sp_default_credential ? "defaultCredential" : "clusterSecret"}};
}

}  // namespace recon::aro
