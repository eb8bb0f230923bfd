// Fault injection from a seeded RNG: dropped or delayed watch events and
// 409/429/500 answers on a fraction of writes. The same seed and the same
// sequence of calls give the same faults.
#ifndef RECON_ADAPTERS_SIM_FAULTS_H_
#define RECON_ADAPTERS_SIM_FAULTS_H_

#include <cstdint>

#include "adapters/sim/api.h"
#include "adapters/sim/scenario.h"
#include "base/splitmix.h"

namespace recon::sim {

// Seeded faults (base/splitmix.h): runs repeat across platforms.
using Rng = SplitMix64;

class FaultInjector {
 public:
  FaultInjector(const Faults& faults, uint64_t seed) : faults_(faults), rng_(seed ^ 0xFA17FA17FA17FA17ull) {}

  // 0 when the write goes through, else the status to answer with.
  int WriteFault();
  enum class Watch { kDeliver, kDrop, kDelay };
  Watch OnWatch();

  const Faults& faults() const { return faults_; }
  uint64_t dropped() const { return dropped_; }
  uint64_t delayed() const { return delayed_; }
  uint64_t failed_writes() const { return failed_writes_; }

 private:
  Faults faults_;
  Rng rng_;
  uint64_t dropped_ = 0, delayed_ = 0, failed_writes_ = 0;
};

// The answer the API server gives with that status.
ApiResult InjectedFailure(int status, const ObjectKey& key);

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_FAULTS_H_
