// How a domain runs independent tasks (olm's catalog loader: one per file).
// Domains own no threads: the caller injects an executor
// (io::ThreadPoolExecutor in the cli and bench); the sequential one is the
// default.
#ifndef RECON_ENGINE_EXECUTOR_H_
#define RECON_ENGINE_EXECUTOR_H_

#include <cstddef>
#include <functional>

namespace recon::engine {

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

}  // namespace recon::engine

#endif  // RECON_ENGINE_EXECUTOR_H_
