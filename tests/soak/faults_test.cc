#include "soak/faults.h"

#include <gtest/gtest.h>

#include <vector>

#include "adapters/sim/scenario.h"

namespace recon::soak {
namespace {

TEST(SoakFaults, TheWorkloadWaitsOutAnOutageAndAsLongAgain) {
  sim::Scenario s;
  for (int64_t at : {1, 2, 3, 4}) {
    sim::Edit e;
    e.at_ns = at * 60'000'000'000;  // one real second apart at speed 60
    s.edits.push_back(e);
  }
  // An outage of half a real second at 1.5 s, a kill at 3 s, of 4 s.
  std::vector<Fault> faults = {{1.5 / 4, Fault::kOutage, 500}, {3.0 / 4, Fault::kKill, 100}};
  double duration = PauseForOutages(4, 60, &faults, &s);
  EXPECT_DOUBLE_EQ(duration, 5);
  // Edits before the outage stay; the later ones move by 1 s.
  EXPECT_EQ(s.edits[0].at_ns, 60'000'000'000);
  EXPECT_EQ(s.edits[1].at_ns, 3 * 60'000'000'000ll);
  EXPECT_EQ(s.edits[3].at_ns, 5 * 60'000'000'000ll);
  // The outage starts when it did; the kill moves with the edits.
  EXPECT_DOUBLE_EQ(faults[0].at * duration, 1.5);
  EXPECT_DOUBLE_EQ(faults[1].at * duration, 4);
  // No outage, nothing moves.
  std::vector<Fault> kills = {{0.5, Fault::kKill, 100}};
  EXPECT_DOUBLE_EQ(PauseForOutages(5, 60, &kills, &s), 5);
  EXPECT_EQ(s.edits[3].at_ns, 5 * 60'000'000'000ll);
  EXPECT_DOUBLE_EQ(kills[0].at, 0.5);
}

}  // namespace
}  // namespace recon::soak
