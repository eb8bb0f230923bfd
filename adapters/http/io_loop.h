// The adapter's own thread running a libuv loop: the HTTP client, the
// reflectors, the lease loop and their timers all live on it. Other
// threads hand it work with Post().
//
// Timers are set on the injected TimeSource's time. One fires when that
// much monotonic time has passed since it was set, as libuv measures it (a
// step of the wall clock neither stalls nor rushes it), or when the source
// is moved by hand past its time and ClockMoved() is called, whichever
// comes first: a test on a ManualTimeSource moves time on without waiting
// for it (its timers are set far beyond what the test lasts).
#ifndef RECON_ADAPTERS_HTTP_IO_LOOP_H_
#define RECON_ADAPTERS_HTTP_IO_LOOP_H_

#include <uv.h>

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/time_source.h"

namespace recon::http {

class IoLoop {
 public:
  IoLoop();  // on the real clock
  explicit IoLoop(const runtime::TimeSource& clock);
  ~IoLoop();  // stops and joins
  void Start();
  // Runs `fn` on the loop thread (from any thread). Dropped after Stop.
  void Post(std::function<void()> fn);
  // Loop thread only: runs `fn` once the clock has moved `delay_ms` on;
  // returns an id for Cancel.
  uint64_t After(int64_t delay_ms, std::function<void()> fn);
  // Loop thread only: runs `fn` once the clock reads `when_ns` or later.
  uint64_t At(int64_t when_ns, std::function<void()> fn);
  void Cancel(uint64_t timer_id);
  // The clock's now (any thread).
  int64_t NowNs() const { return clock_.NowNs(); }
  // The clock was moved by hand (any thread): the timers now due fire, in
  // time order; returns once they ran.
  void ClockMoved();
  // Stops the loop (after running what is posted so far) and joins.
  void Stop();
  uv_loop_t* loop() { return &loop_; }
  bool OnLoopThread() const { return std::this_thread::get_id() == thread_.get_id(); }

 private:
  struct Timer {
    uv_timer_t handle;
    IoLoop* self;
    uint64_t id;
    int64_t when_ns;
    std::function<void()> fn;
  };
  static void OnAsync(uv_async_t* a);
  void Drain();
  // Starts the libuv timer for what is left until the timer's time.
  void Arm(Timer* t);
  void Fire(Timer* t);
  void FireDue();

  runtime::RealTimeSource real_clock_;
  const runtime::TimeSource& clock_;
  uv_loop_t loop_;
  uv_async_t async_;
  std::thread thread_;
  std::mutex mu_;
  std::vector<std::function<void()>> posted_;
  bool stopping_ = false;
  bool started_ = false;
  uint64_t next_timer_ = 1;
  std::map<uint64_t, Timer*> timers_;
};

}  // namespace recon::http

#endif  // RECON_ADAPTERS_HTTP_IO_LOOP_H_
