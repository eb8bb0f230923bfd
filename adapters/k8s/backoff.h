// Retry pacing of reflectors and the lease loop, as client-go's: an
// exponential backoff 800 ms → 30 s (factor 2), each delay stretched by a
// random jitter factor in [1, 2), reset to the start after a healthy
// period (2 min) without failures. Randomness comes from an injected,
// seeded source so tests see fixed numbers.
#ifndef RECON_ADAPTERS_K8S_BACKOFF_H_
#define RECON_ADAPTERS_K8S_BACKOFF_H_

#include <cstdint>

#include "base/splitmix.h"

namespace recon::k8s {

// Seeded jitter (base/splitmix.h).
using Rng = SplitMix64;

struct BackoffOptions {
  int64_t initial_ns = 800'000'000;
  int64_t max_ns = 30'000'000'000;
  double factor = 2.0;
  double jitter = 1.0;  // delay * (1 + jitter * U[0,1))
  int64_t reset_after_ns = 120'000'000'000;
};

class Backoff {
 public:
  Backoff(Rng& rng, BackoffOptions options = {}) : rng_(rng), options_(options) {}
  // The delay before the next attempt, after a failure at `now_ns`. A
  // failure `reset_after` or longer after the previous one starts over.
  int64_t Next(int64_t now_ns);
  void Reset() { step_ns_ = 0; }
  int64_t base_ns() const { return step_ns_; }  // delay before jitter of the last Next

 private:
  Rng& rng_;
  BackoffOptions options_;
  int64_t step_ns_ = 0;
  int64_t last_failure_ns_ = -1;
};

}  // namespace recon::k8s

#endif  // RECON_ADAPTERS_K8S_BACKOFF_H_
