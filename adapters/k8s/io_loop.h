// The adapter's own thread running a libuv loop: the HTTP client, the
// reflectors, the lease loop and their timers all live on it. Other
// threads hand it work with Post().
#ifndef RECON_ADAPTERS_K8S_IO_LOOP_H_
#define RECON_ADAPTERS_K8S_IO_LOOP_H_

#include <uv.h>

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace recon::k8s {

class IoLoop {
 public:
  IoLoop();
  ~IoLoop();  // stops and joins
  void Start();
  // Runs `fn` on the loop thread (from any thread). Dropped after Stop.
  void Post(std::function<void()> fn);
  // Loop thread only: runs `fn` after `delay_ms`; returns an id for Cancel.
  uint64_t After(int64_t delay_ms, std::function<void()> fn);
  void Cancel(uint64_t timer_id);
  // Stops the loop (after running what is posted so far) and joins.
  void Stop();
  uv_loop_t* loop() { return &loop_; }
  bool OnLoopThread() const { return std::this_thread::get_id() == thread_.get_id(); }

 private:
  struct Timer {
    uv_timer_t handle;
    IoLoop* self;
    uint64_t id;
    std::function<void()> fn;
  };
  static void OnAsync(uv_async_t* a);
  void Drain();

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

}  // namespace recon::k8s

#endif  // RECON_ADAPTERS_K8S_IO_LOOP_H_
