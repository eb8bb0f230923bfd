// A Runtime's run on a store, handed to code that wires a run but may not
// name the store (ARCHITECTURE.md: adapters include the engine and the
// runtime, never store/). The simulated cluster's RunScenario builds its
// adapter, clock and options and calls the RunFn it was given.
#ifndef RECON_RUNTIME_RUN_ON_H_
#define RECON_RUNTIME_RUN_ON_H_

#include <functional>

#include "absl/status/statusor.h"
#include "engine/engine.h"
#include "runtime/cluster_adapter.h"
#include "runtime/metrics.h"
#include "runtime/runtime.h"
#include "runtime/time_source.h"
#include "store/event_store.h"

namespace recon::runtime {

// Runs a Runtime to its end; true when it converged.
using RunFn = std::function<absl::StatusOr<bool>(ClusterAdapter& adapter, const TimeSource& clock,
                                                 Metrics& metrics, RuntimeOptions options)>;

// A run that starts a new log on `store`: refused (FailedPrecondition,
// before anything runs) when the store already holds events.
RunFn RunOnNewLog(engine::Engine& engine, store::EventStore& store);

}  // namespace recon::runtime

#endif  // RECON_RUNTIME_RUN_ON_H_
