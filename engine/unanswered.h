// What a stopped agent left unfinished: actions logged but never answered.
// The agent logs an action before it dispatches it and learns the outcome
// only from a later event (an ActionResult, a Timer, a Probe answer), so a
// kill in between leaves actions whose fate the log does not know. On
// restart the runtime re-arms the timers and probes, and settles the writes
// with an Interrupted result (engine/runtime.cc).
#ifndef RECON_ENGINE_UNANSWERED_H_
#define RECON_ENGINE_UNANSWERED_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "store/event_store.h"
#include "store/record.h"

namespace recon::engine {

// The error of the failed ActionResult the runtime logs, on restart, for
// each write the stopped agent left unanswered (engine/runtime.cc). Domains
// that track writes in flight re-decide on it; the runtime does not retry it.
inline constexpr std::string_view kInterruptedError =
    "Interrupted: the agent stopped before this write's result was seen; it may or may not have been applied, "
    "and the re-listed cluster state decides what happens next";

struct Unanswered {
  // create/update/updateStatus/delete/patch/importImage without an
  // ActionResult: they may or may not have reached the cluster.
  std::vector<store::ActionRecord> writes;
  // The latest setTimer of each timer that has not fired since, and probes
  // without an answer: safe to ask again (the adapter's timers and probes
  // died with the process).
  std::vector<store::ActionRecord> rearm;
  // The newest cause seq with recorded actions: a kill between appending a
  // burst's events and recording its actions leaves events after this one
  // whose actions exist nowhere (engine/runtime.cc reduces them again).
  uint64_t last_cause = 0;
};

// One pass over the whole log (events and actions merged in seq order).
absl::StatusOr<Unanswered> FindUnanswered(store::EventStore& store);

}  // namespace recon::engine

#endif  // RECON_ENGINE_UNANSWERED_H_
