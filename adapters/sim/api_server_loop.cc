// The server's libuv loop on its own thread, calls posted onto it from
// other threads, and virtual time: the simulator's queue runs on the real
// clock scaled by ServeOptions::speed.
#include <uv.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "adapters/sim/api_server_impl.h"

namespace recon::sim {
namespace {

constexpr int kTickMs = 50;  // bookmarks, watch deadlines and held events are checked this often

int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

ApiServer::Impl::Impl(const Scenario& scenario, ServeOptions options,
                      std::vector<engine::ResourceType> resources)
    : scenario_(scenario),
      opts_(std::move(options)),
      table_(resources),
      drop_rng_(scenario.seed ^ 0xD209D209D209D209ull),
      fault_rng_(opts_.fault_seed ^ 0x5EED5EED5EED5EEDull) {}

ApiServer::Impl::~Impl() { Stop(); }

absl::Status ApiServer::Impl::Init() {
  if (!(opts_.speed > 0)) return absl::InvalidArgumentError("speed: must be > 0");
  uv_loop_init(&loop_);
  loop_ready_ = true;
  if (opts_.api.crds != nullptr) {
    for (const crd::Kind* k : opts_.api.crds->kinds()) {
      table_.AddCrd(engine::ResourceType{k->group, k->version, k->kind, k->plural, k->namespaced,
                                         k->status_subresource, k->short_names},
                    k->printer_columns);
    }
  }
  sim_ = std::make_unique<Simulator>(scenario_, opts_.api);
  sim_->SetWatchSink([this](std::vector<records::EventRecord> events) { OnChanges(std::move(events)); });
  if (opts_.controller) sim_->SetController(opts_.controller);
  sim_->Start();
  floor_rv_ = sim_->objects().resource_version();
  for (const auto& [key, object] : sim_->objects().objects()) metadata_[key] = MetadataOf(object);
  real_start_ns_ = SteadyNs();
  virtual_start_ns_ = sim_->now();
  http_ = std::make_unique<StreamingHttpServer>(
      &loop_, [this](const HttpRequest& r, ConnId id) { return Handle(r, id); },
      [this](ConnId id) { watches_.erase(id); });
  auto port = http_->Listen(opts_.host, opts_.port);
  if (!port.ok()) {
    http_->Close();
    uv_run(&loop_, UV_RUN_NOWAIT);
    return port.status();
  }
  port_ = *port;
  uv_async_init(&loop_, &async_, [](uv_async_t* a) { static_cast<Impl*>(a->data)->RunPosted(); });
  async_.data = this;
  uv_timer_init(&loop_, &sim_timer_);
  sim_timer_.data = this;
  uv_timer_init(&loop_, &tick_timer_);
  tick_timer_.data = this;
  uv_timer_start(
      &tick_timer_, [](uv_timer_t* t) { static_cast<Impl*>(t->data)->Tick(); }, kTickMs, kTickMs);
  ArmSimTimer();
  thread_ = std::thread([this] { uv_run(&loop_, UV_RUN_DEFAULT); });
  return absl::OkStatus();
}

// Runs `fn` on the loop thread and waits; after Stop, runs it here.
void ApiServer::Impl::Call(std::function<void()> fn) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!running_()) {
    lock.unlock();
    fn();
    return;
  }
  bool done = false;
  posted_.push_back([&]() {
    fn();
    std::lock_guard<std::mutex> g(mu_);
    done = true;
    cv_.notify_all();
  });
  uv_async_send(&async_);
  cv_.wait(lock, [&] { return done; });
}

void ApiServer::Impl::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!thread_.joinable()) {
      if (loop_ready_ && !stopped_) {
        stopped_ = true;
        uv_run(&loop_, UV_RUN_NOWAIT);
        uv_loop_close(&loop_);
      }
      return;
    }
    stopping_ = true;
    uv_async_send(&async_);
  }
  thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
  uv_loop_close(&loop_);
}

void ApiServer::Impl::RunPosted() {
  std::vector<std::function<void()>> fns;
  bool stop = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    fns.swap(posted_);
    stop = stopping_;
  }
  for (auto& fn : fns) fn();
  if (stop) {
    http_->Close();
    watches_.clear();
    uv_close(reinterpret_cast<uv_handle_t*>(&async_), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&sim_timer_), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&tick_timer_), nullptr);
  }
}

int64_t ApiServer::Impl::VirtualNow() const {
  double real = static_cast<double>(SteadyNs() - real_start_ns_);
  return virtual_start_ns_ + static_cast<int64_t>(real * opts_.speed);
}

// Runs every happening due by now, then moves the clock to now.
void ApiServer::Impl::Sync() {
  int64_t vnow = VirtualNow();
  for (auto next = sim_->NextTime(); next && *next <= vnow; next = sim_->NextTime()) sim_->Step();
  sim_->AdvanceClock(vnow);
  ArmSimTimer();
}

void ApiServer::Impl::ArmSimTimer() {
  auto next = sim_->NextTime();
  if (!next) {
    uv_timer_stop(&sim_timer_);
    return;
  }
  double real_ns = static_cast<double>(*next - VirtualNow()) / opts_.speed;
  double ms = std::ceil(std::max(0.0, real_ns) / 1e6);
  uint64_t delay = ms > 2e9 ? 2000000000ull : static_cast<uint64_t>(ms);
  uv_timer_start(
      &sim_timer_, [](uv_timer_t* t) { static_cast<Impl*>(t->data)->Sync(); }, delay, 0);
}

}  // namespace recon::sim
