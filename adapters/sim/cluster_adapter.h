// The simulated cluster behind the engine's ClusterAdapter interface, so the
// long-lived agent runtime drives it exactly as it would a live cluster.
#ifndef RECON_ADAPTERS_SIM_CLUSTER_ADAPTER_H_
#define RECON_ADAPTERS_SIM_CLUSTER_ADAPTER_H_

#include <vector>

#include "adapters/sim/runner.h"
#include "adapters/sim/simulator.h"
#include "engine/engine.h"
#include "runtime/cluster_adapter.h"

namespace recon::sim {

class SimClusterAdapter : public runtime::ClusterAdapter {
 public:
  SimClusterAdapter(const Scenario& scenario, Simulator& sim, engine::Engine& engine, RunOptions options)
      : scenario_(scenario), sim_(sim), engine_(engine), options_(std::move(options)) {}

  std::string_view Name() const override { return "sim"; }
  absl::StatusOr<std::vector<records::EventRecord>> Start(const engine::World& last_seen) override;
  void Apply(const records::ActionRecord& action) override { sim_.Apply(action); }
  std::vector<records::EventRecord> Poll(int64_t now_ns) override;
  std::optional<int64_t> NextDueNs() const override { return sim_.NextTime(); }
  bool HasPendingWork() const override { return sim_.HasPendingWork(); }

 private:
  const Scenario& scenario_;
  Simulator& sim_;
  engine::Engine& engine_;
  RunOptions options_;
};

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_CLUSTER_ADAPTER_H_
