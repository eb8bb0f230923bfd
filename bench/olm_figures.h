// OLM subscription figures for `recon bench olm`: N subscriptions (one per
// namespace) spread over a catalog's packages, each starting at the oldest
// selectable entry of its default channel, driven to the channel heads
// through the engine, which carries out its own InstallPlans
// (olm.executePlans) and moves the CSVs through their phases
// (olm.csvLifecycle), against an in-process cluster (bench/olm_cluster.h:
// every write applied and echoed, bundle unpack Jobs run, and the rest of
// Kubernetes played); plus the resolver alone over the same subscriptions.
#ifndef RECON_BENCH_OLM_FIGURES_H_
#define RECON_BENCH_OLM_FIGURES_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/heap_figures.h"
#include "domains/olm/resolve/catalog_index.h"
#include "records/record.h"

namespace recon::bench {

struct OlmFigures {
  uint64_t subscriptions = 0, packages = 0, bundles = 0;
  uint64_t events = 0, actions = 0, install_plans = 0, engine_resolutions = 0;
  uint64_t engine_syncs = 0, engine_syncs_skipped = 0;  // namespace syncs; skipped as unchanged and quiet
  uint64_t engine_resolutions_computed = 0;     // of engine_resolutions, those not answered by the memo
  uint64_t at_head = 0, resolution_failed = 0;  // after convergence
  // Subscriptions by "<reason>: <innermost failed constraint>".
  std::map<std::string, uint64_t> failed_by;
  // Subscriptions below their head with no ResolutionFailed (a blocked
  // upgrade is a no-op, §9.3), by "<package> at <installedCSV>".
  std::map<std::string, uint64_t> below_head;
  // The engine's actions by "<verb> <Kind>" (deterministic: the count guard's input).
  std::map<std::string, uint64_t> writes;
  double catalog_load_ms = 0;
  double resolutions_per_s =
      0;  // Resolve() alone: upgrade resolutions of every subscription, best of 5 rounds
  double engine_resolutions_per_s = 0;  // namespace resolutions inside the engine run
  double events_per_s = 0;
  double engine_ms_to_converge = 0;
  double engine_step_ms = 0;  // of which inside Engine::Step (the rest is the simulated cluster)
  double peak_rss_mb = 0;
  // Peak live heap by component (bench/heap_figures.h): bench, cluster,
  // world, domain; empty when the build has no jemalloc.
  std::vector<HeapPeak> heap;
  std::string ToJson() const;
};

// A subscription of the bench: its package and channel, the entry it starts
// at (the default channel's oldest) and the head it must reach.
struct OlmTarget {
  std::string package, channel, start, head;
};

// The bench's CatalogSource, in OLM's global catalog namespace.
inline constexpr char kOlmCatalog[] = "community", kOlmCatalogNamespace[] = "openshift-marketplace";

// Packages whose default channel has an upgrade to walk (subscription i
// takes the i-th modulo their number), and subscription i's namespace.
std::vector<OlmTarget> OlmTargets(const olm::CatalogIndex& index);
std::string OlmNamespace(uint64_t i);

// A catalog directory's files, as a Content event carries them.
absl::StatusOr<records::ContentFiles> ReadCatalogDir(const std::string& dir);

// `log_path` (or $RECON_BENCH_LOG): write the engine's events there as a
// JSONL log, which `recon replay` runs again. `progress`, if set, is called
// with the events stepped so far every 1,000 events (a terminal's progress
// line; it sees nothing the figures do not). `subscription_writes`: the
// olm domain's option of that name (recorded in the log). `heap_split`:
// measure `heap` (the thread cache off: the run's times ~1.8x slower).
absl::StatusOr<OlmFigures> MeasureOlm(const std::string& catalog_dir, uint64_t subscriptions,
                                      const std::string& log_path = "",
                                      const std::function<void(uint64_t events)>& progress = nullptr,
                                      const std::string& subscription_writes = "split",
                                      bool heap_split = false);

}  // namespace recon::bench

#endif  // RECON_BENCH_OLM_FIGURES_H_
