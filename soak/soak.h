// `recon soak`: the agent (`recon agent --cluster KUBECONFIG`, a child
// process) against the simulated cluster served over the Kubernetes API
// (sim::ApiServer, in this process), driven by a seeded workload
// (workload.h). It runs the workload twice: fault-free, then with
// faults — 409/429/500 answers, dropped and delayed watch events, watch
// streams cut and history compacted, the API unavailable for minutes of
// cluster time, and the agent SIGKILLed at random points and restarted on
// the same store — and checks:
//   - the final cluster state equals the fault-free run's (normalized:
//     uids, resourceVersions, timestamps and generations left out; OLM's
//     InstallPlans summarized into their subscriptions, olm.h);
//   - no action was applied twice (the server counts each X-Recon-Action id's
//     successful writes); creates refused AlreadyExists (not applied: the
//     agent's view was late) are counted and reported;
//   - the log holds every change the cluster made: the objects as the
//     store's events leave them equal the server's, resourceVersion for
//     resourceVersion, for every type the agent watches;
//   - `recon replay --check` on the store agrees with what the agent did;
//   - the last agent's RSS grows < 5% over the second half of its run.
// With aro_arm (recon soak --aro --aro-arm) the cluster's subnets and NSG
// are served through the simulated ARM and AAD (sim::ArmServer) to the
// agent's ARM adapter (--azure), the faulty run adds ARM faults (429 with
// Retry-After, 412 on a stale etag, slow operations, revoked tokens, ARM
// down, AAD refusing the secret before the cluster's Secret has the new
// one), and two more checks hold: the log's last etag of every subnet and
// NSG is ARM's, and no client secret or access token the simulated AAD
// issued is in the agent's output, `recon log export` or /metrics.
#ifndef RECON_SOAK_SOAK_H_
#define RECON_SOAK_SOAK_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "adapters/sim/api_server.h"
#include "adapters/sim/arm_server.h"
#include "engine/resource.h"
#include "store/event_store.h"
#include "soak/olm.h"
#include "soak/workload.h"

namespace recon::soak {

struct SoakOptions {
  std::string recon_binary;  // the agent's executable
  // The resource types the domains of a --domains value watch and write
  // (cli::DomainResourcesOf): soak/ does not include cli/, the binary hands it in.
  std::function<absl::StatusOr<std::vector<engine::ResourceUse>>(const std::string& domains)>
      domain_resources;
  std::string dir;      // one subdirectory per run: store, kubeconfig, agent.log
  // The agent's log: "" for a RocksDB directory in each run's subdirectory,
  // or etcd://HOST:PORT[,...]/PREFIX with each run under PREFIX/<run>,
  // emptied first. store_args go with every --store given to a child
  // (--etcd-cacert ...); open_store reads a run's store for the checks and
  // clear_store empties it (cli/ hands them in: soak/ does not include cli/).
  std::string store;
  std::vector<std::string> store_args;
  std::function<absl::StatusOr<std::unique_ptr<store::EventStore>>(const std::string& where)> open_store;
  std::function<absl::Status(const std::string& where)> clear_store;
  std::string domains;  // empty: disconnected (+ samples with an inventory, + olm with a catalog)
  WorkloadOptions workload;
  // OLM: the catalog (LoadSoakOlm; its packages go to workload.olm_packages).
  // Served to the agent as CatalogSource openshift-marketplace/community:
  // first the older copy, the real one from catalog_update_at of the edits on.
  std::shared_ptr<const SoakOlmCatalog> olm;
  double catalog_update_at = 0.4;
  double speed = 60;  // cluster seconds per real second
  int kills = 4;
  int outages = 2;
  int64_t outage_min_ns = 60'000'000'000;  // cluster time
  int64_t outage_max_ns = 180'000'000'000;
  int watch_cuts = 6;          // DropWatches / Compact at random points
  double write_faults = 0.06;  // fraction of writes answered 409, 429 or 500 (a third each)
  double drop_watch = 0.002;
  double delay_watch = 0.01;
  int64_t delay_ns = 10'000'000'000;  // cluster time
  // Converged: no request for this long and the agent's queue empty. Over
  // two of the workload's resync periods (workload.cc), so a full sync
  // happens inside it.
  int64_t quiet_ms = 11'000;
  int64_t settle_limit_ms = 300'000;  // give up waiting for convergence
  bool baseline = true;               // also run fault-free and compare
  // Called about ten times a second while a leg runs: its name, the part of
  // the workload's time done (0..1), and whether it waits to settle. The
  // soak's terminal progress line; nothing here depends on it.
  std::function<void(const std::string& leg, double done, bool settling)> progress;
  double rss_limit = 0.05;
  // ARM (needs workload.aro and workload.aro_arm): ARM fault episodes in
  // the faulty run, drawn in turn from throttling, stale etags, slow
  // operations, revoked tokens and ARM down; and how long before the
  // workload's secret rotation AAD starts refusing the old secret.
  int arm_faults = 5;
  int64_t aad_rotation_lead_ms = 3'000;  // over the ARM poll interval: a poll asks AAD meanwhile
};

struct SoakLeg {
  std::string name;
  double seconds = 0;
  bool converged = false;
  uint64_t events = 0;  // the store's last seq
  int kills = 0;
  int agent_exit = -1;  // of the final SIGTERM
  int replay_check_exit = -1;
  sim::ServerStats server;
  uint64_t log_mismatches = 0;  // objects where the log and the cluster disagree
  std::vector<std::string> log_examples;
  int64_t rss_mid_kb = 0, rss_end_kb = 0, rss_max_kb = 0;
  int64_t store_mid_kb = -1, store_end_kb = -1;
  int64_t heap_mid_kb = -1, heap_end_kb = -1;  // the agent's heap in use (/metrics) then    // the agent's
                                               // event store memory (/metrics) then
  double rss_growth = 0;                       // (end - mid) / mid over the final agent's second half
  std::map<std::string, std::string> final_state;  // normalized objects
  // ARM (SoakOptions' aro_arm): what the simulated ARM saw, and the ARM
  // faults injected.
  bool arm = false;
  sim::ArmStats arm_stats;
  int arm_faults = 0;
  // A client secret or issued access token found in the agent's output,
  // `recon log export` or /metrics (where, not the value).
  uint64_t secret_leaks = 0;
  std::vector<std::string> leak_examples;
};

struct SoakReport {
  SoakLeg baseline, faults;
  bool compared = false;
  uint64_t state_differences = 0;
  std::vector<std::string> difference_examples;
  std::vector<std::string> failures;  // empty: passed
};

absl::StatusOr<SoakReport> RunSoak(const SoakOptions& options);

}  // namespace recon::soak

#endif  // RECON_SOAK_SOAK_H_
