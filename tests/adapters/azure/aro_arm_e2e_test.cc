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
#include "records/codec.h"
#include "runtime/metrics.h"
#include "runtime/runtime.h"
#include "spdlog/sinks/ostream_sink.h"
#include "spdlog/spdlog.h"
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

// One agent (runtime, aro engine, k8s and ARM adapters) on a memory store
// against the sim's API server and ARM, its logs captured, on a clock the
// test moves.
class AroArmStory : public ::testing::Test {
 protected:
  void SetUp() override {
    previous_ = spdlog::default_logger();
    auto logger =
        std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::ostream_sink_mt>(logs_));
    logger->set_level(spdlog::level::debug);
    spdlog::set_default_logger(logger);

    auto engine = cli::MakeEngine("aro", {});
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = std::move(*engine);
    auto srv = sim::ApiServer::Start(AroArmScenario(), sim::ServeOptions{}, AroTypes(*engine_));
    ASSERT_TRUE(srv.ok()) << srv.status();
    server_ = std::move(*srv);
    sim::ArmServeOptions ao;
    ao.async_retry_after_s = 0;
    ao.async_polls = 2;
    auto arm = sim::ArmServer::Start(*server_, ao);
    ASSERT_TRUE(arm.ok()) << arm.status();
    arm_ = std::move(*arm);

    k8s_ = std::make_unique<k8s::K8sClusterAdapter>(K8sTestOptions(*server_, ClusterResources(*engine_)),
                                                    clock_);
    AzureOptions az = AzureTestOptions(*arm_);
    Configure(az);
    adapter_ = std::make_unique<AzureClusterAdapter>(*k8s_, std::move(az), clock_, &metrics_);
    runtime_ = std::make_unique<runtime::Runtime>(*adapter_, *engine_, st_, clock_, metrics_,
                                                  runtime::RuntimeOptions{});
    run_ = std::thread([this] { result_ = runtime_->Run(); });
  }
  // What a test changes in the ARM adapter's options.
  virtual void Configure(AzureOptions&) {}
  void TearDown() override {
    Stop();
    if (previous_) spdlog::set_default_logger(previous_);
  }
  void Stop() {
    if (!run_.joinable()) return;
    runtime_->Stop();
    run_.join();
    EXPECT_TRUE(result_.ok()) << result_;
  }
  // On a failure: the log's tail, to see what the agent saw.
  std::string Tail() {
    std::string out;
    uint64_t last = st_.LastSeq();
    auto it = st_.ReadEvents(last > 40 ? last - 40 : 1, last);
    if (!it.ok()) return out;
    for (; (*it)->Valid(); (*it)->Next()) {
      auto e = records::DecodeEvent((*it)->payload());
      if (e.ok()) out += engine::EventToJsonl((*it)->seq(), *e).substr(0, 300) + "\n";
    }
    auto acts = st_.ReadActions(last > 40 ? last - 40 : 1, last);
    if (!acts.ok()) return out;
    for (; (*acts)->Valid(); (*acts)->Next()) {
      auto a = records::DecodeAction((*acts)->payload());
      if (a.ok()) out += engine::ActionToJsonl(*a).substr(0, 200) + "\n";
    }
    return out;
  }
  // The next poll interval: the clock an hour on, the round of ARM reads in
  // and what it led to done.
  bool NextRound() {
    uint64_t polls = adapter_->polls();
    clock_.Advance(kHour + kSecond);
    adapter_->Kick();
    return WaitFor([&] { return adapter_->polls() > polls; }) &&
           WaitFor([&] { return !adapter_->HasPendingWork(); });
  }
  bool ConditionBecomes(const std::string& type, const std::string& status) {
    return WaitFor([&] { return Condition(*server_, type) == status; });
  }
  // Every record the store holds, as exports would print them.
  std::string Stored() {
    std::string stored;
    auto events = st_.ReadEvents(1, st_.LastSeq());
    EXPECT_TRUE(events.ok());
    for (; events.ok() && (*events)->Valid(); (*events)->Next()) stored += std::string((*events)->payload());
    auto actions = st_.ReadActions(1, st_.LastSeq());
    EXPECT_TRUE(actions.ok());
    for (; actions.ok() && (*actions)->Valid(); (*actions)->Next())
      stored += std::string((*actions)->payload());
    return stored;
  }

  std::ostringstream logs_;
  std::shared_ptr<spdlog::logger> previous_;
  std::unique_ptr<engine::Engine> engine_;
  std::unique_ptr<sim::ApiServer> server_;
  std::unique_ptr<sim::ArmServer> arm_;
  ShiftedClock clock_;
  runtime::Metrics metrics_;
  std::unique_ptr<k8s::K8sClusterAdapter> k8s_;
  std::unique_ptr<AzureClusterAdapter> adapter_;
  store::MemoryStore st_;
  std::unique_ptr<runtime::Runtime> runtime_;
  absl::Status result_;
  std::thread run_;
};

// `recon agent --azure --azure-credentials env` on a pod whose environment
// has no credentials: the operator's DefaultAzureCredential fails, and so
// does the check, as ARO-RP bf96a7527b reports it, though the cluster's
// Secret holds a valid one (the operator does not read it any more).
class AroArmEmptyEnvironment : public AroArmStory {
 protected:
  void Configure(AzureOptions& az) override {
    auto c = CredentialsFromEnvironment([](std::string_view) { return std::optional<std::string>(); });
    ASSERT_FALSE(c.ok());
    az.credentials_error = std::string(c.status().message());
  }
};

TEST_F(AroArmEmptyEnvironment, ServicePrincipalCheckFailsWithTheCredentialChainsError) {
  ASSERT_TRUE(ConditionBecomes("ServicePrincipalValid", "False")) << Tail();
  auto o = server_->ObjectJson("aro.openshift.io", "Cluster", "", "cluster");
  ASSERT_TRUE(o.has_value());
  for (const auto& c : engine::Path(*engine::ParseJson(*o), {"status", "conditions"})) {
    if (engine::GetString(c, {"type"}) != "ServicePrincipalValid") continue;
    EXPECT_EQ(engine::GetString(c, {"reason"}), "CheckFailed");
    EXPECT_TRUE(
        engine::GetString(c, {"message"}).starts_with("DefaultAzureCredential: failed to acquire a token."))
        << c;
  }
  EXPECT_EQ(arm_->Stats().tokens_issued, 0u);
}

TEST_F(AroArmStory, NsgReattachedWithinOneIntervalRotatedSecretArmDownAndNoSecretsLeak) {
  sim::ApiServer& server = *server_;
  sim::ArmServer& arm = *arm_;
  // The first read: the subnets and the NSG, all as they should be.
  EXPECT_TRUE(WaitFor([&] { return adapter_->polls() >= 1 && arm.Stats().gets >= 3; }));
  EXPECT_TRUE(ConditionBecomes("ServicePrincipalValid", "True")) << Tail();
  EXPECT_EQ(arm.Stats().puts, 0u);

  // Detached in ARM: re-attached at the next poll, one PUT.
  DetachNsg(server, kMaster);
  EXPECT_TRUE(NextRound());
  EXPECT_TRUE(WaitFor([&] { return NsgOf(server, kMaster) == kNsg; })) << NsgOf(server, kMaster);
  EXPECT_EQ(PutsOf(arm, kMaster), 1u);
  // The next interval reads the re-attached subnet: no second PUT.
  EXPECT_TRUE(NextRound());
  EXPECT_EQ(PutsOf(arm, kMaster), 1u);
  EXPECT_EQ(arm.Stats().puts, 1u);

  // The secret rotated in AAD but not yet in the cluster: the hourly
  // service-principal check turns the condition False (AADSTS7000215).
  arm.RotateSecret("secret-2");
  EXPECT_TRUE(NextRound());
  EXPECT_TRUE(ConditionBecomes("ServicePrincipalValid", "False")) << Tail();
  // The cluster's Secret updated: the checker runs again, True.
  auto secret = engine::ParseJson(*server.ObjectJson("", "Secret", "kube-system", "azure-credentials"));
  std::string b64;
  absl::Base64Escape("secret-2", &b64);
  (*secret)["data"]["azure_client_secret"] = b64;
  ASSERT_TRUE(server.Write("update", engine::Dump(*secret)).ok);
  EXPECT_TRUE(ConditionBecomes("ServicePrincipalValid", "True")) << Tail();

  // ARM down for two intervals (hours of agent time): polls fail, nothing
  // is written, the agent stays up; once back, the drift made meanwhile is
  // repaired.
  arm.SetDown(true);
  EXPECT_TRUE(NextRound());
  DetachNsg(server, kWorker);
  EXPECT_TRUE(NextRound());
  EXPECT_EQ(PutsOf(arm, kWorker), 0u);
  EXPECT_TRUE(adapter_->Health().ok());
  arm.SetDown(false);
  EXPECT_TRUE(NextRound());
  EXPECT_TRUE(WaitFor([&] { return NsgOf(server, kWorker) == kNsg; })) << NsgOf(server, kWorker);
  EXPECT_EQ(PutsOf(arm, kWorker), 1u);
  Stop();

  // Nothing secret anywhere: the store's records, the logs, the metrics.
  std::string stored = Stored();
  EXPECT_NE(stored.find(kMaster), std::string::npos);  // the haystack is real
  std::string b64_1;
  absl::Base64Escape("secret-1", &b64_1);
  const std::string jwt_header = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9";  // every issued token starts so
  for (const std::string& needle :
       {std::string("secret-1"), std::string("secret-2"), b64_1, b64, jwt_header}) {
    EXPECT_EQ(stored.find(needle), std::string::npos) << needle << " in the store";
    EXPECT_EQ(logs_.str().find(needle), std::string::npos) << needle << " in the logs";
    EXPECT_EQ(metrics_.Render().find(needle), std::string::npos) << needle << " in the metrics";
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
    auto e = records::DecodeEvent((*it)->payload());
    secrets += e.ok() && e->object.kind == "Secret";
  }
  EXPECT_EQ(secrets, 0u);
}

}  // namespace
}  // namespace recon::azure
