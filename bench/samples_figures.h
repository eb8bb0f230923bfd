// Samples figures for `recon bench samples`: a full reconcile, from an empty
// cluster to converged, of the samples domain against the simulated cluster,
// on a real inventory and on N renamed copies of it.
#ifndef RECON_BENCH_SAMPLES_FIGURES_H_
#define RECON_BENCH_SAMPLES_FIGURES_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "records/record.h"

namespace recon::bench {

struct SamplesRun {
  std::string label;  // "base" (the inventory as given) or "x<N>"
  uint64_t imagestreams = 0, templates = 0;
  uint64_t events = 0, actions = 0;
  std::map<std::string, uint64_t> writes;  // actions by "<verb> <Kind>" (deterministic)
  bool converged = false;
  double virtual_s = 0;  // simulated time to converge
  // Wall time of the whole in-process loop (sim + memory store + engine),
  // best of the rounds; the rates divide by it.
  double engine_ms_to_converge = 0;
  double reduce_ms = 0;  // of which inside the reducers
  double events_per_s = 0, actions_per_s = 0;
};

struct SamplesFigures {
  std::string inventory;
  std::string skipped;  // why nothing was measured ("" when measured)
  int rounds = 0;
  std::vector<SamplesRun> runs;
  std::string ToJson() const;
};

// Every file under `dir`, paths relative to it, sorted.
absl::StatusOr<records::ContentFiles> LoadInventoryDir(const std::string& dir);

// `factor` copies of `files`: group directories and object names suffixed
// "-r<i>" (copy 0 keeps the original names).
absl::StatusOr<records::ContentFiles> ReplicateInventory(const records::ContentFiles& files, int factor);

// A missing `dir` is not an error: the figures say "skipped" and why.
absl::StatusOr<SamplesFigures> MeasureSamples(const std::string& dir, int scale, int rounds);

}  // namespace recon::bench

#endif  // RECON_BENCH_SAMPLES_FIGURES_H_
