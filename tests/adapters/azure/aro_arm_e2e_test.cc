// End to end over HTTP: the runtime with the aro domain, the live
// Kubernetes adapter against the sim's ApiServer, and the ARM adapter
// against the simulated ARM/AAD in front of it. The test plays the outside
// world: it detaches an NSG in ARM, rotates the service principal's
// secret, takes ARM down; the agent's clock is moved by hand (no waiting
// for hour-long timers). Afterwards nothing secret may be in the store or
// the logs.
#include <gtest/gtest.h>

#include <sstream>
#include <thread>

#include "absl/strings/escaping.h"
#include "adapters/azure/adapter.h"
#include "adapters/k8s/adapter.h"
#include "cli/domains.h"
#include "domains/aro/subnet_discovery.h"
#include "engine/jsonl_writer.h"
#include "runtime/metrics.h"
#include "runtime/runtime.h"
#include "spdlog/sinks/ostream_sink.h"
#include "spdlog/spdlog.h"
#include "store/codec.h"
#include "store/memory_store.h"
#include "tests/adapters/azure/harness.h"
#include "tests/lib/eventually.h"

namespace recon::azure {
namespace {

using namespace testing;

constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kHour = 3600 * kSecond;

bool WaitFor(const std::function<bool()>& pred) {
  return testlib::Eventually(pred, std::chrono::seconds(20), std::chrono::milliseconds(5));
}

std::string Condition(sim::ApiServer& server, const std::string& type) {
  auto o = server.ObjectJson("aro.openshift.io", "Cluster", "", "cluster");
  if (!o) return "";
  auto j = engine::ParseJson(*o);
  const engine::Json& conds = engine::Path(*j, {"status", "conditions"});
  if (!conds.is_array()) return "";
  for (const auto& c : conds)
    if (engine::GetString(c, {"type"}) == type) return engine::GetString(c, {"status"});
  return "";
}

uint64_t PutsOf(sim::ArmServer& arm, std::string id) {
  for (char& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto s = arm.Stats();
  auto it = s.puts_by_id.find(id);
  return it == s.puts_by_id.end() ? 0 : it->second;
}

// What the cluster API serves (everything aro uses) and what the k8s
// adapter watches (all but the network.azure.com objects, from ARM).
std::vector<engine::ResourceType> AroTypes(const engine::Engine& engine) {
  std::vector<engine::ResourceType> types;
  for (const auto& u : cli::DomainResources(engine)) types.push_back(u.type);
  return types;
}

std::vector<engine::ResourceUse> ClusterResources(const engine::Engine& engine) {
  auto resources = cli::DomainResources(engine);
  std::erase_if(resources, [](const engine::ResourceUse& u) { return u.type.group == kAzureGroup; });
  return resources;
}

k8s::K8sOptions K8sTestOptions(sim::ApiServer& server, std::vector<engine::ResourceUse> resources) {
  k8s::K8sOptions ko;
  ko.rest.server = server.url();
  ko.rest.context = "test";
  ko.rest.source = "test";
  ko.resources = std::move(resources);
  ko.leader_election = false;
  ko.reflector.backoff.initial_ns = 50'000'000;
  ko.reflector.backoff.max_ns = 400'000'000;
  ko.start_timeout_ms = 20'000;
  ko.probe_via = server.url();  // the internet checks, answered by the scenario
  return ko;
}

AzureOptions AzureTestOptions(sim::ArmServer& arm) {
  AzureOptions az;
  az.arm = TestArmOptions(arm.url());
  az.reads = [](const engine::World& w) {
    std::vector<ArmRef> out;
    for (auto& r : aro::AzureReads(w)) out.push_back({r.kind, r.id});
    return out;
  };
  return az;
}

TEST(AroArmE2e, NsgReattachedWithinOneIntervalRotatedSecretArmDownAndNoSecretsLeak) {
  std::ostringstream logs;
  auto previous = spdlog::default_logger();
  auto logger =
      std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::ostream_sink_mt>(logs));
  logger->set_level(spdlog::level::debug);
  spdlog::set_default_logger(logger);

  auto engine = cli::MakeEngine("aro", {});
  ASSERT_TRUE(engine.ok()) << engine.status();
  auto resources = ClusterResources(**engine);
  auto srv = sim::ApiServer::Start(AroArmScenario(), sim::ServeOptions{}, AroTypes(**engine));
  ASSERT_TRUE(srv.ok()) << srv.status();
  auto& server = **srv;
  sim::ArmServeOptions ao;
  ao.async_retry_after_s = 0;
  ao.async_polls = 2;
  auto armsrv = sim::ArmServer::Start(server, ao);
  ASSERT_TRUE(armsrv.ok()) << armsrv.status();
  auto& arm = **armsrv;

  ShiftedClock clock;
  runtime::Metrics metrics;
  k8s::K8sClusterAdapter k8s_adapter(K8sTestOptions(server, resources), clock);
  AzureClusterAdapter adapter(k8s_adapter, AzureTestOptions(arm), clock, &metrics);
  store::MemoryStore st;
  runtime::RuntimeOptions ro;
  runtime::Runtime runtime(adapter, **engine, st, clock, metrics, ro);
  absl::Status result;
  std::thread run([&] { result = runtime.Run(); });
  // On a failure: the log's tail, to see what the agent saw.
  auto tail = [&] {
    std::string out;
    uint64_t last = st.LastSeq();
    auto it = st.ReadEvents(last > 40 ? last - 40 : 1, last);
    if (!it.ok()) return out;
    for (; (*it)->Valid(); (*it)->Next()) {
      auto e = store::DecodeEvent((*it)->payload());
      if (e.ok()) out += engine::EventToJsonl((*it)->seq(), *e).substr(0, 300) + "\n";
    }
    auto acts = st.ReadActions(last > 40 ? last - 40 : 1, last);
    if (!acts.ok()) return out;
    for (; (*acts)->Valid(); (*acts)->Next()) {
      auto a = store::DecodeAction((*acts)->payload());
      if (a.ok()) out += engine::ActionToJsonl(*a).substr(0, 200) + "\n";
    }
    return out;
  };
  auto next_round = [&] {
    uint64_t polls = adapter.polls();
    clock.Advance(kHour + kSecond);
    adapter.Kick();
    return WaitFor([&] { return adapter.polls() > polls; }) &&
           WaitFor([&] { return !adapter.HasPendingWork(); });
  };

  // The first read: the subnets and the NSG, all as they should be.
  EXPECT_TRUE(WaitFor([&] { return adapter.polls() >= 1 && arm.Stats().gets >= 3; }));
  EXPECT_TRUE(WaitFor([&] { return Condition(server, "ServicePrincipalValid") == "True"; }))
      << Condition(server, "ServicePrincipalValid") << "\n"
      << tail();
  EXPECT_EQ(arm.Stats().puts, 0u);

  // Detached in ARM: re-attached at the next poll, one PUT.
  DetachNsg(server, kMaster);
  EXPECT_TRUE(next_round());
  EXPECT_TRUE(WaitFor([&] { return NsgOf(server, kMaster) == kNsg; })) << NsgOf(server, kMaster);
  EXPECT_EQ(PutsOf(arm, kMaster), 1u);
  // The next interval reads the re-attached subnet: no second PUT.
  EXPECT_TRUE(next_round());
  EXPECT_EQ(PutsOf(arm, kMaster), 1u);
  EXPECT_EQ(arm.Stats().puts, 1u);

  // The secret rotated in AAD but not yet in the cluster: the hourly
  // service-principal check turns the condition False (AADSTS7000215).
  arm.RotateSecret("secret-2");
  EXPECT_TRUE(next_round());
  EXPECT_TRUE(WaitFor([&] { return Condition(server, "ServicePrincipalValid") == "False"; }))
      << Condition(server, "ServicePrincipalValid") << "\n"
      << tail();
  // The cluster's Secret updated: the checker runs again, True.
  auto secret = engine::ParseJson(*server.ObjectJson("", "Secret", "kube-system", "azure-credentials"));
  std::string b64;
  absl::Base64Escape("secret-2", &b64);
  (*secret)["data"]["azure_client_secret"] = b64;
  ASSERT_TRUE(server.Write("update", engine::Dump(*secret)).ok);
  EXPECT_TRUE(WaitFor([&] { return Condition(server, "ServicePrincipalValid") == "True"; }))
      << Condition(server, "ServicePrincipalValid") << "\n"
      << tail();

  // ARM down for two intervals (hours of agent time): polls fail, nothing
  // is written, the agent stays up; once back, the drift made meanwhile is
  // repaired.
  arm.SetDown(true);
  EXPECT_TRUE(next_round());
  DetachNsg(server, kWorker);
  EXPECT_TRUE(next_round());
  EXPECT_EQ(PutsOf(arm, kWorker), 0u);
  EXPECT_TRUE(adapter.Health().ok());
  arm.SetDown(false);
  EXPECT_TRUE(next_round());
  EXPECT_TRUE(WaitFor([&] { return NsgOf(server, kWorker) == kNsg; })) << NsgOf(server, kWorker);
  EXPECT_EQ(PutsOf(arm, kWorker), 1u);

  runtime.Stop();
  run.join();
  EXPECT_TRUE(result.ok()) << result;
  spdlog::set_default_logger(previous);

  // Nothing secret anywhere: the store's records (what exports print), the
  // logs, the metrics.
  std::string stored;
  auto events = st.ReadEvents(1, st.LastSeq());
  ASSERT_TRUE(events.ok());
  for (; (*events)->Valid(); (*events)->Next()) stored += std::string((*events)->payload());
  auto actions = st.ReadActions(1, st.LastSeq());
  ASSERT_TRUE(actions.ok());
  for (; (*actions)->Valid(); (*actions)->Next()) stored += std::string((*actions)->payload());
  EXPECT_NE(stored.find(kMaster), std::string::npos);  // the haystack is real
  std::string b64_1;
  absl::Base64Escape("secret-1", &b64_1);
  const std::string jwt_header = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9";  // every issued token starts so
  for (const std::string& needle :
       {std::string("secret-1"), std::string("secret-2"), b64_1, b64, jwt_header}) {
    EXPECT_EQ(stored.find(needle), std::string::npos) << needle << " in the store";
    EXPECT_EQ(logs.str().find(needle), std::string::npos) << needle << " in the logs";
    EXPECT_EQ(metrics.Render().find(needle), std::string::npos) << needle << " in the metrics";
  }
}

// A restarted agent: the credentials Secret did not change, so no event
// brings it; its values come through the unchanged-objects hook, and ARM
// still answers (an NSG detached while the agent was down is re-attached).
TEST(AroArmE2e, RestartedAgentTakesTheUnchangedSecretAndRepairs) {
  auto first = cli::MakeEngine("aro", {});
  ASSERT_TRUE(first.ok()) << first.status();
  auto srv = sim::ApiServer::Start(AroArmScenario(), sim::ServeOptions{}, AroTypes(**first));
  ASSERT_TRUE(srv.ok()) << srv.status();
  auto& server = **srv;
  sim::ArmServeOptions ao;
  ao.async_retry_after_s = 0;
  auto armsrv = sim::ArmServer::Start(server, ao);
  ASSERT_TRUE(armsrv.ok()) << armsrv.status();
  auto& arm = **armsrv;
  store::MemoryStore st;
  ShiftedClock clock;
  auto run_agent = [&](engine::Engine& engine, const std::function<void(AzureClusterAdapter&)>& body) {
    runtime::Metrics metrics;
    k8s::K8sClusterAdapter k8s_adapter(K8sTestOptions(server, ClusterResources(engine)), clock);
    AzureClusterAdapter adapter(k8s_adapter, AzureTestOptions(arm), clock, &metrics);
    runtime::Runtime runtime(adapter, engine, st, clock, metrics, runtime::RuntimeOptions{});
    absl::Status result;
    std::thread run([&] { result = runtime.Run(); });
    body(adapter);
    runtime.Stop();
    run.join();
    EXPECT_TRUE(result.ok()) << result;
  };
  run_agent(**first, [&](AzureClusterAdapter& adapter) {
    EXPECT_TRUE(WaitFor([&] { return adapter.polls() >= 1 && arm.Stats().gets >= 3; }));
    EXPECT_TRUE(WaitFor([&] { return !adapter.HasPendingWork(); }));
  });
  uint64_t before = st.LastSeq();
  DetachNsg(server, kMaster);  // while nobody watches
  auto second = cli::MakeEngine("aro", {});
  ASSERT_TRUE(second.ok()) << second.status();
  run_agent(**second, [&](AzureClusterAdapter& adapter) {
    // The first read sees the new etag; the next interval's round repairs.
    EXPECT_TRUE(WaitFor([&] { return adapter.polls() >= 1 && !adapter.HasPendingWork(); }));
    clock.Advance(kHour + kSecond);
    adapter.Kick();
    EXPECT_TRUE(WaitFor([&] { return NsgOf(server, kMaster) == kNsg; })) << NsgOf(server, kMaster);
  });
  EXPECT_EQ(PutsOf(arm, kMaster), 1u);
  // The Secret was not logged again: its values came through the hook.
  size_t secrets = 0;
  auto it = st.ReadEvents(before + 1, st.LastSeq());
  ASSERT_TRUE(it.ok());
  for (; (*it)->Valid(); (*it)->Next()) {
    auto e = store::DecodeEvent((*it)->payload());
    secrets += e.ok() && e->object.kind == "Secret";
  }
  EXPECT_EQ(secrets, 0u);
}

}  // namespace
}  // namespace recon::azure
