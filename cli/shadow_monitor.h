// `recon agent --shadow`: the shadow comparison fed live from the runtime's
// reduced events, its findings counted in /metrics and logged.
#ifndef RECON_CLI_SHADOW_MONITOR_H_
#define RECON_CLI_SHADOW_MONITOR_H_

#include <map>
#include <span>
#include <string>

#include "engine/event.h"
#include "engine/world.h"
#include "runtime/metrics.h"
#include "shadow/compare.h"
#include "engine/record.h"

namespace recon::cli {

class ShadowMonitor {
 public:
  // Declares recon_shadow_predictions_total{domain,result} and
  // recon_shadow_unpredicted_total{domain}.
  ShadowMonitor(shadow::Options options, runtime::Metrics& metrics);

  // RuntimeOptions::on_reduced.
  void Observe(const engine::Event& event, std::span<const engine::ActionRecord> actions,
               const engine::World& world);
  // "shadow: 12 predictions decided (10 match, 1 differs, 1 missed), 2 pending; 1 unpredicted write"
  std::string Summary() const;

 private:
  shadow::Comparator comparator_;
  runtime::Metrics& metrics_;
  std::map<std::string, uint64_t> totals_;  // result name → count
};

}  // namespace recon::cli

#endif  // RECON_CLI_SHADOW_MONITOR_H_
