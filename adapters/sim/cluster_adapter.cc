#include "adapters/sim/cluster_adapter.h"

#include "base/strings.h"

namespace recon::sim {

absl::StatusOr<std::vector<records::EventRecord>> SimClusterAdapter::Start(const engine::World& last_seen) {
  if (last_seen.ObjectCount() > 0) {
    // The simulated cluster lives only in this process: a restarted agent
    // gets a fresh one from the scenario, which would not match the log.
    return absl::FailedPreconditionError(
        "the store already holds a run against a simulated cluster, which does not survive a restart; "
        "use a new --store (a live cluster resumes from its store)");
  }
  return BuildPreamble(scenario_, sim_, engine_, options_);
}

std::vector<records::EventRecord> SimClusterAdapter::Poll(int64_t now_ns) {
  std::vector<records::EventRecord> out;
  while (auto next = sim_.NextTime()) {
    if (*next > now_ns) break;
    for (auto& e : sim_.Step()) out.push_back(std::move(e));
  }
  // A timer of the runtime's may be due with nothing of the simulator's:
  // what the domains do about it happens at its time, not before.
  sim_.AdvanceClock(now_ns);
  return out;
}

}  // namespace recon::sim
