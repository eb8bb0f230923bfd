#include "adapters/http/io_loop.h"

#include <algorithm>
#include <future>
#include <memory>
#include <utility>

namespace recon::http {

IoLoop::IoLoop() : IoLoop(real_clock_) {}

IoLoop::IoLoop(const runtime::TimeSource& clock) : clock_(clock) {
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
  return At(clock_.NowNs() + std::max<int64_t>(delay_ms, 0) * 1'000'000, std::move(fn));
}

uint64_t IoLoop::At(int64_t when_ns, std::function<void()> fn) {
  auto* t = new Timer{{}, this, next_timer_++, when_ns, std::move(fn)};
  uv_timer_init(&loop_, &t->handle);
  t->handle.data = t;
  timers_[t->id] = t;
  Arm(t);
  return t->id;
}

void IoLoop::Arm(Timer* t) {
  int64_t left_ns = t->when_ns - clock_.NowNs();
  uint64_t left_ms = left_ns <= 0 ? 0 : static_cast<uint64_t>((left_ns + 999'999) / 1'000'000);
  uv_timer_start(
      &t->handle,
      [](uv_timer_t* h) { static_cast<Timer*>(h->data)->self->Fire(static_cast<Timer*>(h->data)); }, left_ms,
      0);
}

void IoLoop::Fire(Timer* t) {
  timers_.erase(t->id);
  auto fn = std::move(t->fn);
  uv_timer_stop(&t->handle);
  uv_close(reinterpret_cast<uv_handle_t*>(&t->handle),
           [](uv_handle_t* h) { delete static_cast<Timer*>(h->data); });
  fn();
}

void IoLoop::FireDue() {
  int64_t now = clock_.NowNs();
  std::vector<std::pair<int64_t, uint64_t>> due;  // (when, id): time order, then creation order
  for (const auto& [id, t] : timers_)
    if (t->when_ns <= now) due.push_back({t->when_ns, id});
  std::sort(due.begin(), due.end());
  for (const auto& [when, id] : due) {
    auto it = timers_.find(id);  // an earlier one may have cancelled it
    if (it != timers_.end()) Fire(it->second);
  }
}

void IoLoop::ClockMoved() {
  if (OnLoopThread()) return FireDue();
  auto ran = std::make_shared<std::promise<void>>();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || !started_) return;
    posted_.push_back([this, ran] {
      FireDue();
      ran->set_value();
    });
  }
  uv_async_send(&async_);
  ran->get_future().wait();  // posted before any stop: Drain runs it
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

}  // namespace recon::http
