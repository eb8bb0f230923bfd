// The soak's fault schedule: agent kills, API outages, cut watches and
// compactions, and with --aro-arm ARM fault episodes (throttling, stale
// etags, slow operations, revoked tokens, ARM down, AAD ahead of the
// cluster's Secret), each at a fraction of the workload's duration, drawn
// from the seed.
#ifndef RECON_SOAK_FAULTS_H_
#define RECON_SOAK_FAULTS_H_

#include <cstdint>
#include <vector>

#include "adapters/sim/arm_server.h"
#include "soak/soak.h"

namespace recon::soak {

struct Fault {
  double at = 0;  // fraction of the workload's real duration
  enum Kind {
    kKill,
    kOutage,
    kDropWatches,
    kCompact,
    // ARM (--aro-arm): an episode starts with one of these ...
    kArmThrottle,      // the next `count` ARM requests 429 with Retry-After `retry_s`
    kArmStaleEtags,    // the next `count` PUTs 412
    kArmSlowAsync,     // operations answer InProgress `count` times, to the end of the run
    kArmExpireTokens,  // every issued token 401 (the client fetches a new one)
    kArmDown,          // every ARM and AAD request 503 ...
    kAadAhead,         // AAD takes only the rotated secret, before the cluster's Secret has it
    kArmUp,            // ... until here
  } kind = kKill;
  int64_t ms = 0;  // downtime (kill) or outage length
  int count = 0, retry_s = 0;
};

// `rotate_s`: when (real seconds into the workload) the workload rotates
// the service principal's secret; <= 0: it does not.
std::vector<Fault> DrawFaults(const SoakOptions& o, double duration_s, double rotate_s);

// Applies an ARM fault to the simulated ARM; false for any other fault and
// for kArmUp (the end of an episode, not a fault).
bool InjectArmFault(sim::ArmServer& arm, const Fault& f);

}  // namespace recon::soak

#endif  // RECON_SOAK_FAULTS_H_
