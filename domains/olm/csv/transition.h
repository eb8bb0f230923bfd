// One sync of a CSV by the olm operator (reference olm-operator.md §B.2.2
// gates, §B.2.3 phase table, §B.3.4 install check, §B.4 replacement;
// upstream's transitionCSVState at v0.24.0), as a pure function of the CSV
// and what the sync read: the phase to set, how, and what to write beside
// it. The reducer (domains/olm/csv_sync.cc) gathers the inputs and carries
// the step out.
//
// Not modelled yet: APIServices and webhooks, OwnerConflict between CSVs,
// cert rotation, fail-forward upgrades. Copies (§B.5) are csv/copies.h's.
#ifndef RECON_DOMAINS_OLM_CSV_TRANSITION_H_
#define RECON_DOMAINS_OLM_CSV_TRANSITION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "domains/olm/csv/api_intersection.h"
#include "domains/olm/csv/deployments.h"
#include "domains/olm/csv/install_modes.h"
#include "domains/olm/csv/phase.h"
#include "domains/olm/csv/requirements.h"
#include "engine/json.h"

namespace recon::olm {

// What the sync read besides the CSV.
struct CsvSyncInputs {
  int groups = 0;          // OperatorGroups in the CSV's namespace
  bool annotated = false;  // the CSV carries its one group's annotations (the group sync writes them)
  std::optional<InstallModeFailure> install_modes;
  // §B.1.4, for a CSV that owns APIs; its group's spec.staticProvidedAPIs.
  std::optional<ApiReconcile> apis;
  bool static_group = false;
  RequirementResult requirements;
  // Per spec.install.spec.deployments[] entry: the drift check (§B.3.3).
  std::vector<std::optional<DeploymentDrift>> deployments;
  // spec.replaces names a CSV that exists: its phase ("" when none exists).
  std::optional<std::string> replaced_phase;
  // That CSV's OperatorCondition says it is not upgradeable (§B.6): the
  // error (NotUpgradeable in csv/operator_conditions.h).
  std::optional<std::string> not_upgradeable;
  // A CSV of the namespace (not a copy) whose spec.replaces names this one:
  // its name and phase.
  std::optional<std::string> replacement, replacement_phase;
  // The install's write of a strategy Deployment was refused (the
  // server's error): upstream's Install returns it and the CSV fails.
  std::optional<std::string> install_failed;
  // The sync's time (the event's); 0: no install timeout is judged.
  int64_t now_ns = 0;
};

// How long a CSV may stay Installing after its last transition before its
// install fails with "install timeout" (upstream: 5 minutes, fixed).
inline constexpr int64_t kCsvInstallTimeoutNs = 300'000'000'000;

struct CsvStep {
  std::optional<CsvPhase> phase;
  bool if_changed = false;          // SetPhaseWithEventIfChanged, else SetPhaseWithEvent
  bool store_requirements = false;  // status.requirementStatus = inputs.requirements.statuses
  bool install = false;             // create or update the strategy's Deployments
  bool remove = false;              // delete the CSV (Deleting)
  bool cluster_roles = false;       // Succeeded and healthy: its per-API ClusterRoles (§B.1.5)
  bool delete_deployments = false;  // an API conflict between groups: its Deployments deleted (§B.1.4)
  bool remove_apis = false;         // its APIs taken out of its group's olm.providedAPIs (§B.1.4)
  std::string note;                 // why, for explain
  // Installing and not ready yet: when the install times out if nothing
  // changes before (a sync is due then); 0 otherwise.
  int64_t wake_at_ns = 0;
};

CsvStep NextCsvStep(const engine::Json& csv, const CsvSyncInputs& in);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CSV_TRANSITION_H_
