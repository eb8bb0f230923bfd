// The agent's memory over a soak leg: RSS and the store and heap gauges of
// /metrics sampled every 250 ms since the current agent process started,
// and what the leg reports of them (growth over the final agent's second
// half, which the soak checks).
#ifndef RECON_SOAK_MEMORY_H_
#define RECON_SOAK_MEMORY_H_

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "soak/soak.h"

namespace recon::soak {

class MemorySamples {
 public:
  // A new agent process: samples start again from it.
  void Restart();
  // Samples the agent now, unless the last sample is under 250 ms old.
  void Sample(pid_t pid, int metrics_port);
  // Fills the leg's RSS, store and heap figures from the samples and writes
  // them to `tsv_path` for a closer look.
  void Finish(const std::string& tsv_path, SoakLeg* leg) const;

 private:
  using Clock = std::chrono::steady_clock;
  struct RssSample {
    double t;          // seconds into the segment
    int64_t kb;        // the agent's RSS
    int64_t store_kb;  // of which its event store's memory (-1: not known)
    int64_t heap_kb;   // malloc'd and not freed (-1: not known)
  };
  Clock::time_point segment_start_, last_sample_;
  std::vector<RssSample> rss_;
};

}  // namespace recon::soak

#endif  // RECON_SOAK_MEMORY_H_
