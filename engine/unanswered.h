// What a stopped agent left unfinished: actions logged but never answered.
// The agent logs an action before it dispatches it and learns the outcome
// only from a later event (an ActionResult, a Timer, a Probe answer), so a
// kill in between leaves actions whose fate the log does not know. On
// restart the runtime re-arms the timers and probes (engine/runtime.cc).
#ifndef RECON_ENGINE_UNANSWERED_H_
#define RECON_ENGINE_UNANSWERED_H_

#include <vector>

#include "absl/status/statusor.h"
#include "store/event_store.h"
#include "store/record.h"

namespace recon::engine {

struct Unanswered {
  // create/update/updateStatus/delete/patch/importImage without an
  // ActionResult: they may or may not have reached the cluster.
  std::vector<store::ActionRecord> writes;
  // The latest setTimer of each timer that has not fired since, and probes
  // without an answer: safe to ask again (the adapter's timers and probes
  // died with the process).
  std::vector<store::ActionRecord> rearm;
};

// One pass over the whole log (events and actions merged in seq order).
absl::StatusOr<Unanswered> FindUnanswered(store::EventStore& store);

}  // namespace recon::engine

#endif  // RECON_ENGINE_UNANSWERED_H_
