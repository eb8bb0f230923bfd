#include "adapters/k8s/lease.h"

#include <gtest/gtest.h>

#include "engine/json.h"

namespace recon::k8s {
namespace {

constexpr int64_t kS = 1'000'000'000;

// A one-lease API server: create/update with optimistic concurrency.
struct FakeLeaseServer {
  std::optional<LeaseRecord> lease;
  int rv = 0;
  // Applies a write as the server would; false on a conflict.
  bool Apply(const LeaderElector::Write& w, std::optional<LeaseRecord>* answer) {
    LeaseRecord r;
    EXPECT_TRUE(ParseLease(w.body, &r).ok());
    if (w.create ? lease.has_value() : (!lease || r.resource_version != lease->resource_version))
      return false;
    r.resource_version = std::to_string(++rv);
    lease = r;
    *answer = r;
    return true;
  }
  // One retry-period step of an elector against this server.
  void Step(LeaderElector& e, int64_t now) {
    e.Tick(now);
    auto w = e.Observe(lease, now);
    if (!w) return;
    std::optional<LeaseRecord> answer;
    bool ok = Apply(*w, &answer);
    e.WriteResult(ok, answer, now);
  }
};

LeaseConfig Config(const std::string& id) {
  LeaseConfig c;
  c.identity = id;
  c.ns = "recon-system";
  c.name = "recon-leader";
  return c;
}

TEST(Lease, AcquireCreatesWithTransitionsZero) {
  FakeLeaseServer server;
  LeaderElector a(Config("a"));
  EXPECT_EQ(a.token(), -1);
  server.Step(a, 100 * kS);
  EXPECT_TRUE(a.leading());
  EXPECT_EQ(a.token(), 0);
  ASSERT_TRUE(server.lease);
  EXPECT_EQ(server.lease->holder, "a");
  EXPECT_EQ(server.lease->duration_s, 15);
  EXPECT_EQ(server.lease->renew_time, "1970-01-01T00:01:40.000000Z");
}

TEST(Lease, RenewKeepsTheTermAndMissedRenewalsLoseIt) {
  FakeLeaseServer server;
  LeaderElector a(Config("a"));
  int64_t now = 100 * kS;
  server.Step(a, now);
  for (int i = 0; i < 10; ++i) server.Step(a, now += 2 * kS);
  EXPECT_TRUE(a.leading());
  EXPECT_EQ(a.token(), 0);
  EXPECT_EQ(server.lease->renew_time, FormatMicroTime(now));
  // Renewals fail (e.g. the API is unreachable): at the deadline, lost.
  a.Tick(now + 10 * kS);
  EXPECT_TRUE(a.leading());
  a.Tick(now + 10 * kS + 1);
  EXPECT_EQ(a.state(), LeaderElector::State::kLost);
  EXPECT_EQ(a.token(), -1);
  EXPECT_NE(a.lost_reason().find("renew deadline"), std::string::npos);
  // Lost is final: the process exits and a new one starts over.
  server.Step(a, now + 20 * kS);
  EXPECT_EQ(a.state(), LeaderElector::State::kLost);
}

TEST(Lease, AnotherHolderWaitsForExpiryThenTakesOverWithTransitionsPlusOne) {
  FakeLeaseServer server;
  LeaderElector a(Config("a")), b(Config("b"));
  int64_t now = 100 * kS;
  server.Step(a, now);
  server.Step(b, now);
  EXPECT_FALSE(b.leading());
  EXPECT_EQ(b.observed_holder(), "a");
  // While a renews, b never gets it.
  for (int i = 0; i < 20; ++i) {
    now += 2 * kS;
    server.Step(a, now);
    server.Step(b, now);
    ASSERT_FALSE(b.leading());
  }
  // a stops renewing; b waits a whole lease duration from when it last saw
  // the record change.
  int64_t last_change = now;
  while (now < last_change + 14 * kS) {
    now += 2 * kS;
    server.Step(b, now);
    ASSERT_FALSE(b.leading()) << (now - last_change) / kS;
  }
  now = last_change + 15 * kS + 1;
  server.Step(b, now);
  ASSERT_TRUE(b.leading());
  EXPECT_EQ(b.token(), 1);
  EXPECT_EQ(server.lease->holder, "b");
  EXPECT_EQ(server.lease->transitions, 1);
  // a comes back: it missed its renew deadline long ago, so it has lost.
  server.Step(a, now + kS);
  EXPECT_EQ(a.state(), LeaderElector::State::kLost);
}

TEST(Lease, AnotherHolderSeenWhileLeadingDeposesAtOnce) {
  FakeLeaseServer server;
  LeaderElector a(Config("a"));
  server.Step(a, 0);
  ASSERT_TRUE(a.leading());
  // Someone took the lease (e.g. by hand) within a's renew deadline.
  server.lease->holder = "x";
  server.lease->transitions = 5;
  server.lease->resource_version = "99";
  server.Step(a, 2 * kS);
  EXPECT_EQ(a.state(), LeaderElector::State::kLost);
  EXPECT_NE(a.lost_reason().find("held by \"x\" (transitions 5)"), std::string::npos) << a.lost_reason();
}

TEST(Lease, ConflictOnCreateOrUpdateIsNotLeadership) {
  FakeLeaseServer server;
  LeaderElector a(Config("a")), b(Config("b"));
  // Both saw no lease; a's create wins, b's conflicts.
  auto wa = a.Observe(std::nullopt, 0);
  auto wb = b.Observe(std::nullopt, 0);
  ASSERT_TRUE(wa && wb);
  std::optional<LeaseRecord> ans;
  a.WriteResult(server.Apply(*wa, &ans), ans, 0);
  b.WriteResult(server.Apply(*wb, &ans), ans, 0);
  EXPECT_TRUE(a.leading());
  EXPECT_FALSE(b.leading());
  EXPECT_EQ(b.state(), LeaderElector::State::kFollower);
}

TEST(Lease, ReleaseLetsTheOtherTakeOverAtOnce) {
  FakeLeaseServer server;
  LeaderElector a(Config("a")), b(Config("b"));
  server.Step(a, 0);
  server.Step(b, kS);
  auto rel = a.Release(2 * kS);
  ASSERT_TRUE(rel);
  std::optional<LeaseRecord> ans;
  ASSERT_TRUE(server.Apply(*rel, &ans));
  EXPECT_EQ(server.lease->holder, "");
  EXPECT_EQ(server.lease->transitions, 0);
  server.Step(b, 3 * kS);
  EXPECT_TRUE(b.leading());
  EXPECT_EQ(b.token(), 1);
}

TEST(Lease, DeletedLeaseDeposesTheLeader) {
  FakeLeaseServer server;
  LeaderElector a(Config("a"));
  server.Step(a, 0);
  server.lease.reset();
  server.Step(a, 2 * kS);
  EXPECT_EQ(a.state(), LeaderElector::State::kLost);
}

TEST(Lease, BodyShape) {
  LeaderElector a(Config("me"));
  auto w = a.Observe(std::nullopt, 5 * kS);
  ASSERT_TRUE(w && w->create);
  auto j = engine::ParseJson(w->body);
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(engine::GetString(*j, {"apiVersion"}), "coordination.k8s.io/v1");
  EXPECT_EQ(engine::GetString(*j, {"metadata", "namespace"}), "recon-system");
  EXPECT_EQ(engine::GetString(*j, {"metadata", "name"}), "recon-leader");
  EXPECT_EQ(engine::GetString(*j, {"spec", "holderIdentity"}), "me");
  EXPECT_EQ((*j)["spec"]["leaseTransitions"], 0);
}

}  // namespace
}  // namespace recon::k8s
