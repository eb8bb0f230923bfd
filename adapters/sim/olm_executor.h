// OLM's install step, simulated: what the catalog operator's InstallPlan
// executor and the OLM operator do between an approved InstallPlan and a
// Succeeded CSV. recon's olm domain plans; a real cluster's OLM carries the
// plans out; in the simulated cluster this controller does, so that a
// subscription installs and upgrades end to end (`recon soak`,
// `recon sim serve --olm-catalog`).
#ifndef RECON_ADAPTERS_SIM_OLM_EXECUTOR_H_
#define RECON_ADAPTERS_SIM_OLM_EXECUTOR_H_

#include <map>
#include <memory>
#include <string>

#include "adapters/sim/simulator.h"
#include "engine/json.h"

namespace recon::sim {

// What the install step writes for one bundle: its CSV.
struct OlmBundle {
  std::string package, version;
  std::string image;                           // the bundle image ("": inline content only)
  std::string replaces;                        // the default channel entry's replaces
  int rank = 0;                                // version order within the package (higher is newer)
  engine::Json owned = engine::Json::array();  // spec.customresourcedefinitions.owned
};
using OlmBundles = std::map<std::string, OlmBundle>;  // by CSV name

// Who carries out InstallPlans on the simulated cluster.
struct OlmExecutorOptions {
  // true: this controller plays OLM's catalog operator (below). false: the
  // agent does (recon's olm.executePlans): this controller then plays what
  // a cluster's other components do for it: a kubelet that runs bundle
  // unpack Jobs (the ConfigMap filled with a CSV built from the bundle,
  // the Job Complete), and OLM's olm operator's part recon does not have
  // yet (a CSV created without a phase turned Succeeded; the replaced CSV
  // deleted).
  bool plans = true;
};

// On an InstallPlan with spec.approved true and a phase that is neither
// Complete nor Failed: creates each CSV of spec.clusterServiceVersionNames
// that is not there (then its status Succeeded), deletes a CSV that another
// one's spec.replaces names once the newer one has succeeded (in either
// order, as OLM's operator does), creates the plan's Subscription steps,
// and marks the plan Complete. A plan whose owning subscriptions are all
// gone is deleted (the garbage collector). Each plan (by uid) is carried
// out once. A CSV not in `bundles` is left out (its step fails nothing).
Controller OlmInstallPlanExecutor(std::shared_ptr<const OlmBundles> bundles, OlmExecutorOptions options = {});

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_OLM_EXECUTOR_H_
