#include "domains/aro/flags.h"

#include "domains/aro/common.h"

namespace recon::aro {

const std::map<std::string, std::string, std::less<>>& Flags::Defaults() {
  static const auto* defaults = new std::map<std::string, std::string, std::less<>>{
      {"aro.alertwebhook.enabled", "true"},     {"aro.azuresubnets.enabled", "true"},
      {"aro.azuresubnets.nsg.managed", "true"}, {"aro.azuresubnets.serviceendpoint.managed", "true"},
      {"aro.checker.enabled", "true"},          {"aro.forcereconciliation", "false"},
      {"aro.genevalogging.enabled", "true"},    {"aro.genevalogging.otel.profile", "minimal-logs"},
      {"aro.machine.enabled", "true"},          {"aro.monitoring.enabled", "false"},
  };
  return *defaults;
}

Flags Flags::FromCluster(const Json& cluster) {
  Flags f;
  const Json& map = engine::Path(cluster, {"spec", "operatorflags"});
  if (map.is_null()) {
    // nil map: the RP would have written the defaults.
    f.values_ = Defaults();
    f.defaulted_ = true;
    return f;
  }
  if (!map.is_object()) return f;  // malformed: every flag reads as off
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (it.value().is_string()) f.values_[it.key()] = it.value().get<std::string>();
  }
  return f;
}

bool Flags::Enabled(std::string_view key) const {
  auto it = values_.find(key);
  return it != values_.end() && EqualFold(it->second, "true");
}

std::string Flags::GetWithDefault(std::string_view key, std::string_view fallback) const {
  auto it = values_.find(key);
  return it == values_.end() ? std::string(fallback) : it->second;
}

}  // namespace recon::aro
