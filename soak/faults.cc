#include "soak/faults.h"

#include <algorithm>

#include "base/splitmix.h"
#include "soak/aro.h"

namespace recon::soak {

std::vector<Fault> DrawFaults(const SoakOptions& o, double duration_s, double rotate_s) {
  SplitMix64 rng(o.workload.seed * 0x2545F4914F6CDD1Dull + 99);
  std::vector<Fault> out;
  // Kills and outages in the first part, so the final agent runs
  // undisturbed for the second half (its RSS is measured there).
  for (int i = 0; i < o.kills; ++i)
    out.push_back(
        {0.05 + 0.4 * rng.Uniform(), Fault::kKill, 100 + static_cast<int64_t>(rng.Uniform() * 900)});
  for (int i = 0; i < o.outages; ++i) {
    double ns = static_cast<double>(o.outage_min_ns) +
                rng.Uniform() * static_cast<double>(o.outage_max_ns - o.outage_min_ns);
    out.push_back({0.05 + 0.4 * rng.Uniform(), Fault::kOutage, static_cast<int64_t>(ns / 1e6 / o.speed)});
  }
  for (int i = 0; i < o.watch_cuts; ++i)
    out.push_back({0.05 + 0.75 * rng.Uniform(), i % 2 == 0 ? Fault::kDropWatches : Fault::kCompact, 0});
  if (o.workload.aro && o.workload.aro_arm && duration_s > 0) {
    // Their own stream: the other faults stay what they were.
    SplitMix64 arm(o.workload.seed * 0x94D049BB133111EBull + 71);
    auto end = [&](double at, int64_t ms) {
      return std::min(0.95, at + static_cast<double>(ms) / 1e3 / duration_s);
    };
    for (int i = 0; i < o.arm_faults; ++i) {
      double at = 0.05 + 0.7 * arm.Uniform();
      switch (i % 5) {
        case 0:
          out.push_back({at, Fault::kArmThrottle, 0, 3 + static_cast<int>(arm.Next() % 8),
                         1 + static_cast<int>(arm.Next() % 2)});
          break;
        case 1:
          out.push_back({at, Fault::kArmStaleEtags, 0, 1 + static_cast<int>(arm.Next() % 3)});
          break;
        case 2:
          // To the end: the settle's repairs (of the last ARM edits) are slow too.
          out.push_back({at, Fault::kArmSlowAsync, 0, 2 + static_cast<int>(arm.Next() % 3)});
          break;
        case 3:
          out.push_back({at, Fault::kArmExpireTokens});
          break;
        case 4: {
          int64_t ms = 2'000 + static_cast<int64_t>(arm.Uniform() * 4'000);
          out.push_back({at, Fault::kArmDown, ms});
          out.push_back({end(at, ms), Fault::kArmUp});
          break;
        }
      }
    }
    if (rotate_s > 0)
      out.push_back(
          {std::max(0.01, (rotate_s - static_cast<double>(o.aad_rotation_lead_ms) / 1e3) / duration_s),
           Fault::kAadAhead});
  }
  std::stable_sort(out.begin(), out.end(), [](const Fault& a, const Fault& b) { return a.at < b.at; });
  return out;
}

double PauseForOutages(double duration_s, double speed, std::vector<Fault>* faults, sim::Scenario* scenario) {
  // Real seconds from the workload's start, shifted as the pauses add up.
  std::vector<double> at_s;
  for (const auto& f : *faults) at_s.push_back(f.at * duration_s);
  double end_s = duration_s;
  for (size_t i = 0; i < faults->size(); ++i) {
    if ((*faults)[i].kind != Fault::kOutage) continue;
    const double start_s = at_s[i];
    const double pause_s = 2 * static_cast<double>((*faults)[i].ms) / 1e3;
    for (size_t j = i + 1; j < at_s.size(); ++j) at_s[j] += pause_s;
    const auto start_ns = static_cast<int64_t>(start_s * speed * 1e9);
    const auto pause_ns = static_cast<int64_t>(pause_s * speed * 1e9);
    for (auto& e : scenario->edits)
      if (e.at_ns >= start_ns) e.at_ns += pause_ns;
    if (start_s <= end_s) end_s += pause_s;
  }
  for (size_t i = 0; i < faults->size(); ++i) (*faults)[i].at = end_s > 0 ? at_s[i] / end_s : 0;
  return end_s;
}

bool InjectArmFault(sim::ArmServer& arm, const Fault& f) {
  switch (f.kind) {
    case Fault::kArmThrottle:
      arm.Throttle(f.count, f.retry_s);
      return true;
    case Fault::kArmStaleEtags:
      arm.StaleEtags(f.count);
      return true;
    case Fault::kArmSlowAsync:
      arm.SlowAsync(f.count);
      return true;
    case Fault::kArmExpireTokens:
      arm.ExpireTokens();
      return true;
    case Fault::kArmDown:
      arm.SetDown(true);
      return true;
    case Fault::kArmUp:
      arm.SetDown(false);
      return false;
    case Fault::kAadAhead:
      // AAD has the new secret, the cluster's Secret not yet: the cached
      // tokens are revoked too, so the agent must ask with the old one.
      arm.RotateSecret(kSoakRotatedSecret);
      arm.ExpireTokens();
      return true;
    default:
      return false;
  }
}

}  // namespace recon::soak
