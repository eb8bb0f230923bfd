#include "adapters/k8s/io_loop.h"

namespace recon::k8s {

IoLoop::IoLoop() {
  uv_loop_init(&loop_);
  uv_async_init(&loop_, &async_, &IoLoop::OnAsync);
  async_.data = this;
}

IoLoop::~IoLoop() { Stop(); }

void IoLoop::Start() {
  started_ = true;
  thread_ = std::thread([this] { uv_run(&loop_, UV_RUN_DEFAULT); });
}

void IoLoop::Post(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    posted_.push_back(std::move(fn));
  }
  uv_async_send(&async_);
}

void IoLoop::OnAsync(uv_async_t* a) { static_cast<IoLoop*>(a->data)->Drain(); }

void IoLoop::Drain() {
  std::vector<std::function<void()>> run;
  bool stop;
  {
    std::lock_guard<std::mutex> lock(mu_);
    run.swap(posted_);
    stop = stopping_;
  }
  for (auto& fn : run) fn();
  if (stop) {
    for (auto& [id, t] : timers_) {
      uv_timer_stop(&t->handle);
      uv_close(reinterpret_cast<uv_handle_t*>(&t->handle),
               [](uv_handle_t* h) { delete static_cast<Timer*>(h->data); });
    }
    timers_.clear();
    uv_close(reinterpret_cast<uv_handle_t*>(&async_), nullptr);
    // Remaining handles (curl's polls) are closed by their owners, which
    // ran in the posted shutdown work before this point.
    uv_stop(&loop_);
  }
}

uint64_t IoLoop::After(int64_t delay_ms, std::function<void()> fn) {
  auto* t = new Timer{{}, this, next_timer_++, std::move(fn)};
  uv_timer_init(&loop_, &t->handle);
  t->handle.data = t;
  timers_[t->id] = t;
  uv_timer_start(
      &t->handle,
      [](uv_timer_t* h) {
        auto* t = static_cast<Timer*>(h->data);
        IoLoop* self = t->self;
        self->timers_.erase(t->id);
        auto fn = std::move(t->fn);
        uv_close(reinterpret_cast<uv_handle_t*>(h),
                 [](uv_handle_t* h) { delete static_cast<Timer*>(h->data); });
        fn();
      },
      delay_ms < 0 ? 0 : static_cast<uint64_t>(delay_ms), 0);
  return t->id;
}

void IoLoop::Cancel(uint64_t timer_id) {
  auto it = timers_.find(timer_id);
  if (it == timers_.end()) return;
  Timer* t = it->second;
  timers_.erase(it);
  uv_timer_stop(&t->handle);
  uv_close(reinterpret_cast<uv_handle_t*>(&t->handle),
           [](uv_handle_t* h) { delete static_cast<Timer*>(h->data); });
}

void IoLoop::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  if (!started_) {
    uv_close(reinterpret_cast<uv_handle_t*>(&async_), nullptr);
    uv_run(&loop_, UV_RUN_DEFAULT);
    uv_loop_close(&loop_);
    return;
  }
  uv_async_send(&async_);
  thread_.join();
  // Let close callbacks run, then release the loop.
  uv_run(&loop_, UV_RUN_NOWAIT);
  uv_walk(
      &loop_,
      [](uv_handle_t* h, void*) {
        if (!uv_is_closing(h)) uv_close(h, nullptr);
      },
      nullptr);
  uv_run(&loop_, UV_RUN_DEFAULT);
  uv_loop_close(&loop_);
}

}  // namespace recon::k8s
