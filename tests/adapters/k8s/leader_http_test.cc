// Leader election between adapters over real HTTP (a Lease on the sim's
// ApiServer), on a clock only the test moves: one holds, the other waits;
// the holder hangs, the other takes over with transitions+1; the deposed
// one's queued write is refused; a released lease is taken at once. The
// lease loops run in rounds of the test's clock, never on real time.
#include <gtest/gtest.h>

#include <vector>

#include "adapters/k8s/lease.h"
#include "engine/emit.h"
#include "engine/world.h"
#include "tests/adapters/k8s/harness.h"
#include "tests/lib/eventually.h"

namespace recon::k8s {
namespace {

using namespace testing;

constexpr int64_t kS = 1'000'000'000;
// Longer than the test lasts in real time: the lease loops move only in
// the test's rounds.
constexpr int64_t kRetry = 5 * kS;
constexpr int64_t kLeaseDuration = 30 * kS;

K8sOptions Elected(const std::string& url, const std::string& id) {
  K8sOptions o = TestOptions(url);
  o.leader_election = true;
  o.lease.identity = id;
  o.lease.ns = "t";
  o.lease.name = "recon-leader";
  o.lease.retry_period_ns = kRetry;
  o.lease.renew_deadline_ns = 20 * kS;
  o.lease.lease_duration_ns = kLeaseDuration;
  return o;
}

// Moves the clock one retry period on, then runs each adapter's lease step
// of it in turn (each sees what the ones before it wrote), waiting until
// it is done or the adapter lost the lease (it takes no more steps).
bool Round(runtime::ManualTimeSource& clock, const std::vector<K8sClusterAdapter*>& adapters) {
  clock.Advance(kRetry);
  for (auto* a : adapters) {
    uint64_t before = a->lease_rounds();
    a->ClockMoved();
    if (!testlib::Eventually([&] { return a->lease_rounds() > before || !a->Health().ok(); })) return false;
  }
  return true;
}

bool Rounds(runtime::ManualTimeSource& clock, const std::vector<K8sClusterAdapter*>& adapters, int n) {
  for (int i = 0; i < n; ++i)
    if (!Round(clock, adapters)) return false;
  return true;
}

LeaseRecord ServerLease(sim::ApiServer& s) {
  LeaseRecord r;
  auto j = s.ObjectJson("coordination.k8s.io", "Lease", "t", "recon-leader");
  if (j) EXPECT_TRUE(ParseLease(*j, &r).ok());
  return r;
}

TEST(LeaderHttp, TakeoverFencingAndRelease) {
  auto srv = sim::ApiServer::Start(ConfigMapScenario(1), {});
  ASSERT_TRUE(srv.ok()) << srv.status();
  auto& server = **srv;
  runtime::ManualTimeSource clock(runtime::RealTimeSource().NowNs());
  engine::World empty;

  K8sClusterAdapter a(Elected(server.url(), "replica-a"), clock);
  Collector ca(a);
  ASSERT_TRUE(a.Start(empty).ok());
  ASSERT_TRUE(ca.WaitFor([&] { return a.leading() && a.lease_rounds() == 1; }));
  EXPECT_EQ(a.term(), 0);
  EXPECT_TRUE(a.Ready());
  EXPECT_EQ(ServerLease(server).holder, "replica-a");

  K8sClusterAdapter b(Elected(server.url(), "replica-b"), clock);
  Collector cb(b);
  ASSERT_TRUE(b.Start(empty).ok());
  ASSERT_TRUE(cb.WaitFor([&] { return b.lease_rounds() == 1; }));
  // b keeps reading the lease and stays a follower while a renews.
  size_t reads = CountRequests(server, "GET", "/leases/recon-leader");
  ASSERT_TRUE(Rounds(clock, {&a, &b}, 8));
  EXPECT_EQ(CountRequests(server, "GET", "/leases/recon-leader"), reads + 16);
  EXPECT_FALSE(b.leading());
  EXPECT_FALSE(b.Ready());
  // A write b was asked for while standing by waits for leadership.
  b.Apply(Action(70, "create", ConfigMap("t", "from-b", "x")));

  // a's queue holds a write issued under term 0; then a hangs.
  a.HoldWrites(true);
  a.Apply(Action(60, "create", ConfigMap("t", "late-from-a", "x")));
  a.PauseLeaseRenewal(true);
  // a renews no more; b takes over once a lease duration has passed since
  // the last renewal it saw, not a round before.
  ASSERT_TRUE(Round(clock, {&a, &b}));
  std::string last_renew = ServerLease(server).renew_time;
  ASSERT_TRUE(Rounds(clock, {&a, &b}, static_cast<int>(kLeaseDuration / kRetry) - 2));
  ASSERT_EQ(ServerLease(server).renew_time, last_renew);
  EXPECT_FALSE(b.leading());
  ASSERT_TRUE(Round(clock, {&a, &b}));
  EXPECT_TRUE(b.leading());
  EXPECT_EQ(b.term(), 1);
  LeaseRecord lease = ServerLease(server);
  EXPECT_EQ(lease.holder, "replica-b");
  EXPECT_EQ(lease.transitions, 1);
  // b's held write went out under term 1.
  ASSERT_TRUE(cb.WaitFor([&] { return cb.Result("70.0") != nullptr; }));
  EXPECT_TRUE(cb.Result("70.0")->action_result.ok) << cb.Result("70.0")->action_result.error;
  EXPECT_TRUE(server.ObjectJson("", "ConfigMap", "t", "from-b").has_value());

  // a noticed (its renew deadline passed): unhealthy, so its agent exits.
  ASSERT_TRUE(ca.WaitFor([&] { return !a.Health().ok(); }));
  EXPECT_NE(std::string(a.Health().message()).find("leader election lost"), std::string::npos);
  EXPECT_FALSE(a.leading());
  // Its queued write is refused, never sent.
  a.HoldWrites(false);
  ASSERT_TRUE(ca.WaitFor([&] { return ca.Result("60.0") != nullptr; }));
  const auto* refused = ca.Result("60.0");
  EXPECT_FALSE(refused->action_result.ok);
  EXPECT_EQ(refused->action_result.error.rfind("Fenced: issued under lease term 0", 0), 0u)
      << refused->action_result.error;
  EXPECT_EQ(a.refused_writes(), 1u);
  EXPECT_FALSE(server.ObjectJson("", "ConfigMap", "t", "late-from-a").has_value());
  EXPECT_EQ(CountRequests(server, "POST", "/configmaps"), 1u);  // only b's
  a.Shutdown();

  // b shuts down and releases: c takes over at its next step (no lease
  // duration to wait), with transitions 2.
  K8sClusterAdapter c(Elected(server.url(), "replica-c"), clock);
  Collector cc(c);
  ASSERT_TRUE(c.Start(empty).ok());
  ASSERT_TRUE(cc.WaitFor([&] { return c.lease_rounds() == 1; }));
  ASSERT_TRUE(Rounds(clock, {&b, &c}, 2));
  EXPECT_FALSE(c.leading());
  b.Shutdown();
  EXPECT_EQ(ServerLease(server).holder, "");
  ASSERT_TRUE(Round(clock, {&c}));
  EXPECT_TRUE(c.leading());
  EXPECT_EQ(c.term(), 2);
  c.Shutdown();
}

}  // namespace
}  // namespace recon::k8s
