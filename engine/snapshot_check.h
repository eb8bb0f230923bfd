// The snapshot check of a log (ARCHITECTURE.md, "Reducers: the contract"):
// replayed once straight through, then again from a snapshot taken after
// every event and restored into a new engine. Restore plus the tail must
// give the straight replay's actions after that event and its final state;
// a reducer whose Snapshot/Restore misses state, or whose derived caches
// come back different, shows here. The scenario runner runs it on every
// scenario (`recon replay LOG --check-snapshots`).
#ifndef RECON_ENGINE_SNAPSHOT_CHECK_H_
#define RECON_ENGINE_SNAPSHOT_CHECK_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <span>

#include "absl/status/statusor.h"
#include "engine/engine.h"
#include "records/record.h"

namespace recon::engine {

using EngineFactory = std::function<absl::StatusOr<std::unique_ptr<Engine>>()>;

// The number of snapshots checked (one after each event but the last), or
// FailedPrecondition naming the first seq whose snapshot gave other actions
// (the first differing line of each side) or, with `compare_state`,
// another final state (the engine's StateDigest).
absl::StatusOr<size_t> CheckSnapshotAtEverySeq(const EngineFactory& make,
                                               std::span<const records::EventRecord> events,
                                               bool compare_state = true);

}  // namespace recon::engine

#endif  // RECON_ENGINE_SNAPSHOT_CHECK_H_
