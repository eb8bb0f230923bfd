// A scenario run: the agent's runtime (runtime/runtime.h) drives the
// simulated cluster on virtual time: the simulator's events are appended to
// the store and reduced, the actions recorded and dispatched through the
// work queue back to the simulator, whose results are the next events,
// until the run converges or virtual time runs out.
#ifndef RECON_ADAPTERS_SIM_RUNNER_H_
#define RECON_ADAPTERS_SIM_RUNNER_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "adapters/sim/simulator.h"
#include "engine/engine.h"
#include "runtime/redact.h"
#include "runtime/run_on.h"
#include "runtime/secret_table.h"

namespace recon::sim {

struct RunOptions {
  bool until_converged = false;
  int64_t max_time_ns = 3600LL * 1'000'000'000;  // of virtual time
  // Converged: nothing queued or in flight, and this many bursts in a row
  // (events delivered at one moment of virtual time) produced no actions
  // besides setTimer. One: a periodic checker (a timer, its probes, their
  // results) never leaves two quiet bursts in a row, yet has nothing to do.
  int quiet_bursts = 1;
  // "domain.key" = value, recorded in the log's first Cluster event so a
  // replay needs no --set. A directory option (samples.inventory=DIR)
  // becomes a Content event instead.
  std::vector<std::pair<std::string, std::string>> options;
  std::function<absl::StatusOr<records::ContentFiles>(const std::string& dir)> load_directory;
  // Secrets are redacted before they are logged (runtime/redact.h); pass
  // Redactor::ForStore(dir) for a store on disk. Unset: a key for this run.
  std::shared_ptr<const runtime::Redactor> redactor;
  // The markers' values for actions handed to the simulator (real values go
  // into the simulated cluster, never into the log). Unset: one for the run.
  std::shared_ptr<runtime::SecretTable> secret_table;
};

struct RunSummary {
  bool converged = false;
  int64_t start_ns = 0, end_ns = 0;
  uint64_t first_seq = 0, last_seq = 0;
  uint64_t events = 0, actions = 0;
  std::map<std::string, uint64_t> events_by_type, actions_by_verb;
  std::map<std::string, uint64_t> actions_by_verb_kind;  // "<verb> <Kind>"
};

// What an agent logs when it starts: domain inputs (Content events for
// directory options), the initial list, then the Cluster facts with the
// options it runs with (so a replay needs no --set). The engine applies the
// options when it reduces that Cluster event, in the run as in any replay.
absl::StatusOr<std::vector<records::EventRecord>> BuildPreamble(const Scenario& scenario, Simulator& sim,
                                                                engine::Engine& engine,
                                                                const RunOptions& options);

// `run` runs the runtime on its store (runtime::RunOnNewLog(engine, store):
// a sim run starts a new log).
absl::StatusOr<RunSummary> RunScenario(const Scenario& scenario, Simulator& sim, engine::Engine& engine,
                                       const runtime::RunFn& run, const RunOptions& options);

// One screen for a person: time to converge, events, actions by verb,
// faults, and the final conditions of the main objects.
std::string FormatSummary(const Scenario& scenario, const RunSummary& summary, const Simulator& sim);

// "2m13.5s".
std::string FormatDuration(int64_t ns);

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_RUNNER_H_
