#include "runtime/runtime.h"

#include <uv.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <chrono>
#include <cmath>
#include <csignal>

#include "base/strings.h"
#include "engine/explain.h"
#include "engine/replay.h"
#include "runtime/http_server.h"
#include "spdlog/spdlog.h"

namespace recon::runtime {

using engine::ActionId;
using engine::ConditionTracker;
using engine::Engine;
using engine::Event;
using engine::ReplayStore;
using engine::RestoreFromStore;
using engine::Timeline;
using records::EventType;
namespace {

// The failed results that settle writes a killed run left unanswered.
std::vector<records::EventRecord> InterruptedResults(const std::vector<records::ActionRecord>& writes,
                                                     int64_t now_ns) {
  std::vector<records::EventRecord> out;
  for (const auto& a : writes) {
    records::EventRecord e;
    e.time_ns = now_ns;
    e.type = records::EventType::kActionResult;
    e.action_result.action = ActionId(a.cause_seq, a.index);
    e.action_result.ok = false;
    e.action_result.error = std::string(kInterruptedError);
    out.push_back(std::move(e));
  }
  return out;
}

double Since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string Result(const Event& e) {
  if (e.ok) return "ok";
  if (!e.status) return "error";
  switch (*e.status) {
    case 404:
      return "not_found";
    case 409:
      return "conflict";
    case 429:
      return "throttled";
    default:
      return *e.status >= 500 ? "server_error" : "error";
  }
}

}  // namespace

struct Runtime::Loop {
  uv_loop_t loop;
  uv_timer_t timer;
  uv_idle_t idle;  // "run Tick on the next loop iteration"
  uv_async_t stop;
  uv_async_t wake;
  uv_signal_t sigint, sigterm;
  std::unique_ptr<HttpServer> http;
  bool stopping = false;
};

Runtime::Runtime(ClusterAdapter& adapter, Engine& engine, store::EventStore& store, const TimeSource& clock,
                 Metrics& metrics, RuntimeOptions options)
    : adapter_(adapter),
      engine_(engine),
      store_(store),
      clock_(clock),
      metrics_(metrics),
      options_(std::move(options)),
      redactor_(options_.redactor ? *options_.redactor : Redactor::WithRandomKey()),
      secrets_(options_.secret_table ? options_.secret_table : std::make_shared<SecretTable>()),
      queue_(clock, options_.backoff),
      write_failures_(options_.write_warning_interval_ns),
      loop_(std::make_unique<Loop>()) {
  redactor_.AddDomainRulesOf(engine_.reducers());
  for (const auto& r : engine_.reducers())
    if (r->Describe().redecides_failed_writes) redeciding_.insert(std::string(r->Domain()));
  redactor_.set_secret_table(secrets_);
  DeclareMetrics();
}

Runtime::~Runtime() = default;

void Runtime::DeclareMetrics() {
  metrics_.Declare("recon_events_appended_total", "counter", "Events appended to the log, by type.");
  metrics_.Declare("recon_append_latency_seconds", "histogram", "Latency of one store append (a burst).",
                   {0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1});
  metrics_.Declare("recon_reduce_latency_seconds", "histogram", "Time one reducer took for one event.",
                   {0.00001, 0.0001, 0.001, 0.01, 0.1, 1});
  metrics_.Declare("recon_actions_total", "counter", "Action outcomes, by domain, verb and result.");
  metrics_.Declare("recon_actions_emitted_total", "counter",
                   "Actions emitted by reducers, by domain and verb.");
  metrics_.Declare("recon_write_failures_total", "counter",
                   "Writes the cluster refused or that failed, by domain, verb and HTTP status code "
                   "(none: no HTTP answer).");
  metrics_.Declare("recon_creates_held_total", "counter",
                   "Creates the engine held because an earlier write of the domain there was refused or "
                   "has no outcome yet (engine/create_guard.h), by domain and kind.");
  metrics_.Declare("recon_queue_depth", "gauge", "Actions waiting in the dispatcher queue or in flight.");
  metrics_.Declare("recon_retries_total", "counter", "Actions re-queued after a failure.");
  metrics_.Declare("recon_last_seq", "gauge", "Seq of the last event appended.");
  metrics_.Declare("recon_heap_in_use_bytes", "gauge",
                   "Bytes allocated with malloc and not freed (glibc's mallinfo2).");
  metrics_.Declare("recon_store_memory_bytes", "gauge",
                   "Memory the event store holds, by part (memtables, block_cache, table_readers).");
  metrics_.Declare("recon_store_bytes", "gauge",
                   "Bytes the log takes where it lives (RocksDB: its files; etcd: the whole database).");
  metrics_.Declare("recon_store_quota_bytes", "gauge",
                   "The size past which the store refuses writes (etcd's quota; absent without one).");
  engine_.set_reduce_observer([this](std::string_view domain, double s) {
    metrics_.Observe("recon_reduce_latency_seconds", {{"domain", std::string(domain)}}, s);
  });
}

absl::Status Runtime::Resume() {
  uint64_t last = store_.LastSeq();
  if (last == 0) return absl::OkStatus();
  auto from = RestoreFromStore(engine_, store_, store::kEndOfLog);
  if (!from.ok()) return from.status();
  // What the previous run dispatched (or queued) but never saw answered:
  // from the checkpoint written with the last snapshot, on to the end.
  bool from_checkpoint = false;
  auto scan = ScanUnanswered(store_, &from_checkpoint);
  if (!scan.ok()) return scan.status();
  unanswered_ = scan->Result();
  status_.unanswered_from = from_checkpoint ? scan->through() : 0;
  // Catch up without dispatching up to the last event whose actions were
  // recorded: those were handled before.
  uint64_t handled = std::min(last, std::max(engine_.last_seq(), unanswered_.last_cause));
  if (auto s = ReplayStore(engine_, store_, handled, nullptr); !s.ok()) return s;
  // A kill between appending a burst's events and recording its actions
  // leaves events whose actions exist nowhere. Reducing them again gives
  // the actions the killed run computed (reducers are deterministic): they
  // are recorded now and queued like any others.
  std::vector<records::ActionRecord> lost;
  if (auto s = ReplayStore(
          engine_, store_, store::kEndOfLog, [&](const records::ActionRecord& a) { lost.push_back(a); },
          /*record=*/true);
      !s.ok())
    return s;
  status_.recovered = lost.size();
  status_.actions += lost.size();
  for (auto& a : lost) {
    std::string key = WorkKey(a);
    queue_.Add(key, std::move(a));
  }
  status_.resumed_from = last;
  return absl::OkStatus();
}

absl::Status Runtime::Burst(std::vector<records::EventRecord> events) {
  // Before the append: reducers see what the log keeps, so a replay of the
  // store reproduces this run exactly.
  if (auto s = redactor_.RedactAll(events); !s.ok()) return s;
  auto t0 = std::chrono::steady_clock::now();
  auto first = store_.Append(events);
  if (!first.ok()) return first.status();
  metrics_.Observe("recon_append_latency_seconds", {}, Since(t0));
  std::vector<records::ActionRecord> actions;
  bool acted = false;
  ConditionTracker conditions;
  for (size_t i = 0; i < events.size(); ++i) {
    Event e = Event::FromRecord(*first + i, events[i]);
    metrics_.Add("recon_events_appended_total", {{"type", std::string(records::EventTypeName(e.type))}});
    if (e.type == EventType::kActionResult) {
      std::string id(e.action);
      auto it = in_flight_.find(id);
      if (it != in_flight_.end()) {
        const records::ActionRecord& a = in_flight_actions_[id];
        std::string result = Result(e);
        metrics_.Add("recon_actions_total", {{"domain", a.domain}, {"verb", a.verb}, {"result", result}});
        if (!e.ok) {
          int code = e.status.value_or(0);
          metrics_.Add(
              "recon_write_failures_total",
              {{"domain", a.domain}, {"verb", a.verb}, {"code", code ? std::to_string(code) : "none"}});
          if (auto line = write_failures_.Line(a, code, e.error, clock_.NowNs())) spdlog::warn("{}", *line);
        }
        // A conflict or a missing object is the reducer's to decide again
        // (it sees the fresh object); transient errors are retried, unless
        // the domain re-decides those too (what it sent may be stale by now).
        bool retry = !e.ok && result != "conflict" && result != "not_found" && result != "error" &&
                     !redeciding_.contains(a.domain);
        queue_.Done(it->second, e.ok, retry ? std::optional<records::ActionRecord>(a) : std::nullopt);
        in_flight_actions_.erase(id);
        in_flight_.erase(it);
      }
    }
    size_t before = actions.size();
    if (auto s = engine_.Step(e, &actions); !s.ok()) return s;
    if (options_.on_reduced)
      options_.on_reduced(e, std::span<const records::ActionRecord>(actions).subspan(before));
    for (const auto& h : engine_.held())
      metrics_.Add("recon_creates_held_total", {{"domain", h.domain}, {"kind", h.kind}});
    for (size_t k = before; k < actions.size(); ++k) {
      const auto& a = actions[k];
      metrics_.Add("recon_actions_emitted_total", {{"domain", a.domain}, {"verb", a.verb}});
      if (a.verb != "setTimer") acted = true;
      Timeline t;
      conditions.Observe(e, a, t);
      if (!t.entries().empty()) {
        const auto& last = t.entries().back();
        status_.last_condition = recon::StrCat("seq ", last.seq, " ", last.subject, ": ", last.text);
      }
    }
  }
  if (!actions.empty()) {
    if (auto s = store_.AppendActions(actions); !s.ok()) return s;
  }
  for (auto& a : actions) {
    std::string key = WorkKey(a);  // before `a` is moved from
    queue_.Add(key, std::move(a));
  }
  status_.events += events.size();
  status_.actions += actions.size();
  metrics_.Set("recon_last_seq", {}, store_.LastSeq());
  for (const auto& r : engine_.reducers()) r->ExportMetrics(engine_.world(), metrics_);
  quiet_ = acted ? 0 : quiet_ + 1;
  since_snapshot_ += events.size();
  if (since_snapshot_ >= options_.snapshot_every) {
    if (auto s = WriteSnapshot(); !s.ok()) return s;
  }
  return absl::OkStatus();
}

void Runtime::Dispatch() {
  while (auto item = queue_.Pop()) {
    std::string id = ActionId(item->second.cause_seq, item->second.index);
    const std::string& verb = item->second.verb;
    // A timer or a probe is answered by its Timer or Probe event, not by an
    // ActionResult: nothing to wait for.
    bool answered_by_event = verb == "setTimer" || verb == "probe";
    if (verb == "setTimer") {
      // The runtime's own: fired by Tick on this clock, for any adapter.
      timers_.Set(item->second.timer, item->second.at_ns);
      queue_.Done(item->first, true);
      ++status_.dispatched;
      continue;
    }
    if (options_.shadow && !answered_by_event) {
      // A prediction only: recorded, never sent, so never answered.
      queue_.Done(item->first, true);
      ++status_.withheld;
      continue;
    }
    if (!answered_by_event) {
      in_flight_[id] = item->first;
      in_flight_actions_[id] = item->second;
    }
    // Real values in only on the way out: the log and in_flight_actions_
    // (retries) keep the markers.
    if (auto s = secrets_->Substitute(item->second); !s.ok()) {
      Refuse(id, s);
      continue;
    }
    adapter_.Apply(item->second);
    if (answered_by_event) queue_.Done(item->first, true);
    ++status_.dispatched;
  }
  status_.pending = queue_.depth() + in_flight_.size();
  metrics_.Set("recon_queue_depth", {}, static_cast<double>(status_.pending));
  metrics_.Set("recon_retries_total", {}, static_cast<double>(queue_.retries()));
}

std::string Runtime::MetricsText() {
  // The store's memory is read at scrape time, not on every append.
  store::StoreMemory m = store_.Memory();
  metrics_.Set("recon_store_memory_bytes", {{"part", "memtables"}}, static_cast<double>(m.memtables));
  metrics_.Set("recon_store_memory_bytes", {{"part", "block_cache"}}, static_cast<double>(m.block_cache));
  metrics_.Set("recon_store_memory_bytes", {{"part", "table_readers"}}, static_cast<double>(m.table_readers));
  CheckStoreRoom();
#if defined(__GLIBC__)
  // Heap in use, to tell a leak (it grows) from fragmentation (RSS grows, it does not).
  struct mallinfo2 mi = mallinfo2();
  metrics_.Set("recon_heap_in_use_bytes", {}, static_cast<double>(mi.uordblks + mi.hblkhd));
#endif
  return metrics_.Render();
}

void Runtime::Refuse(const std::string& id, const absl::Status& why) {
  records::EventRecord r;
  r.time_ns = clock_.NowNs();
  r.type = records::EventType::kActionResult;
  r.action_result.action = id;
  r.action_result.ok = false;  // no HTTP status: not retried by the queue, the reducer decides
  r.action_result.error = std::string(Sv(why.message()));
  refused_.push_back(std::move(r));
}

absl::Status Runtime::WriteSnapshot() {
  auto snap = engine_.Snapshot();
  if (!snap.ok()) return snap.status();
  since_snapshot_ = 0;
  if (auto s = store_.PutSnapshot(engine_.last_seq(), *snap); !s.ok()) return s;
#if defined(__GLIBC__)
  // Hand freed heap pages back to the OS every few thousand events: bursts
  // (relists, snapshots, restarts' log reads) leave free pages inside
  // glibc's arenas that otherwise count in a long-running agent's RSS.
  malloc_trim(0);
#endif
  CheckStoreRoom();
  // Every event's actions are recorded by now (Burst records them first).
  return CheckpointUnanswered(store_);
}

void Runtime::CheckStoreRoom() {
  auto size = store_.Size();
  if (!size.ok()) {
    // Unreachable now: the next append says so if it lasts; keep the last figures.
    spdlog::debug("store: size not read: {}", Sv(size.status().message()));
    return;
  }
  metrics_.Set("recon_store_bytes", {}, static_cast<double>(size->bytes));
  if (size->quota > 0) metrics_.Set("recon_store_quota_bytes", {}, static_cast<double>(size->quota));
  switch (room_.Update(*size)) {
    case StoreRoom::Change::kStarted:
      spdlog::warn("{}", room_.warning());
      break;
    case StoreRoom::Change::kEnded:
      spdlog::info("store: back under {} % of its quota", static_cast<int>(kStoreRoomWarnAt * 100));
      break;
    case StoreRoom::Change::kNone:
      break;
  }
  status_.store_warning = room_.warning();
}

void Runtime::Tick() {
  if (loop_->stopping) return;
  if (auto health = adapter_.Health(); !health.ok()) {
    error_ = health;
    Stop();
    return;
  }
  int64_t now = clock_.NowNs();
  status_.now_ns = now;
  auto events = adapter_.Poll(now);
  // Timers after what the cluster delivered by now; an adapter may hold one
  // back until its own work for it is done (the ARM adapter's poll round).
  if (auto due = timers_.TakeDue(now); !due.empty())
    for (auto& t : adapter_.TimersDue(std::move(due))) events.push_back(std::move(t));
  for (auto& r : refused_) events.push_back(std::move(r));
  refused_.clear();
  if (!events.empty()) {
    if (auto s = Burst(std::move(events)); !s.ok()) {
      error_ = s;
      Stop();
      return;
    }
  }
  Dispatch();
  // Results of what was just dispatched may already be due.
  bool idle = !adapter_.HasPendingWork() && status_.pending == 0;
  status_.converged = idle && quiet_ >= options_.quiet_bursts;
  if (options_.on_progress) options_.on_progress(status_);
  if (options_.until_converged && status_.converged) {
    Stop();
    return;
  }
  if (options_.max_time_ns > 0 && now - start_ns_ >= options_.max_time_ns) {
    Stop();
    return;
  }
  Schedule();
}

void Runtime::Schedule() {
  int64_t now = clock_.NowNs();
  std::optional<int64_t> next = adapter_.NextDueNs();
  if (auto q = queue_.NextDueNs(); q && (!next || *q < *next)) next = q;
  if (auto t = timers_.NextDueNs(); t && (!next || *t < *next)) next = t;
  if (!refused_.empty()) next = now;
  if (!next) {
    const bool quiet = in_flight_.empty() && !adapter_.HasPendingWork();
    // On a virtual clock (a simulated cluster) nothing is ever due again:
    // the run is over, whether or not it was asked to stop at convergence.
    if ((options_.until_converged && quiet) || options_.fast_forward) {
      status_.converged = quiet;
      Stop();
    }
    return;  // woken by signals or HTTP only
  }
  uint64_t delay_ms = 0;
  if (*next > now) {
    if (options_.fast_forward && options_.max_time_ns > 0 && *next - start_ns_ > options_.max_time_ns) {
      // Nothing is due before the time limit: a jump would carry the run
      // past it (a live run instead waits and stops at its next Tick).
      Stop();
      return;
    }
    if (options_.fast_forward) {
      options_.fast_forward(*next);
    } else {
      // Rounded up: a wait shorter than a millisecond is not a 0 ms one.
      delay_ms = static_cast<uint64_t>(std::ceil((*next - now) / 1e6 / std::max(options_.speed, 1e-9)));
    }
  }
  if (delay_ms == 0) {
    // "Now" goes through an idle handle, never a 0 ms timer: libuv before
    // 1.48 runs a 0 ms timer re-armed from its own callback again in the
    // same uv__run_timers pass (libuv issue 4245), so the loop never polled
    // for I/O and never saw SIGTERM's self-pipe (issue 18). An active idle
    // handle makes the next poll non-blocking instead, once per Tick.
    uv_timer_stop(&loop_->timer);
    uv_idle_start(&loop_->idle, [](uv_idle_t* h) {
      uv_idle_stop(h);
      static_cast<Runtime*>(h->data)->Tick();
    });
    return;
  }
  uv_idle_stop(&loop_->idle);
  uv_timer_start(
      &loop_->timer, [](uv_timer_t* t) { static_cast<Runtime*>(t->data)->Tick(); }, delay_ms, 0);
}

void Runtime::Stop() {
  if (loop_->stopping) return;
  uv_async_send(&loop_->stop);
}

absl::Status Runtime::Run() {
  Loop& l = *loop_;
  uv_loop_init(&l.loop);
  uv_timer_init(&l.loop, &l.timer);
  l.timer.data = this;
  uv_idle_init(&l.loop, &l.idle);
  l.idle.data = this;
  uv_async_init(&l.loop, &l.stop, [](uv_async_t* a) {
    auto* self = static_cast<Runtime*>(a->data);
    self->loop_->stopping = true;
    uv_stop(a->loop);
  });
  l.stop.data = this;
  uv_async_init(&l.loop, &l.wake, [](uv_async_t* a) { static_cast<Runtime*>(a->data)->Tick(); });
  l.wake.data = this;
  adapter_.SetWakeup([&l] { uv_async_send(&l.wake); });
  // A restart's unchanged Secrets: their values, behind the markers the log
  // holds, are learned for dispatch (engine/REDACTION.md). Copies of the
  // redactor share its table and outlive this call.
  adapter_.SetSeenUnchanged(
      [r = redactor_](std::string_view group, std::string_view kind) { return r.Covers(group, kind); },
      [r = redactor_](std::vector<records::EventRecord> objects) { r.Learn(std::move(objects)); });
  for (auto* sig : {&l.sigint, &l.sigterm}) {
    uv_signal_init(&l.loop, sig);
    sig->data = this;
    uv_signal_start(
        sig, [](uv_signal_t* s, int) { static_cast<Runtime*>(s->data)->Stop(); },
        sig == &l.sigint ? SIGINT : SIGTERM);
  }
  if (options_.http_port >= 0) {
    l.http =
        std::make_unique<HttpServer>(&l.loop, [this](const std::string& method, const std::string& path) {
          if (method != "GET") return HttpResponse{405, "text/plain; charset=utf-8", "method not allowed\n"};
          if (path == "/healthz") return HttpResponse{200, "text/plain; charset=utf-8", "ok\n"};
          if (path == "/readyz") {
            // The quota warning is a detail, not unreadiness: the agent still works.
            std::string detail = room_.warning().empty() ? "" : StrCat("warning: ", room_.warning(), "\n");
            return ready_ && adapter_.Ready() ? HttpResponse{200, "text/plain; charset=utf-8", "ready\n" + detail}
                                              : HttpResponse{503, "text/plain; charset=utf-8", "starting\n" + detail};
          }
          if (path == "/metrics")
            return HttpResponse{200, "text/plain; version=0.0.4; charset=utf-8", MetricsText()};
          return HttpResponse{404, "text/plain; charset=utf-8", "not found\n"};
        });
    auto port = l.http->Listen(options_.http_host, options_.http_port);
    if (!port.ok()) return port.status();
    status_.http_port = *port;
    if (options_.on_listening) options_.on_listening(*port);
  }

  auto asked_to_stop = [this] { return options_.stop_requested && options_.stop_requested(); };
  // Signals from here on reach the loop's handlers; one that came earlier
  // (recorded by the caller) means: do not start at all.
  if (asked_to_stop()) l.stopping = true;
  absl::Status s = l.stopping ? absl::OkStatus() : Resume();
  if (s.ok() && !l.stopping) {
    CheckStoreRoom();
    start_ns_ = clock_.NowNs();
    auto initial = adapter_.Start(engine_.world());
    if (!initial.ok()) {
      s = initial.status();
    } else {
      status_.interrupted = options_.shadow ? 0 : unanswered_.writes.size();
      if (!initial->empty()) s = Burst(std::move(*initial));
      // Writes the previous run left unanswered may or may not have reached
      // the cluster. They are not sent again (an importImage must not run
      // twice); once the re-listed world is in, each gets a failed
      // ActionResult saying so, and its domain decides again from what is
      // there (level-based), instead of waiting for an answer that died
      // with the process.
      if (s.ok() && !unanswered_.writes.empty() && !options_.shadow)
        s = Burst(InterruptedResults(unanswered_.writes, clock_.NowNs()));
      for (auto& a : unanswered_.rearm) {
        std::string key = WorkKey(a);
        queue_.Add(key, std::move(a));
        ++status_.rearmed;
      }
      unanswered_ = {};
      ready_ = true;
      if (s.ok() && !asked_to_stop()) {
        Dispatch();
        Schedule();
        uv_run(&l.loop, UV_RUN_DEFAULT);
      }
    }
  }
  if (s.ok()) s = error_;
  adapter_.Shutdown();
  adapter_.SetWakeup(nullptr);
  // Graceful shutdown: the state goes into a snapshot so a restart resumes.
  if (s.ok() && status_.events > 0) s = WriteSnapshot();
  uv_timer_stop(&l.timer);
  uv_idle_stop(&l.idle);
  uv_close(reinterpret_cast<uv_handle_t*>(&l.timer), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&l.idle), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&l.stop), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&l.wake), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&l.sigint), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&l.sigterm), nullptr);
  if (l.http) l.http->Close();
  uv_run(&l.loop, UV_RUN_DEFAULT);
  uv_loop_close(&l.loop);
  return s;
}

}  // namespace recon::runtime
