// How a plan's pass sees the domain's own creates (plan_view.h).
#include "domains/olm/plan_view.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "domains/olm/reducer.h"
#include "engine/world.h"

namespace recon::olm {
namespace {

// Two plans unpacking one bundle image at the same event: the second pass
// must not create the Job the first one just sent (the bench's 1,000
// subscriptions sent 14,000 such creates, each refused with 409).
TEST(PlanWorldView, ACreateSentAtThisEventIsInFlightOneFromAnEarlierEventWithNoTraceIsLost) {
  engine::World world;
  std::map<std::string, PendingWrite> creates;
  creates[StepObjectKey("batch", "Job", "olm", "abc")] = PendingWrite{Json{{"plan", "ns1/install-x"}}, 7, "7.0"};
  EXPECT_EQ(PlanWorldView(world, creates, 7).CreateOf("batch", "Job", "olm", "abc").state, OwnCreate::kInFlight);
  // Recorded at an earlier event, neither pending in the tracker, refused
  // nor shown: lost (an agent stopped before its answer), sent again.
  EXPECT_EQ(PlanWorldView(world, creates, 8).CreateOf("batch", "Job", "olm", "abc").state, OwnCreate::kNone);
  // Not ours at all.
  EXPECT_EQ(PlanWorldView(world, creates, 7).CreateOf("batch", "Job", "olm", "other").state, OwnCreate::kNone);
}

}  // namespace
}  // namespace recon::olm
