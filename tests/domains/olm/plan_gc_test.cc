#include "domains/olm/plan_gc.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace recon::olm {
namespace {

std::vector<std::string> Collect(const std::vector<ListedPlan>& listed) {
  std::vector<std::string> out;
  for (std::string_view n : PlansToCollect(listed)) out.emplace_back(n);
  return out;
}

TEST(PlanGc, FiveOrFewerAreKept) {
  std::vector<ListedPlan> five;
  for (int g = 1; g <= 5; ++g) five.push_back({"p", g, ""});
  EXPECT_TRUE(Collect(five).empty());
}

TEST(PlanGc, OldestGenerationsGoFirst) {
  std::vector<ListedPlan> seven = {{"a", 7, ""}, {"b", 2, ""}, {"c", 5, ""}, {"d", 1, ""},
                                   {"e", 4, ""}, {"f", 6, ""}, {"g", 3, ""}};
  EXPECT_EQ(Collect(seven), (std::vector<std::string>{"d", "b"}));
}

TEST(PlanGc, OnlyTheFirstTenListedAreConsideredInOneSweep) {
  // Twelve plans: the sweep looks at the first ten (generations 12..3) and
  // deletes their five oldest; generations 2 and 1, listed last, wait for
  // the next sweep, which sees seven and deletes them.
  std::vector<ListedPlan> listed;
  std::vector<std::string> names;
  for (int g = 12; g >= 1; --g) names.push_back("p" + std::to_string(g));
  for (int g = 12; g >= 1; --g) listed.push_back({names[static_cast<size_t>(12 - g)], g, ""});
  EXPECT_EQ(Collect(listed), (std::vector<std::string>{"p3", "p4", "p5", "p6", "p7"}));
  std::vector<ListedPlan> next;
  for (const auto& p : listed)
    if (p.generation > 7 || p.generation < 3) next.push_back(p);
  EXPECT_EQ(Collect(next), (std::vector<std::string>{"p1", "p2"}));
}

TEST(PlanGc, ASharedGenerationIsCutByCreationTimeThenName) {
  // Generation 1 holds four plans; deleting all of them would leave three.
  std::vector<ListedPlan> listed = {{"x", 1, "2026-01-01T00:00:02Z"},
                                    {"w", 1, "2026-01-01T00:00:01Z"},
                                    {"v", 1, "2026-01-01T00:00:02Z"},
                                    {"u", 1, "2026-01-01T00:00:03Z"},
                                    {"n1", 2, ""},
                                    {"n2", 3, ""},
                                    {"n3", 4, ""}};
  EXPECT_EQ(Collect(listed), (std::vector<std::string>{"w", "v"}));
}

// Six Manual subscriptions waiting for approval, each on its own plan:
// none of those goes (deleting one made it plan again, newest, forever);
// the completed plans still do.
TEST(PlanGc, PlansAWaitingSubscriptionReferencesAreKept) {
  std::vector<ListedPlan> listed;
  std::vector<std::string> names;
  for (int g = 1; g <= 8; ++g) names.push_back("p" + std::to_string(g));
  for (int g = 1; g <= 8; ++g) listed.push_back({names[static_cast<size_t>(g - 1)], g, "", g != 1 && g != 3});
  EXPECT_EQ(Collect(listed), (std::vector<std::string>{"p1", "p3"}));
  for (auto& p : listed) p.kept = true;
  EXPECT_TRUE(Collect(listed).empty());
  // Kept plans count: with the oldest kept, the next oldest goes instead.
  for (auto& p : listed) p.kept = p.generation == 1;
  EXPECT_EQ(Collect(listed), (std::vector<std::string>{"p2", "p3", "p4"}));
}

}  // namespace
}  // namespace recon::olm
