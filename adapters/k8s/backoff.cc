#include "adapters/k8s/backoff.h"

#include <algorithm>

namespace recon::k8s {

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
