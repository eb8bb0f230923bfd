// How the catalog loader runs its independent per-file tasks. Domains own
// no threads: the caller injects an executor (io::ThreadPoolExecutor in the
// cli and bench); the domain keeps only the sequential one.
#ifndef RECON_DOMAINS_OLM_EXECUTOR_H_
#define RECON_DOMAINS_OLM_EXECUTOR_H_

#include <cstddef>
#include <functional>

namespace recon::olm {

class Executor {
 public:
  virtual ~Executor() = default;
  // Calls task(i) exactly once for every i in [0, n) and returns when all
  // have finished. Tasks are independent and may run concurrently; indices
  // are handed out in increasing order (the loader puts big files first).
  virtual void ForEach(size_t n, const std::function<void(size_t)>& task) const = 0;
};

// One task after another, on the calling thread.
class SequentialExecutor : public Executor {
 public:
  void ForEach(size_t n, const std::function<void(size_t)>& task) const override {
    for (size_t i = 0; i < n; ++i) task(i);
  }
};

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_EXECUTOR_H_
