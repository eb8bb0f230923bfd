// An engine::Executor that runs tasks on `threads` threads (the caller's plus
// threads-1 started per ForEach call and joined before it returns).
#ifndef RECON_IO_THREAD_POOL_EXECUTOR_H_
#define RECON_IO_THREAD_POOL_EXECUTOR_H_

#include "engine/executor.h"

namespace recon::io {

class ThreadPoolExecutor : public engine::Executor {
 public:
  explicit ThreadPoolExecutor(int threads) : threads_(threads < 1 ? 1 : threads) {}
  void ForEach(size_t n, const std::function<void(size_t)>& task) const override;
  int threads() const { return threads_; }

 private:
  int threads_;
};

}  // namespace recon::io

#endif  // RECON_IO_THREAD_POOL_EXECUTOR_H_
