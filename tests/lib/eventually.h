// Waiting in tests for what another thread or process does (an HTTP
// answer, a child's log line, a file appearing). One copy for every test
// program (the recon_test_support library). Pass or fail never depends on
// how long something took, only on whether it happened before a generous
// limit; a test of pacing moves a ManualTimeSource instead of waiting.
#ifndef RECON_TESTS_LIB_EVENTUALLY_H_
#define RECON_TESTS_LIB_EVENTUALLY_H_

#include <chrono>
#include <functional>

namespace recon::testlib {

// A limit in real time on a wait.
class Deadline {
 public:
  explicit Deadline(std::chrono::milliseconds limit) : end_(std::chrono::steady_clock::now() + limit) {}
  bool Passed() const { return std::chrono::steady_clock::now() > end_; }

 private:
  std::chrono::steady_clock::time_point end_;
};

// Polls `cond` every `poll` until it holds (true) or `limit` passes (false).
bool Eventually(const std::function<bool()>& cond, std::chrono::milliseconds limit = std::chrono::seconds(20),
                std::chrono::milliseconds poll = std::chrono::milliseconds(10));

}  // namespace recon::testlib

#endif  // RECON_TESTS_LIB_EVENTUALLY_H_
