// Replay throughput for `recon bench replay`.
#ifndef RECON_BENCH_REPLAY_FIGURES_H_
#define RECON_BENCH_REPLAY_FIGURES_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/engine.h"
#include "records/record.h"

namespace recon::bench {

// A log of realistic Kubernetes objects (ImageStreams, ConfigMaps, Secrets,
// Deployments) with JSON bodies of 1-5 KiB, deterministic from `seed`.
std::vector<records::EventRecord> MakeRealisticLog(size_t count, uint32_t seed);

struct ReplayFigures {
  uint64_t events = 0;
  uint64_t object_bytes = 0;
  uint64_t actions = 0;
  double replay_events_per_s = 0;
  double replay_mb_per_s = 0;
  double raw_simdjson_mb_per_s = 0;
  double replay_vs_parse_ratio = 0;
  // The same replay in two stages on two threads (runtime/replay_pipeline.h),
  // on a fresh engine: its rate, its speed-up over the one-thread replay,
  // and whether its actions were the same, byte for byte.
  double pipelined_events_per_s = 0;
  double pipelined_speedup = 0;
  bool pipelined_same_actions = false;
  std::string ToJson() const;
};

// Imports the log into a RocksDbStore in `dir`, then times a full replay
// from the store through an engine made by `make_engine`, and, in the same
// run, simdjson DOM parsing of the same object bytes, and the two-stage
// replay of the same store.
absl::StatusOr<ReplayFigures> MeasureReplay(const std::string& dir, size_t events,
                                            const std::function<std::unique_ptr<engine::Engine>()>& make_engine);

}  // namespace recon::bench

#endif  // RECON_BENCH_REPLAY_FIGURES_H_
