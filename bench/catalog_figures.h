// OLM catalog figures for `recon bench catalog` and bench/catalog_bench:
// load, validate and graph times, peak RSS, a YAML parser baseline, and a
// scaled run (the catalog replicated N× under renamed packages).
#ifndef RECON_BENCH_CATALOG_FIGURES_H_
#define RECON_BENCH_CATALOG_FIGURES_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "domains/olm/catalog/declcfg.h"

namespace recon::bench {

struct CatalogFigures {
  uint64_t files = 0, bytes = 0, packages = 0, channels = 0, bundles = 0, edges = 0, errors = 0;
  double load_ms = 0;      // best of rounds, 2 threads, payload spans cut out
  double validate_ms = 0;  // model conversion + validation
  double graph_ms = 0;     // heads + all edges of every channel
  double peak_rss_mb = 0;  // VmHWM after the first load + validate
  double base_rss_mb = 0;  // VmRSS before loading
  // Baselines measured in the same run.
  double load_1thread_ms = 0;    // same loader, one thread
  double load_no_cut_ms = 0;     // 2 threads, every payload parsed into trees
  double libyaml_events_ms = 0;  // libyaml's event parser alone over YAML files, one core
  uint64_t yaml_bytes = 0;
  // Scaled run.
  uint64_t scale = 0, scaled_bundles = 0, scaled_edges = 0;
  double scaled_validate_ms = 0, scaled_graph_ms = 0;
  std::string ToJson() const;
};

// Replicates `cfg` `factor` times, package names suffixed "-r<i>".
olm::DeclarativeConfig Replicate(const olm::DeclarativeConfig& cfg, int factor);

absl::StatusOr<CatalogFigures> MeasureCatalog(const std::string& dir, int rounds, int scale,
                                              const std::string& scale_dir);

}  // namespace recon::bench

#endif  // RECON_BENCH_CATALOG_FIGURES_H_
