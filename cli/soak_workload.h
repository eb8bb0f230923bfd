// The soak's workload: a simulated cluster (sim::Scenario) with the
// DisconnectedFriendlyApp operator and its instances, optionally the samples
// Config, and a seeded stream of user edits that keep every domain busy —
// operator rollouts that move every operand's image, operand deletes and
// drift, instance scaling, instances deleted and recreated, samples
// management-state flips. The same options give the same scenario, so the
// fault-free run and the faulty run see the same edits at the same cluster
// times.
#ifndef RECON_CLI_SOAK_WORKLOAD_H_
#define RECON_CLI_SOAK_WORKLOAD_H_

#include <cstdint>
#include <string>

#include "adapters/sim/scenario.h"

namespace recon::cli {

struct WorkloadOptions {
  uint64_t seed = 1;
  int instances = 200;                 // DisconnectedFriendlyApps
  int namespaces = 8;                  // they are spread over
  int edits = 1000;                    // user edits
  int64_t spacing_ns = 6'000'000'000;  // cluster time between edits
  std::string samples_inventory;       // empty: no samples Config
  int samples_every = 100;             // a management-state flip every N edits
};

// The operator Deployment the disconnected domain reads its images from.
inline constexpr char kSoakOperatorNamespace[] = "openshift-operators";
inline constexpr char kSoakOperatorName[] = "simple-disconnected-operator-controller-manager";

sim::Scenario BuildSoakScenario(const WorkloadOptions& options);

// Events the agent logs per edit, on average, for sizing a run from an
// event target (measured on runs of this workload; see README "Soak").
double EstimatedEventsPerEdit(const WorkloadOptions& options);

}  // namespace recon::cli

#endif  // RECON_CLI_SOAK_WORKLOAD_H_
