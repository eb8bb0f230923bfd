// Replays a log through an Engine: from parsed JSONL lines or from a store,
// optionally starting from a snapshot; compares action streams.
#ifndef RECON_ENGINE_REPLAY_H_
#define RECON_ENGINE_REPLAY_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/engine.h"
#include "store/event_store.h"

namespace recon::engine {

using ActionSink = std::function<void(const records::ActionRecord&)>;
// Each event as reduced, with the actions it caused (shadow comparison).
using StepSink = std::function<void(const Event&, std::span<const records::ActionRecord>)>;

// Replays `events` (the Nth has seq N) with seq in (engine.last_seq(), until].
absl::Status ReplayRecords(Engine& engine, std::span<const records::EventRecord> events, uint64_t until,
                           const ActionSink& sink);

// The same, handing each event with its actions to `steps` (may be empty).
absl::Status ReplayRecordSteps(Engine& engine, std::span<const records::EventRecord> events, uint64_t until,
                               const StepSink& steps);

// Replays events of `store` with seq in (engine.last_seq(), until]. With
// `record`, the recomputed actions are written to the store too.
absl::Status ReplayStore(Engine& engine, store::EventStore& st, uint64_t until, const ActionSink& sink,
                         bool record = false);
absl::Status ReplayStoreSteps(Engine& engine, store::EventStore& st, uint64_t until, const StepSink& steps,
                              bool record = false);

// Restores the store's latest snapshot (if any, and if its seq <= until).
// Returns the snapshot's seq, or 0 when there was none to use.
absl::StatusOr<uint64_t> RestoreFromStore(Engine& engine, store::EventStore& st, uint64_t until);

// All actions recorded in a store, in (cause, index) order.
absl::StatusOr<std::vector<records::ActionRecord>> RecordedActions(store::EventStore& st, uint64_t until);

// Where two action streams differ, by cause seq (first divergences first).
struct Divergence {
  uint64_t seq = 0;
  std::vector<std::string> left;   // JSONL lines of the first stream for this cause
  std::vector<std::string> right;  // ... of the second
};
std::vector<Divergence> DiffActions(const std::vector<records::ActionRecord>& left,
                                    const std::vector<records::ActionRecord>& right);

}  // namespace recon::engine

#endif  // RECON_ENGINE_REPLAY_H_
