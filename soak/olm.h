// OLM in the soak (soak.h): the real catalog the workload subscribes
// to, the older copy of it the agent is served first (a catalog update then
// brings the real one), the part of OLM that runs in the cluster besides the
// agent's reducer (the install step: an approved InstallPlan's CSVs created
// and Succeeded, the CSVs they replace deleted), and the normalization that
// lets two runs that took different upgrade paths to the same end compare
// equal.
#ifndef RECON_SOAK_OLM_H_
#define RECON_SOAK_OLM_H_

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "adapters/sim/olm_stand_in.h"
#include "adapters/sim/simulator.h"
#include "engine/json.h"
#include "soak/workload.h"

namespace recon::soak {

struct SoakOlmCatalog {
  std::string dir;  // the real catalog (FBC directory)
  // The catalog served first: the real one without the newest bundle of
  // some packages' default channels (`updated`), as it looked before their
  // last release. Path → text.
  std::vector<std::pair<std::string, std::string>> before;
  std::vector<std::string> updated;                 // packages whose head the update brings
  std::map<std::string, std::string> heads_before;  // "package/channel" → head in `before`
  std::vector<SoakOlmPackage> packages;             // what the workload subscribes to
  std::shared_ptr<const sim::OlmBundles> bundles;   // every bundle of those packages
};

// Loads and validates the catalog in `dir` and picks up to `max_packages`
// packages (sorted by name, every `stride`-th eligible one, offset by the
// seed): a default channel with three or more entries, no dependencies.
// The older copy drops the head of about half of them, kept only while the
// catalog still validates without it.
absl::StatusOr<std::shared_ptr<const SoakOlmCatalog>> LoadSoakOlm(const std::string& dir,
                                                                  const LoadDirectoryFn& load_directory,
                                                                  int max_packages, uint64_t seed);

// What the cluster does when the agent is both of OLM's operators, over
// the catalog's bundles (sim::OlmClusterStandIn: unpack Jobs run, CRDs
// Established, Deployments rolled out, the garbage collector).
sim::Controller SoakOlmController(std::shared_ptr<const SoakOlmCatalog> catalog);

// Whether an install or upgrade is on its way in the cluster's `objects`
// ("group/kind/ns/name" → JSON): a Subscription not resolved yet (no
// state); UpgradePending, unless its plan waits for an approval nobody
// gives (its plan complete, the agent still has to see the CSV and may
// plan the next step); AtLatestKnown below the head `heads` names for its
// package and channel ("package/channel" → CSV, the catalog served now),
// so about to plan the next step; or an InstallPlan that will still run
// (no phase, Installing, or RequiresApproval and approved). The catalog
// update waits for none: resolving again from the installed CSV while such
// a plan is planned or runs is upstream's own race (two plans, two CSVs of
// one package, ResolutionFailed ever after), which a fault-free run would
// not hit at the same moment (four-domain soak, seed 1: the update came
// between a CSV's install and the agent's plan for the next step).
bool OlmUpgradeInFlight(const std::vector<std::pair<std::string, std::string>>& objects,
                        const std::map<std::string, std::string>& heads = {});

// Final-state normalization across objects (the per-object part is
// NormalizeForSoak): InstallPlans are history — their names hash the
// generation, and which steps shared a plan depends on timing — so they are
// left out, and each Subscription's installPlanRef/installPlanGeneration is
// replaced by what its plan says about it: the plan's phase and approval and
// whether it installs the subscription's currentCSV. A subscription at its
// installed CSV whose plan completed or was garbage-collected since (which
// plans the GC keeps depends on timing) gets {"done": true} and no
// InstallPlanMissing condition. `state` maps
// "group/kind/ns/name" to object JSON (as the server holds them).
void NormalizeOlmState(std::map<std::string, std::string>* state);

}  // namespace recon::soak

#endif  // RECON_SOAK_OLM_H_
