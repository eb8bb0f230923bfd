// The aro part of the soak's workload: an ARO cluster's objects (the
// aro.openshift.io Cluster, three master Machines and a worker MachineSet on
// two subnets that carry the cluster's NSG, the service principal's Secret)
// and seeded edits made outside the operator — the NSG detached from a
// subnet, a service endpoint dropped, the worker MachineSet scaled — that
// the aro domain's subnets controller repairs. With `arm` (recon soak
// --aro-arm) the agent reads and writes the subnets and the NSG through the
// simulated ARM (adapters/sim/arm_server.h) and the workload also rotates
// the service principal's secret.
#ifndef RECON_SOAK_ARO_H_
#define RECON_SOAK_ARO_H_

#include <cstdint>
#include <vector>

#include "adapters/sim/scenario.h"
#include "base/splitmix.h"

namespace recon::soak {

// The ARM poll interval (aro.subnetsInterval) of --aro-arm runs, in the
// agent's (real) time: every poll that finds nothing is not activity for
// the soak's quiet detection, so it can be short.
inline constexpr char kSoakArmPollInterval[] = "2s";
// The secret the workload rotates to (--aro-arm).
inline constexpr char kSoakRotatedSecret[] = "secret-2";

// Adds the cluster's objects, options and probe answers to `s`.
void AddSoakAroObjects(sim::Scenario* s, bool arm = false);

// The service principal's secret rotated in the cluster's Secret (AAD
// accepts only the new one from then on: the simulated AAD reads it there).
sim::Edit SoakAroRotateSecret(int64_t at_ns);

// One edit at `at_ns`, drawn from `rng`.
void SoakAroEdit(SplitMix64& rng, int64_t at_ns, std::vector<sim::Edit>* edits);

// The last edit: the MachineSet scaled to a size no other edit sets, which
// runs the subnets controller once more (a drift made by the last edits is
// repaired by the run, not left to the next aro/subnets period).
sim::Edit SoakAroFinalEdit(int64_t at_ns);

}  // namespace recon::soak

#endif  // RECON_SOAK_ARO_H_
