#include "io/thread_pool_executor.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace recon::io {

void ThreadPoolExecutor::ForEach(size_t n, const std::function<void(size_t)>& task) const {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) task(i);
  };
  size_t threads = std::min<size_t>(static_cast<size_t>(threads_), std::max<size_t>(n, 1));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
}

}  // namespace recon::io
