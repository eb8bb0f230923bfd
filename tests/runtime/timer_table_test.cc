// The runtime's timers: due order, replacement by name, stamps.
#include "runtime/timer_table.h"

#include <gtest/gtest.h>

namespace recon::runtime {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

TEST(TimerTable, FiresAtItsTimeAndASecondSetReplacesThePendingOne) {
  TimerTable t;
  t.Set("samples/reimport", 15 * 60 * kSecond);
  t.Set("samples/reimport", 10 * 60 * kSecond);  // a requeue: replaces, not adds
  EXPECT_EQ(t.size(), 1u);
  EXPECT_EQ(t.NextDueNs(), 10 * 60 * kSecond);
  EXPECT_TRUE(t.TakeDue(10 * 60 * kSecond - 1).empty());
  auto due = t.TakeDue(10 * 60 * kSecond + 5);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].type, records::EventType::kTimer);
  EXPECT_EQ(due[0].timer, "samples/reimport");
  EXPECT_EQ(due[0].time_ns, 10 * 60 * kSecond + 5) << "stamped when it fired";
  EXPECT_FALSE(t.NextDueNs().has_value());
  EXPECT_TRUE(t.TakeDue(3600 * kSecond).empty()) << "fired once";
}

TEST(TimerTable, DueTimersComeByTimeThenByTheOrderTheyWereSet) {
  TimerTable t;
  t.Set("b", 2 * kSecond);
  t.Set("a", 2 * kSecond);
  t.Set("c", 1 * kSecond);
  t.Set("past", -5 * kSecond);  // already due
  auto due = t.TakeDue(3 * kSecond);
  ASSERT_EQ(due.size(), 4u);
  EXPECT_EQ(due[0].timer, "past");
  EXPECT_EQ(due[1].timer, "c");
  EXPECT_EQ(due[2].timer, "b");
  EXPECT_EQ(due[3].timer, "a");
  for (const auto& e : due) EXPECT_EQ(e.time_ns, 3 * kSecond);
}

TEST(TimerTable, AFiredTimerCanBeSetAgain) {
  TimerTable t;
  t.Set("aro/subnets", kSecond);
  ASSERT_EQ(t.TakeDue(kSecond).size(), 1u);
  t.Set("aro/subnets", 61 * kSecond);
  EXPECT_EQ(t.NextDueNs(), 61 * kSecond);
  EXPECT_EQ(t.TakeDue(61 * kSecond).size(), 1u);
}

}  // namespace
}  // namespace recon::runtime
