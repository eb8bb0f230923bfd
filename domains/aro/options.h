// The aro domain's options (`--set aro.<key>=<value>`).
#ifndef RECON_DOMAINS_ARO_OPTIONS_H_
#define RECON_DOMAINS_ARO_OPTIONS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "domains/aro/common.h"
#include "engine/reducer.h"

namespace recon::aro {

struct Options {
  std::string role = "master";  // master | worker
  int64_t subnets_interval_ns = kHour;
  // Off by default: upstream never touches NSG rules (reference §2.1).
  bool restore_default_nsg_rules = false;
  bool api_visibility_public = true;  // which default rule set applies
  std::string operator_version = "recon";
  // Which upstream's service-principal check: ARO-RP bf96a7527b's (the
  // operator's DefaultAzureCredential; False/CheckFailed on any error), or
  // the older one of reference §4 (the cluster Secret's credentials;
  // Unknown unless AAD rejects the credentials).
  bool sp_default_credential = true;

  bool master() const { return role == "master"; }

  static std::vector<engine::OptionSpec> Specs();
  absl::Status Set(std::string_view key, std::string_view value);
  engine::Json ToJson() const;
};

}  // namespace recon::aro

#endif  // RECON_DOMAINS_ARO_OPTIONS_H_
