// Where the runtime (never a reducer) gets "now". Injected so tests drive
// time by hand and never depend on the wall clock.
#ifndef RECON_RUNTIME_TIME_SOURCE_H_
#define RECON_RUNTIME_TIME_SOURCE_H_

#include <atomic>
#include <chrono>
#include <cstdint>

namespace recon::runtime {

class TimeSource {
 public:
  virtual ~TimeSource() = default;
  virtual int64_t NowNs() const = 0;  // Unix epoch nanoseconds
};

class RealTimeSource : public TimeSource {
 public:
  int64_t NowNs() const override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

// Moved by hand; safe to read on one thread (an adapter's I/O loop) while
// a test moves it on another.
class ManualTimeSource : public TimeSource {
 public:
  explicit ManualTimeSource(int64_t start_ns = 0) : now_(start_ns) {}
  int64_t NowNs() const override { return now_.load(std::memory_order_acquire); }
  void Set(int64_t ns) { now_.store(ns, std::memory_order_release); }
  void Advance(int64_t ns) { now_.fetch_add(ns, std::memory_order_acq_rel); }

 private:
  std::atomic<int64_t> now_;
};

}  // namespace recon::runtime

#endif  // RECON_RUNTIME_TIME_SOURCE_H_
