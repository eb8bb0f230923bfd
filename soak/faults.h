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
#include "adapters/sim/scenario.h"
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

// The workload waits out each API outage, then as long again: the API is
// down for every client, so the user's writes would be refused too, and
// the agent's retries have backed off to about the outage's length by its
// end. Without the wait, an uninstall made during an outage raced a plan
// step the agent re-sent after it (the old plan's CSV created after the
// reinstall's deletes: the new subscription unsatisfiable for good, as
// upstream). Edits and later faults move by the pause; returns the new
// duration (real seconds), with every fault's `at` rescaled to it.
double PauseForOutages(double duration_s, double speed, std::vector<Fault>* faults, sim::Scenario* scenario);

// Applies an ARM fault to the simulated ARM; false for any other fault and
// for kArmUp (the end of an episode, not a fault).
bool InjectArmFault(sim::ArmServer& arm, const Fault& f);

}  // namespace recon::soak

#endif  // RECON_SOAK_FAULTS_H_
