#include "tests/lib/eventually.h"

#include <thread>

namespace recon::testlib {

bool Eventually(const std::function<bool()>& cond, std::chrono::milliseconds limit,
                std::chrono::milliseconds poll) {
  Deadline deadline(limit);
  while (!cond()) {
    if (deadline.Passed()) return false;
    std::this_thread::sleep_for(poll);
  }
  return true;
}

}  // namespace recon::testlib
