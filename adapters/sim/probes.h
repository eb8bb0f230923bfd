// The outside world as probes see it: each probe action (name, target) is
// answered by the first scenario rule that matches it at that moment;
// without one, reachable (HTTP 200), or unreachable when the cluster is
// disconnected.
#ifndef RECON_ADAPTERS_SIM_PROBES_H_
#define RECON_ADAPTERS_SIM_PROBES_H_

#include <vector>

#include "adapters/sim/scenario.h"
#include "records/record.h"

namespace recon::sim {

class ProbeModel {
 public:
  ProbeModel(std::vector<ProbeRule> rules, int64_t default_latency_ns, bool disconnected, int64_t start_ns)
      : rules_(std::move(rules)),
        default_latency_ns_(default_latency_ns),
        disconnected_(disconnected),
        start_ns_(start_ns) {}

  // The Probe event answering a probe asked at `now_ns`; its time is when
  // the answer arrives.
  records::EventRecord Answer(std::string_view probe, std::string_view target, int64_t now_ns) const;

 private:
  std::vector<ProbeRule> rules_;
  int64_t default_latency_ns_;
  bool disconnected_;
  int64_t start_ns_;
};

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_PROBES_H_
