// Store throughput figures for `recon bench store` and bench/store_bench.
#ifndef RECON_BENCH_STORE_FIGURES_H_
#define RECON_BENCH_STORE_FIGURES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "records/record.h"

namespace recon::bench {

// `count` Added events of ConfigMaps whose JSON body is ~`body_bytes` long.
std::vector<records::EventRecord> MakeEvents(size_t count, size_t body_bytes, int64_t start_ns = 0);

struct StoreFigures {
  uint64_t events = 0;
  uint64_t batch = 0;
  uint64_t event_bytes = 0;
  double append_events_per_s = 0;
  double raw_rocksdb_batch_events_per_s = 0;
  double append_vs_raw_ratio = 0;
  double scan_events_per_s = 0;
  double scan_decode_events_per_s = 0;
  double memory_append_events_per_s = 0;
  std::string ToJson() const;
};

// Runs in `dir` (emptied first). Sync durability; the raw RocksDB baseline
// writes the same keys and bytes with the same options in the same run,
// alternating rounds with recon's store so machine noise hits both.
absl::StatusOr<StoreFigures> MeasureStore(const std::string& dir, size_t events, size_t batch,
                                          size_t event_bytes, int rounds);

}  // namespace recon::bench

#endif  // RECON_BENCH_STORE_FIGURES_H_
