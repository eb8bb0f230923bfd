// One soak leg (soak.h): the cluster served in this process, the agent a
// child process, the workload's edits on the cluster's clock and, in the
// faulty leg, the fault schedule (faults.h); then the wait for convergence
// and what the leg's checks (checks.h) need.
#ifndef RECON_SOAK_LEG_H_
#define RECON_SOAK_LEG_H_

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "adapters/sim/api_server.h"
#include "adapters/sim/arm_server.h"
#include "adapters/sim/scenario.h"
#include "soak/faults.h"
#include "soak/memory.h"
#include "soak/soak.h"

namespace recon::soak {

class Leg {
 public:
  // `faults`: the faulty leg (else fault-free).
  Leg(const SoakOptions& o, std::string name, bool faults);

  absl::StatusOr<SoakLeg> Run();

 private:
  using Clock = std::chrono::steady_clock;

  // The leg's directory, the cluster (and ARM) serving the workload.
  absl::Status StartCluster();
  // The agent's command line against the served cluster.
  void AgentArgs(const std::string& kubeconfig);
  // Where this leg's log is: a directory in it, or PREFIX/<leg> on etcd.
  std::string Store() const;
  // The faulty leg's faults, drawn from the seed, and the workload's
  // duration with its pauses (PauseForOutages).
  void ScheduleFaults();
  // The workload's duration, with faults and the catalog update on time.
  absl::Status Drive();
  // The directory the agent polls now holds the updated catalog.
  absl::Status ServeCatalogUpdate();
  // Until the agent's queue is empty and nothing asks the servers for a while.
  absl::Status Settle();
  // The agent stopped, the servers' figures and final state, the checks.
  void Finish();
  void Inject(const Fault& f);

  const SoakOptions& o_;
  bool faults_;
  SoakLeg leg_;
  std::filesystem::path dir_, catalog_;
  sim::Scenario scenario_;
  std::vector<Fault> faults_list_;
  double duration_s_ = 0;  // real seconds of edits
  std::string domains_;
  std::set<std::string> watched_;  // "group/kind" of the types the agent watches
  bool arm_mode_ = false;          // the Azure objects through the simulated ARM
  // The ARM serves over the API server: declared after it, gone before it.
  std::unique_ptr<sim::ApiServer> server_;
  std::unique_ptr<sim::ArmServer> arm_;
  std::vector<std::string> args_;
  std::string log_;
  int metrics_port_ = 0;
  pid_t pid_ = -1;
  MemorySamples memory_;
};

}  // namespace recon::soak

#endif  // RECON_SOAK_LEG_H_
