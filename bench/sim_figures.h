// The simulated API server's write throughput with validation on and off in
// the same run: the same workload of real objects (OLM Subscriptions with a
// full status, ClusterOperators, samples ImageStreams) created, updated and
// status-updated through sim::Api, once admitting every write through the
// real CRDs and the built-in checks, once with validation off.
#ifndef RECON_BENCH_SIM_FIGURES_H_
#define RECON_BENCH_SIM_FIGURES_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace recon::bench {

struct SimWriteFigures {
  uint64_t objects = 0, rounds = 0, writes = 0;  // writes per pass
  double validate_on_per_s = 0, validate_off_per_s = 0;
  double ratio = 0;      // on / off
  uint64_t refused = 0;  // writes refused with validation on (must be 0: the workload is valid)
  std::string ToJson() const;
};

// `objects` of each kind; each gets a create, then `rounds` updates and status
// updates. Best of `repeat` passes per mode.
absl::StatusOr<SimWriteFigures> MeasureSimWrites(uint64_t objects, uint64_t rounds, int repeat = 3);

}  // namespace recon::bench

#endif  // RECON_BENCH_SIM_FIGURES_H_
