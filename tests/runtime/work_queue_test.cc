#include "runtime/work_queue.h"

#include <algorithm>

#include "base/strings.h"
#include "gtest/gtest.h"

namespace recon::runtime {
namespace {

records::ActionRecord Action(const std::string& name, const std::string& verb = "update") {
  records::ActionRecord a;
  a.domain = "samples";
  a.verb = verb;
  a.object.group = "image.openshift.io";
  a.object.kind = "ImageStream";
  a.object.ns = "openshift";
  a.object.name = name;
  return a;
}

TEST(WorkQueue, BackoffDoublesFrom5msTo1000sAndResetsOnSuccess) {
  ManualTimeSource clock(0);
  WorkQueue q(clock, {.qps = 1e9, .burst = 1000000});
  EXPECT_EQ(q.BackoffNs(1), 5'000'000);
  EXPECT_EQ(q.BackoffNs(2), 10'000'000);
  EXPECT_EQ(q.BackoffNs(3), 20'000'000);
  EXPECT_EQ(q.BackoffNs(40), 1'000'000'000'000);

  auto a = Action("ruby");
  std::string key = WorkKey(a);
  q.Add(key, a);
  auto item = q.Pop();
  ASSERT_TRUE(item.has_value());
  q.Done(key, false, item->second);  // retry after 5 ms
  EXPECT_FALSE(q.Pop().has_value());
  EXPECT_EQ(*q.NextDueNs(), 5'000'000);
  clock.Advance(5'000'000);
  item = q.Pop();
  ASSERT_TRUE(item.has_value());
  q.Done(key, false, item->second);  // now 10 ms
  clock.Advance(9'999'999);
  EXPECT_FALSE(q.Pop().has_value());
  clock.Advance(1);
  item = q.Pop();
  ASSERT_TRUE(item.has_value());
  EXPECT_EQ(q.failures(key), 2);
  q.Done(key, true);
  EXPECT_EQ(q.failures(key), 0);
  EXPECT_EQ(q.retries(), 2u);
}

TEST(WorkQueue, ANewerItemReplacesTheWaitingOneAndWaitsForInFlight) {
  ManualTimeSource clock(0);
  WorkQueue q(clock, {.qps = 1e9, .burst = 1000000});
  auto v1 = Action("ruby"), v2 = Action("ruby"), v3 = Action("ruby");
  v1.body = "1";
  v2.body = "2";
  v3.body = "3";
  std::string key = WorkKey(v1);
  q.Add(key, v1);
  q.Add(key, v2);
  EXPECT_EQ(q.depth(), 1u);
  auto item = q.Pop();
  EXPECT_EQ(item->second.body, "2");
  q.Add(key, v3);  // in flight: must not be dispatched concurrently
  EXPECT_FALSE(q.Pop().has_value());
  q.Done(key, true);
  item = q.Pop();
  ASSERT_TRUE(item.has_value());
  EXPECT_EQ(item->second.body, "3");
}

TEST(WorkQueue, OverallRateLimitIsATokenBucket) {
  ManualTimeSource clock(0);
  WorkQueue q(clock, {.qps = 10, .burst = 2});
  for (int i = 0; i < 5; ++i) {
    auto a = Action("is" + std::to_string(i));
    q.Add(WorkKey(a), a);
  }
  int popped = 0;
  while (auto item = q.Pop()) {
    ++popped;
    q.Done(item->first, true);
  }
  EXPECT_EQ(popped, 2);        // the burst
  clock.Advance(100'000'000);  // 0.1 s at 10 qps = one more token
  EXPECT_TRUE(q.Pop().has_value());
  EXPECT_FALSE(q.Pop().has_value());
}

TEST(WorkQueue, ZeroQpsMeansNoOverallLimit) {
  ManualTimeSource clock(0);
  WorkQueue q(clock, {.qps = 0, .burst = 2});
  for (int i = 0; i < 500; ++i) {
    auto a = Action("is" + std::to_string(i));
    q.Add(WorkKey(a), a);
  }
  int popped = 0;
  while (auto item = q.Pop()) {
    ++popped;
    q.Done(item->first, true);
  }
  EXPECT_EQ(popped, 500);  // all at once, no time passing
  EXPECT_FALSE(q.NextDueNs().has_value());
}

TEST(WorkQueue, StatusAndSpecWritesOfOneObjectAreSeparateKeys) {
  EXPECT_NE(WorkKey(Action("ruby", "update")), WorkKey(Action("ruby", "updateStatus")));
  EXPECT_EQ(WorkKey(Action("ruby", "update")), WorkKey(Action("ruby", "create")));
}

// Found when `recon sim` moved onto the runtime: the samples operator
// retries each failed tag of an image stream with its own import, and the
// queue let the last one replace the others, so those tags' retries were
// recorded but never sent nor answered.
TEST(WorkQueue, ImportsOfOneImageStreamAreAllDispatched) {
  ManualTimeSource clock(0);
  WorkQueue q(clock, {.qps = 1e9, .burst = 1000000});
  auto a = Action("ruby", "importImage"), b = Action("ruby", "importImage");
  a.cause_seq = 36;
  b.cause_seq = 37;
  EXPECT_NE(WorkKey(a), WorkKey(b));
  q.Add(WorkKey(a), a);
  q.Add(WorkKey(b), b);
  std::vector<uint64_t> sent;
  while (auto item = q.Pop()) sent.push_back(item->second.cause_seq);
  EXPECT_EQ(sent, (std::vector<uint64_t>{36, 37}));
}

// Issue 18's livelock: with more actions than the burst, a token deficit
// of a few ulps made NextDueNs() answer "now" while Pop() still refused, so
// the agent woke at the same instant forever. Whatever the clock did since
// (results and events move it by odd amounts), an item Pop() will not give
// now is due strictly later.
TEST(WorkQueue, AnItemPopWillNotGiveNowIsAlwaysDueLater) {
  for (double qps : {10.0, 3.0, 7.3, 0.5, 1000.0}) {
    ManualTimeSource clock(1'800'000'000'123'456'789);
    WorkQueue q(clock, {.qps = qps, .burst = 100});
    for (int i = 0; i < 102; ++i) q.Add(recon::StrCat("k", i), Action(recon::StrCat("is", i)));
    uint64_t step = 0, popped = 0;
    while (q.depth() > 0) {
      ASSERT_LT(++step, 100000u) << "qps " << qps << ": no progress, " << q.depth() << " left";
      while (auto item = q.Pop()) {
        q.Done(item->first, true);
        ++popped;
      }
      if (q.depth() == 0) break;
      auto next = q.NextDueNs();
      ASSERT_TRUE(next.has_value());
      ASSERT_GT(*next, clock.NowNs()) << "qps " << qps << " after " << popped << " popped";
      // Something else happens first: an odd, prime-ish step short of the due time.
      int64_t odd = 1 + static_cast<int64_t>((step * 2654435761u) % 3'000'007);
      clock.Set(std::min(*next, clock.NowNs() + odd));
    }
    EXPECT_EQ(popped, 102u);
  }
}

}  // namespace
}  // namespace recon::runtime
