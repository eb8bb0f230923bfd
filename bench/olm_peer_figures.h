// `recon bench olm --peer PATH`: recon's resolver raced against a peer
// resolver on the same catalog and the same subscriptions, in one run. The
// peer is OLM v0.24.0's own (bench/peers/olm-resolver, built by its
// build.sh); any program that speaks its protocol can stand in.
//
// The unit of work, the same on both sides: resolve one fresh namespace
// holding one Subscription (package, default channel, startingCSV = the
// channel's oldest entry) against the whole catalog; no CSVs installed.
//
// The protocol: the peer runs as
//   PATH -catalog DIR -subscriptions SUBS -results RESULTS -summary SUMMARY
//        -catalog-name community -catalog-namespace openshift-marketplace
// SUBS holds one JSON line {"namespace","package","channel","startingCSV"}
// per subscription; the peer writes RESULTS, one line per subscription in
// order, {"status":"ok"|"unsat"|"error","operators":[csv names]}, and
// SUMMARY, a JSON object with at least "resolutions_per_s", and exits 0.
#ifndef RECON_BENCH_OLM_PEER_FIGURES_H_
#define RECON_BENCH_OLM_PEER_FIGURES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace recon::bench {

struct PeerRace {
  std::string peer;  // the peer's name for itself ("peer" in its summary)
  uint64_t subscriptions = 0;
  int gomaxprocs = 0;  // the peer's, when it says (0: not said)
  double peer_per_s = 0, peer_p50_ms = 0, peer_p99_ms = 0, peer_peak_rss_mb = 0;
  uint64_t peer_ok = 0, peer_unsat = 0, peer_error = 0;
  // recon's resolver over the same subscriptions: best of 5 rounds (one
  // round of a few hundred resolutions is milliseconds, noise-sized).
  double recon_per_s = 0, recon_p50_ms = 0, recon_p99_ms = 0;
  // Answers compared: the same operators, or both unsatisfiable, or both
  // an error. `differ` holds the first few differences in plain words.
  uint64_t agree = 0, differ_count = 0;
  std::vector<std::string> differ;
  double ratio() const { return peer_per_s > 0 ? recon_per_s / peer_per_s : 0; }
  std::string ToJson() const;
};

// Runs the peer at `peer` in a scratch directory (removed after a clean
// run; kept and named in the error otherwise) and recon's resolver beside it.
// An error names what the peer did wrong: not executable, its exit code and
// the tail of its output, or which line of its results and why.
absl::StatusOr<PeerRace> RaceResolver(const std::string& peer, const std::string& catalog_dir,
                                      uint64_t subscriptions);

}  // namespace recon::bench

#endif  // RECON_BENCH_OLM_PEER_FIGURES_H_
