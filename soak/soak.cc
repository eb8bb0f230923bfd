#include "soak/soak.h"

#include <signal.h>

#include <set>

#include "base/strings.h"
#include "soak/checks.h"
#include "soak/leg.h"
#include "soak/normalize.h"

namespace recon::soak {
namespace {

// Counts the objects whose final state differs between the two legs, with
// the first few differences.
void CompareFinalStates(SoakReport* r) {
  std::set<std::string> keys;
  for (const auto& [k, v] : r->baseline.final_state) keys.insert(k);
  for (const auto& [k, v] : r->faults.final_state) keys.insert(k);
  for (const auto& k : keys) {
    auto a = r->baseline.final_state.find(k), b = r->faults.final_state.find(k);
    std::string why;
    if (a == r->baseline.final_state.end()) {
      why = "only after the faulty run";
    } else if (b == r->faults.final_state.end()) {
      why = "only after the fault-free run";
    } else if (a->second != b->second) {
      why = recon::StrCat("differs:", JsonDifferences(a->second, b->second, "fault-free", "faulty"));
    } else {
      continue;
    }
    ++r->state_differences;
    if (r->difference_examples.size() < 10) r->difference_examples.push_back(recon::StrCat(k, ": ", why));
  }
  if (r->state_differences != 0)
    r->failures.push_back(
        recon::StrCat(r->state_differences, " objects differ from the fault-free run's final state"));
}

}  // namespace

absl::StatusOr<SoakReport> RunSoak(const SoakOptions& o) {
  // The API server lives in this process: a write to the socket of an agent
  // just SIGKILLed must fail with EPIPE, not end the soak.
  signal(SIGPIPE, SIG_IGN);
  SoakReport r;
  if (o.baseline) {
    auto b = Leg(o, "baseline", false).Run();
    if (!b.ok()) return b.status();
    r.baseline = std::move(*b);
  }
  auto f = Leg(o, "faults", true).Run();
  if (!f.ok()) return f.status();
  r.faults = std::move(*f);

  if (o.baseline) {
    CheckLeg(o, r.baseline, &r.failures);
    r.compared = true;
    CompareFinalStates(&r);
  }
  CheckLeg(o, r.faults, &r.failures);
  return r;
}

}  // namespace recon::soak
