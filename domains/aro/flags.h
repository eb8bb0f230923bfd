// Operator flags (spec.operatorflags) with upstream semantics: a flag is on
// only when its value equals "true" in any case; a missing key is off; the
// RP's defaults apply only when the whole map is absent.
#ifndef RECON_DOMAINS_ARO_FLAGS_H_
#define RECON_DOMAINS_ARO_FLAGS_H_

#include <map>
#include <string>
#include <string_view>

#include "engine/json.h"

namespace recon::aro {

inline constexpr std::string_view kFlagSubnetsEnabled = "aro.azuresubnets.enabled";
inline constexpr std::string_view kFlagNsgManaged = "aro.azuresubnets.nsg.managed";
inline constexpr std::string_view kFlagServiceEndpointManaged = "aro.azuresubnets.serviceendpoint.managed";
inline constexpr std::string_view kFlagCheckerEnabled = "aro.checker.enabled";
inline constexpr std::string_view kFlagGenevaEnabled = "aro.genevalogging.enabled";
inline constexpr std::string_view kFlagAlertWebhookEnabled = "aro.alertwebhook.enabled";

class Flags {
 public:
  // Reads spec.operatorflags of a Cluster object (its JSON).
  static Flags FromCluster(const engine::Json& cluster);
  // The RP's DefaultOperatorFlags (the subset these controllers read).
  static const std::map<std::string, std::string, std::less<>>& Defaults();

  bool Enabled(std::string_view key) const;
  // The value, or `fallback` only when the key is absent ("" stays "").
  std::string GetWithDefault(std::string_view key, std::string_view fallback) const;
  bool defaulted() const { return defaulted_; }

 private:
  std::map<std::string, std::string, std::less<>> values_;
  bool defaulted_ = false;
};

}  // namespace recon::aro

#endif  // RECON_DOMAINS_ARO_FLAGS_H_
