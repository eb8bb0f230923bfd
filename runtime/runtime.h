// The long-lived agent loop on one libuv loop: adapter → store append (one
// batch per burst) → engine step → actions recorded → dispatcher (work
// queue with backoff and rate limit) → adapter → results come back as
// events. Serves /healthz, /readyz and /metrics; stops on SIGINT/SIGTERM
// after writing a snapshot.
#ifndef RECON_RUNTIME_RUNTIME_H_
#define RECON_RUNTIME_RUNTIME_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "engine/engine.h"
#include "runtime/cluster_adapter.h"
#include "runtime/metrics.h"
#include "runtime/redact.h"
#include "runtime/secret_table.h"
#include "runtime/store_room.h"
#include "runtime/time_source.h"
#include "runtime/timer_table.h"
#include "runtime/unanswered.h"
#include "runtime/work_queue.h"
#include "runtime/write_failure_log.h"
#include "store/event_store.h"

struct uv_loop_s;

namespace recon::runtime {

struct RuntimeOptions {
  bool until_converged = false;
  int64_t max_time_ns = 0;  // of adapter time; 0: no limit
  int http_port = -1;       // -1: no HTTP server; 0: any free port
  std::string http_host = "127.0.0.1";
  uint64_t snapshot_every = 10000;  // events between snapshots
  BackoffPolicy backoff;
  // Adapter-seconds per real second while waiting for the next due item.
  double speed = 1;
  // When set (a simulated cluster), idle waits jump the clock to the next
  // due time instead of sleeping.
  std::function<void(int64_t next_ns)> fast_forward;
  // Converged when nothing is pending and this many bursts in a row gave
  // no action besides setTimer.
  int quiet_bursts = 2;
  // A failed write is logged at warn level the first time for its object,
  // then at most once per this much clock time (runtime/write_failure_log.h).
  int64_t write_warning_interval_ns = 30'000'000'000;
  // A stop asked for before the loop's own SIGINT/SIGTERM handlers were in
  // (the CLI records those signals from its start); read once the loop's
  // handlers are installed and again before the loop runs. May be empty.
  std::function<bool()> stop_requested;
  // Shadow mode (issue 21): actions are computed and recorded as usual, but
  // no write (create, update, updateStatus, delete, patch, importImage) is
  // handed to the adapter; timers and probes, which only read, still are.
  // Writes a previous run left unanswered are not settled at a restart
  // either: nothing was sent.
  bool shadow = false;
  // Called with every event as reduced and the actions it caused (the
  // shadow comparison's input); may be empty.
  std::function<void(const engine::Event&, std::span<const records::ActionRecord>)> on_reduced;
  // Called once the HTTP server listens (before the initial lists, which
  // may take long on a large cluster), with its port; may be empty.
  std::function<void(int port)> on_listening;
  // Called after every burst (for a progress line); may be empty.
  std::function<void(const struct RuntimeStatus&)> on_progress;
  // Redacts Secrets and the domains' sensitive fields before every append
  // (runtime/redact.h); pass Redactor::ForStore(dir) so hashes stay stable
  // across restarts. Unset: a random key for this run (still redacted).
  std::shared_ptr<const Redactor> redactor;
  // Where the redactor records each marker's value and the dispatcher
  // looks it up to send real values (runtime/secret_table.h). Unset: the
  // Runtime keeps its own for this run.
  std::shared_ptr<SecretTable> secret_table;
};

struct RuntimeStatus {
  uint64_t events = 0;        // appended by this run
  uint64_t actions = 0;       // emitted by this run
  uint64_t dispatched = 0;    // handed to the adapter
  uint64_t withheld = 0;      // writes not sent (shadow mode)
  uint64_t resumed_from = 0;  // last seq found in the store at start
  uint64_t unanswered_from =
      0;  // seq of the unanswered-actions checkpoint read at start (0: read the whole log)
  // Left unanswered by the previous run: writes (counted, not re-sent)
  // and timers and probes (asked again: they died with the process).
  uint64_t interrupted = 0, rearmed = 0;
  uint64_t recovered = 0;      // actions of events a killed run appended but never recorded actions for
  size_t pending = 0;          // queue depth + in flight
  int64_t now_ns = 0;          // adapter time
  std::string last_condition;  // "seq N Config cluster: SamplesExist -> True"
  bool converged = false;
  int http_port = -1;
  // The store past 70 % of its quota (runtime/store_room.h), else "".
  std::string store_warning;
};

class Runtime {
 public:
  Runtime(ClusterAdapter& adapter, engine::Engine& engine, store::EventStore& store, const TimeSource& clock,
          Metrics& metrics, RuntimeOptions options);
  ~Runtime();

  // Resumes from the store (snapshot + tail, nothing re-applied), starts the
  // adapter, and runs until converged (if asked), max time, or Stop().
  absl::Status Run();
  // Thread- and signal-safe.
  void Stop();
  const RuntimeStatus& status() const { return status_; }

 private:
  absl::Status Resume();
  absl::Status Burst(std::vector<records::EventRecord> events);
  void Dispatch();
  // An action not sent (a marker whose value this process lacks): its
  // failed ActionResult goes into the next burst.
  void Refuse(const std::string& id, const absl::Status& why);
  std::string MetricsText();  // /metrics, with the store's memory read now
  void Tick();
  void Schedule();
  void DeclareMetrics();
  absl::Status WriteSnapshot();
  // Reads the store's size into recon_store_bytes and the quota warning:
  // at start, after each snapshot and at every scrape.
  void CheckStoreRoom();

  ClusterAdapter& adapter_;
  engine::Engine& engine_;
  store::EventStore& store_;
  const TimeSource& clock_;
  Metrics& metrics_;
  RuntimeOptions options_;
  Redactor redactor_;
  std::shared_ptr<SecretTable> secrets_;
  std::vector<records::EventRecord> refused_;  // results of actions not sent
  WorkQueue queue_;
  RuntimeStatus status_;
  std::map<std::string, std::string> in_flight_;  // action id → work key
  std::map<std::string, records::ActionRecord> in_flight_actions_;
  std::set<std::string> redeciding_;  // domains whose failed writes are not re-sent
  int quiet_ = 0;
  bool ready_ = false;
  uint64_t since_snapshot_ = 0;
  int64_t start_ns_ = 0;
  absl::Status error_;
  WriteFailureLog write_failures_;
  Unanswered unanswered_;  // found by Resume, settled after the adapter starts
  TimerTable timers_;      // the domains' setTimer actions (every adapter's)
  StoreRoom room_;
  struct Loop;
  std::unique_ptr<Loop> loop_;
};

}  // namespace recon::runtime

#endif  // RECON_RUNTIME_RUNTIME_H_
