// `recon agent --shadow`: the shadow comparison fed live from the runtime's
// reduced events, its findings counted in /metrics and logged.
#ifndef RECON_CLI_SHADOW_MONITOR_H_
#define RECON_CLI_SHADOW_MONITOR_H_

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "cli/args.h"
#include "cli/shadow_audit.h"
#include "engine/engine.h"
#include "engine/event.h"
#include "engine/world.h"
#include "records/record.h"
#include "runtime/metrics.h"
#include "runtime/runtime.h"
#include "shadow/audit_judge.h"
#include "shadow/compare.h"

namespace recon::cli {

class ShadowMonitor {
 public:
  // Declares recon_shadow_predictions_total{domain,result} and
  // recon_shadow_unpredicted_total{domain}.
  ShadowMonitor(shadow::Options options, runtime::Metrics& metrics);

  // RuntimeOptions::on_reduced.
  void Observe(const engine::Event& event, std::span<const records::ActionRecord> actions,
               const engine::World& world);
  // "shadow: 12 predictions decided (10 match, 1 differs, 1 missed), 2 pending; 1 unpredicted write"
  // and, following an audit log, a second line judged on it (read to its
  // end first).
  std::string Summary();

  // --audit-log FILE: also judge the predictions on the API server's
  // audit log as it grows (read at most once a second of event time), its
  // counts in recon_shadow_audit_findings{domain,result}.
  void FollowAudit(std::unique_ptr<AuditLogTail> tail, shadow::AuditOptions audit);

 private:
  void PollAudit(int64_t now_ns, bool force);

  shadow::Options options_;
  shadow::Comparator comparator_;
  runtime::Metrics& metrics_;
  std::map<std::string, uint64_t> totals_;  // result name → count
  std::unique_ptr<AuditLogTail> tail_;
  std::optional<shadow::AuditJudge> judge_;
  int64_t last_read_ns_ = 0, last_judged_ns_ = 0;
  bool unjudged_ = false;  // writes read since the last judgement
  std::map<std::string, std::map<std::string, uint64_t>> audit_counts_;
};

// --shadow: the runtime sends no write and feeds the comparison, whose
// findings go to /metrics (with --audit-log also judged on that file).
// Null without --shadow.
absl::StatusOr<std::unique_ptr<ShadowMonitor>> ShadowSetup(const Args& args, const engine::Engine& engine,
                                                           runtime::Metrics& metrics,
                                                           runtime::RuntimeOptions* options);
// The shadow flags' values, checked before the agent opens its store.
absl::Status ValidateShadowFlags(const Args& args);

}  // namespace recon::cli

#endif  // RECON_CLI_SHADOW_MONITOR_H_
