// One InstallPlan step applied (reference olm-operator.md §A.5, §A.6):
// what plan_pass.cc's loop asks of each kind.
#ifndef RECON_DOMAINS_OLM_INSTALL_STEP_H_
#define RECON_DOMAINS_OLM_INSTALL_STEP_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "domains/olm/install/plan_pass.h"
#include "engine/json.h"

namespace recon::olm {

// The step being applied and what it may read.
struct StepContext {
  const ClusterView& view;
  const PassOptions& options;
  std::string ip_ns = {}, ip_name = {};
  std::vector<std::string> csv_names = {};  // the plan's spec.clusterServiceVersionNames
  std::string resolving = {}, group = {}, version = {}, kind = {}, name = {}, status = {};
};

struct StepOutcome {
  std::string status;                // the step's new status
  std::optional<PlanWrite> write;    // step index filled by the caller
  absl::Status error;
  bool in_flight = false;            // our create unanswered, or a CSV uid not known yet
  bool waiting_for_api = false;
  std::string waiting_for;           // "<Kind> <name>" when in_flight
};

// Every step but CRDs (§A.5's table), `manifest` already resolved.
StepOutcome ApplyObjectStep(const StepContext& c, engine::Json manifest);
// A CustomResourceDefinition step (§A.6).
StepOutcome ApplyCrdStep(const StepContext& c, engine::Json manifest);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_INSTALL_STEP_H_
