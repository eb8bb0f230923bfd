// Test harness: the sim's ApiServer serving the aro-arm scenario, the
// simulated ARM/AAD in front of it (adapters/sim/arm_server.h), and an
// ArmClient on its own I/O loop with a clock the test moves. Waits are
// bounded waits on answers (futures), never sleeps.
#ifndef RECON_TESTS_ADAPTERS_AZURE_HARNESS_H_
#define RECON_TESTS_ADAPTERS_AZURE_HARNESS_H_

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <string>

#include "adapters/azure/arm_client.h"
#include "adapters/http/io_loop.h"
#include "adapters/sim/api_server.h"
#include "adapters/sim/arm_server.h"
#include "adapters/sim/scenario.h"
#include "engine/json.h"
#include "runtime/time_source.h"
#include "tests/adapters/k8s/harness.h"

namespace recon::azure::testing {

inline constexpr char kMaster[] =
    "/subscriptions/sub-1/resourceGroups/vnet-rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/"
    "master";
inline constexpr char kWorker[] =
    "/subscriptions/sub-1/resourceGroups/vnet-rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/"
    "worker";
inline constexpr char kNsg[] =
    "/subscriptions/sub-1/resourceGroups/aro-infra/providers/Microsoft.Network/networkSecurityGroups/"
    "c1-abcde-nsg";

using k8s::testing::ShiftedClock;  // real time plus an offset the test moves

inline Credentials TestCredentials(std::string secret = "secret-1") {
  Credentials c;
  c.client_id = "client-1";
  c.client_secret = std::move(secret);
  c.tenant_id = "tenant-1";
  c.subscription_id = "sub-1";
  return c;
}

// Fast pacing: no real wait for Retry-After or operation polls.
inline ArmOptions TestArmOptions(const std::string& url) {
  ArmOptions o;
  o.arm_endpoint = url;
  o.aad_endpoint = url;
  o.api.max_retry_after_s = 0;
  o.lro_poll_ms = 1;
  o.lro_max_poll_ms = 2;
  o.request_timeout_ms = 5'000;
  o.seed = 11;
  return o;
}

inline sim::Scenario AroArmScenario() {
  auto s = sim::LoadScenario(std::string(RECON_SOURCE_DIR) + "/examples/scenarios/aro-arm.json");
  EXPECT_TRUE(s.ok()) << s.status();
  s->edits.clear();  // the test is the outside world
  return *s;
}

// The Azure-side edit "someone" makes: a subnet with its NSG detached.
inline void DetachNsg(sim::ApiServer& server, const std::string& id) {
  auto o = server.ObjectJson("network.azure.com", "Subnet", "", id);
  ASSERT_TRUE(o.has_value());
  auto j = engine::ParseJson(*o);
  (*j)["spec"].erase("networkSecurityGroup");
  auto r = server.Write("update", engine::Dump(*j));
  ASSERT_TRUE(r.ok) << r.error;
}

inline std::string NsgOf(sim::ApiServer& server, const std::string& id) {
  auto o = server.ObjectJson("network.azure.com", "Subnet", "", id);
  if (!o) return "";
  return engine::GetString(*engine::ParseJson(*o), {"spec", "networkSecurityGroup", "id"});
}

class ArmFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    sim::ServeOptions so;
    auto srv = sim::ApiServer::Start(AroArmScenario(), so);
    ASSERT_TRUE(srv.ok()) << srv.status();
    server_ = std::move(*srv);
    auto arm = sim::ArmServer::Start(*server_, ArmServeOptionsForTest());
    ASSERT_TRUE(arm.ok()) << arm.status();
    arm_ = std::move(*arm);
    loop_.Start();
  }
  // The simulated ARM's options (a fixture may add federated credentials).
  virtual sim::ArmServeOptions ArmServeOptionsForTest() {
    sim::ArmServeOptions ao;
    ao.async_retry_after_s = 0;
    return ao;
  }
  void TearDown() override {
    if (client_)
      Run<int>([this](auto done) {
        client_->Shutdown();
        done(0);
      });
    loop_.Stop();
    client_.reset();
    if (arm_) arm_->Stop();
    if (server_) server_->Stop();
  }
  void MakeClient(ArmOptions o, Credentials c = TestCredentials()) {
    client_ = std::make_unique<ArmClient>(loop_, std::move(o), clock_, &metrics_);
    Run<int>([this, c](auto done) {
      client_->SetCredentials(c);
      done(0);
    });
  }
  // Runs `start` on the loop thread and waits (bounded) for what it hands to `done`.
  template <typename R>
  R Run(std::function<void(std::function<void(R)>)> start) {
    auto p = std::make_shared<std::promise<R>>();
    auto f = p->get_future();
    loop_.Post([start, p] { start([p](R r) { p->set_value(std::move(r)); }); });
    if (f.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
      ADD_FAILURE() << "no answer within 20 s";
      return R{};
    }
    return f.get();
  }
  ArmResult Get(const std::string& id) {
    return Run<ArmResult>([this, id](auto done) { client_->Get(id, done); });
  }
  ArmResult Put(const std::string& id, const std::string& body, const std::string& etag) {
    return Run<ArmResult>([this, id, body, etag](auto done) { client_->Put(id, body, etag, done); });
  }

  std::unique_ptr<sim::ApiServer> server_;
  std::unique_ptr<sim::ArmServer> arm_;
  http::IoLoop loop_;
  ShiftedClock clock_;
  runtime::Metrics metrics_;
  std::unique_ptr<ArmClient> client_;
};

}  // namespace recon::azure::testing

#endif  // RECON_TESTS_ADAPTERS_AZURE_HARNESS_H_
