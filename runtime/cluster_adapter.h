// What the runtime needs from a cluster (simulated or live): observations
// in, actions out. Outcomes of actions come back as events (ActionResult,
// watch events), never as return values, so they are logged like
// everything else.
#ifndef RECON_RUNTIME_CLUSTER_ADAPTER_H_
#define RECON_RUNTIME_CLUSTER_ADAPTER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/world.h"
#include "records/record.h"

namespace recon::runtime {

class ClusterAdapter {
 public:
  virtual ~ClusterAdapter() = default;
  virtual std::string_view Name() const = 0;
  // Connects and lists. `last_seen` is the world the log already holds (a
  // restart); an adapter may use it to pick up where it left off.
  virtual absl::StatusOr<std::vector<records::EventRecord>> Start(const engine::World& last_seen) = 0;
  // Carries out one action. Never a setTimer: timers are the runtime's
  // (runtime/timer_table.h), the same for every adapter.
  virtual void Apply(const records::ActionRecord& action) = 0;
  // The runtime's timers that fell due, as Timer events, before they are
  // reduced: the adapter returns those to deliver now, and may keep one
  // back to deliver from Poll later, after work it starts for it (the ARM
  // adapter reads ARM on its poll timer, and the timer follows the reads).
  virtual std::vector<records::EventRecord> TimersDue(std::vector<records::EventRecord> due) { return due; }
  // Everything due by `now_ns`, in delivery order.
  virtual std::vector<records::EventRecord> Poll(int64_t now_ns) = 0;
  // When Poll will next have something to deliver (timers aside: the
  // runtime's); nullopt if only Apply can make something happen.
  virtual std::optional<int64_t> NextDueNs() const = 0;
  // Work in flight (results, imports, scripted edits).
  virtual bool HasPendingWork() const = 0;

  // A live adapter receives from its own I/O thread. The runtime hands it
  // `wake` before Start; calling it (from any thread) makes the runtime Poll
  // soon. Simulated adapters have no use for it.
  virtual void SetWakeup(std::function<void()> wake) {}
  // Objects a list found unchanged against what `last_seen` (or an earlier
  // list) holds, same resourceVersion, so no event brings them into this
  // process. A restarted agent still needs the values behind the stored
  // log's secret markers (engine/REDACTION.md), so the runtime asks for the
  // types `wanted(group, kind)` accepts and shows what `seen` receives to
  // its redactor only: never appended, never reduced. Set before Start;
  // `seen` may be called from the adapter's own thread.
  using WantedType = std::function<bool(std::string_view group, std::string_view kind)>;
  using SeenUnchanged = std::function<void(std::vector<records::EventRecord>)>;
  virtual void SetSeenUnchanged(WantedType wanted, SeenUnchanged seen) {}
  // For /readyz: caches synced (a live adapter's initial lists are done and
  // it holds the leader lease). The runtime also requires its own resume.
  virtual bool Ready() const { return true; }
  // A fatal condition found off the runtime's thread (leader lease lost,
  // credentials rejected for good): the runtime stops with this error.
  virtual absl::Status Health() const { return absl::OkStatus(); }
  // Called once when the runtime stops, before it returns: stop watches,
  // release the leader lease, join threads.
  virtual void Shutdown() {}
};

}  // namespace recon::runtime

#endif  // RECON_RUNTIME_CLUSTER_ADAPTER_H_
