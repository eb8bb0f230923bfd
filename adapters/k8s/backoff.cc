#include "adapters/k8s/backoff.h"

#include <algorithm>

namespace recon::k8s {

uint64_t Rng::Next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double Rng::Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

int64_t Rng::Between(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  return lo + static_cast<int64_t>(Uniform() * static_cast<double>(hi - lo));
}

int64_t Backoff::Next(int64_t now_ns) {
  // client-go's backoff manager: a quiet period since the last failure
  // starts the sequence over.
  if (last_failure_ns_ >= 0 && now_ns - last_failure_ns_ >= options_.reset_after_ns) step_ns_ = 0;
  last_failure_ns_ = now_ns;
  step_ns_ = step_ns_ == 0
                 ? options_.initial_ns
                 : std::min<int64_t>(options_.max_ns, static_cast<int64_t>(step_ns_ * options_.factor));
  double stretch = 1.0 + options_.jitter * rng_.Uniform();
  return static_cast<int64_t>(static_cast<double>(step_ns_) * stretch);
}

}  // namespace recon::k8s
