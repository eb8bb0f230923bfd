// A log replayed in two stages on two threads: the decode stage reads the
// log, decodes each record, reads its Content files from the store and
// parses each object's body; the engine stage applies and
// reduces in seq order, exactly as ReplayStoreSteps does, so the actions
// are the same byte for byte. The World adopts the parses made ahead and
// keeps only those a reducer read (Object::AdoptParse): its memory is the
// serial replay's.
//
// Only the decode stage touches the store, so it suits a store that is read
// and not written meanwhile (no `record`); the engine stage never waits on
// the store, and the decode stage runs at most a few batches ahead.
#ifndef RECON_RUNTIME_REPLAY_PIPELINE_H_
#define RECON_RUNTIME_REPLAY_PIPELINE_H_

#include <cstdint>
#include <span>

#include "absl/status/status.h"
#include "engine/engine.h"
#include "engine/replay.h"
#include "store/event_store.h"

namespace recon::runtime {

absl::Status ReplayStorePipelined(engine::Engine& engine, store::EventStore& st, uint64_t until,
                                  const engine::StepSink& steps);

// The same for records in memory (a JSONL log): the decode stage parses
// the bodies ahead. `events`' Nth has seq N, as for ReplayRecordSteps.
absl::Status ReplayRecordsPipelined(engine::Engine& engine, std::span<const records::EventRecord> events,
                                    uint64_t until, const engine::StepSink& steps);

}  // namespace recon::runtime

#endif  // RECON_RUNTIME_REPLAY_PIPELINE_H_
