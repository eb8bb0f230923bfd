// Actions → REST over real HTTP against the sim's ApiServer, the client
// rate limit and Retry-After, and probes (timers are the runtime's).
#include <gtest/gtest.h>

#include "engine/emit.h"
#include "engine/world.h"
#include "tests/adapters/k8s/harness.h"
#include "tests/lib/eventually.h"

namespace recon::k8s {
namespace {

using namespace testing;
using records::EventType;
using testlib::Eventually;

constexpr int64_t kSecond = 1'000'000'000;

class ActionsHttp : public ::testing::Test {
 protected:
  void SetUp() override {
    sim::Scenario s = ConfigMapScenario(2);
    s.objects.push_back(*engine::ParseJson(
        R"({"apiVersion":"image.openshift.io/v1","kind":"ImageStream","metadata":{"namespace":"openshift","name":"ruby"},"spec":{"tags":[]}})"));
    s.probes.push_back(
        sim::ProbeRule{"aro/internet/master", "", false, std::nullopt, "dial tcp: i/o timeout"});
    auto srv = sim::ApiServer::Start(s, {});
    ASSERT_TRUE(srv.ok()) << srv.status();
    server_ = std::move(*srv);
    auto o = TestOptions(server_->url());
    o.resources.push_back(
        Use({"image.openshift.io", "v1", "ImageStream", "imagestreams", true, true, {"is"}}));
    o.probe_via = server_->url();
    options_ = o;
  }
  // On the shifted real clock, or on the manual one (time moves only when the test moves it).
  void StartAdapter(bool manual_time = false) {
    adapter_ = std::make_unique<K8sClusterAdapter>(
        options_, manual_time ? static_cast<const runtime::TimeSource&>(manual_) : clock_);
    collector_ = std::make_unique<Collector>(*adapter_);
    auto first = adapter_->Start(empty_);
    ASSERT_TRUE(first.ok()) << first.status();
    collector_->Add(std::move(*first));
    // The watches start after the lists Start waits for: counted requests
    // are the test's own once both are open.
    if (manual_time) ASSERT_TRUE(Eventually([&] { return server_->OpenWatches() >= 2; }));
  }
  void TearDown() override {
    collector_.reset();
    if (adapter_) adapter_->Shutdown();
  }
  const records::EventRecord* Apply(const records::ActionRecord& a) {
    adapter_->Apply(a);
    std::string id = engine::ActionId(a.cause_seq, a.index);
    collector_->WaitFor([&] { return collector_->Result(id) != nullptr; });
    return collector_->Result(id);
  }
  // Applies a probe and returns its Probe event (nullptr if none came).
  const records::EventRecord* ApplyProbe(uint64_t cause, const std::string& target) {
    records::ActionRecord p;
    p.cause_seq = cause;
    p.verb = "probe";
    p.probe = "aro/internet/master";
    p.target = target;
    adapter_->Apply(p);
    const records::EventRecord* answer = nullptr;
    collector_->WaitFor([&] {
      for (const auto& e : collector_->events())
        if (e.type == EventType::kProbe && e.probe.target == target) answer = &e;
      return answer != nullptr;
    });
    return answer;
  }
  engine::Json Server(const std::string& group, const std::string& kind, const std::string& ns,
                      const std::string& name) {
    auto j = server_->ObjectJson(group, kind, ns, name);
    return j ? *engine::ParseJson(*j) : engine::Json();
  }

  // The adapter's pacing (rate limit, Retry-After) moves with this clock.
  void Advance(int64_t ns) {
    manual_.Advance(ns);
    adapter_->ClockMoved();
  }

  ShiftedClock clock_;
  runtime::ManualTimeSource manual_{runtime::RealTimeSource().NowNs()};
  std::unique_ptr<sim::ApiServer> server_;
  K8sOptions options_;
  std::unique_ptr<K8sClusterAdapter> adapter_;
  std::unique_ptr<Collector> collector_;
  const records::EventRecord* r_ = nullptr;
  engine::World empty_;
};

// A custom resource's fields its schema does not declare are dropped with
// a `Warning: 299` header each (no field validation asked for: Warn); the
// result carries their texts, as the olm domain's installplan_warnings_total
// counts them.
TEST_F(ActionsHttp, TheServersWarningsRideOnTheResult) {
  options_.resources.push_back(
      Use({"operators.coreos.com", "v1alpha1", "Subscription", "subscriptions", true, true, {"sub"}}));
  StartAdapter();
  const auto* r = Apply(Action(
      20, "create",
      R"({"apiVersion":"operators.coreos.com/v1alpha1","kind":"Subscription","metadata":{"namespace":"t","name":"s"},)"
      R"("spec":{"name":"etcd","source":"community","sourceNamespace":"olm","bogus":1,"config":{"nope":true}}})"));
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->action_result.ok) << r->action_result.error;
  EXPECT_EQ(r->action_result.warnings,
            R"(["unknown field \"spec.bogus\"","unknown field \"spec.config.nope\""])");
  EXPECT_TRUE(Server("operators.coreos.com", "Subscription", "t", "s")["spec"]["config"].empty());
  // A write the schema takes whole: no warnings.
  r = Apply(Action(21, "create",
                   R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"t","name":"w"}})"));
  ASSERT_TRUE(r && r->action_result.ok);
  EXPECT_EQ(r->action_result.warnings, "");
}

TEST_F(ActionsHttp, CreateUpdateConflictPatchDelete) {
  StartAdapter();
  // create: a resourceVersion in the body is dropped (the server refuses it).
  auto create = Action(
      10, "create",
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"t","name":"made","resourceVersion":"3"},"data":{"a":"1"}})");
  const auto* r = Apply(create);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->action_result.ok) << r->action_result.error;
  EXPECT_EQ(r->action_result.status, 201);
  EXPECT_EQ(r->action_result.action, "10.0");
  EXPECT_EQ(engine::GetString(Server("", "ConfigMap", "t", "made"), {"data", "a"}), "1");
  // The server's resourceVersion and uid ride on the result (issue 19: how
  // the write's echo is told from another writer's change).
  EXPECT_EQ(r->action_result.resource_version,
            engine::GetString(Server("", "ConfigMap", "t", "made"), {"metadata", "resourceVersion"}));
  EXPECT_FALSE(r->action_result.resource_version.empty());
  EXPECT_EQ(r->action_result.uid,
            engine::GetString(Server("", "ConfigMap", "t", "made"), {"metadata", "uid"}));
  // create again: 409 AlreadyExists, the Status body's reason and message.
  create.cause_seq = 11;
  r = Apply(create);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->action_result.ok);
  EXPECT_EQ(r->action_result.status, 409);
  EXPECT_EQ(r->action_result.error.rfind("AlreadyExists: ", 0), 0u) << r->action_result.error;

  std::string rv = engine::GetString(Server("", "ConfigMap", "t", "made"), {"metadata", "resourceVersion"});
  auto update = Action(
      12, "update",
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"t","name":"made","resourceVersion":")" +
          rv + R"("},"data":{"a":"2"}})");
  r = Apply(update);
  ASSERT_TRUE(r && r->action_result.ok) << (r ? r->action_result.error : "no result");
  EXPECT_NE(r->action_result.resource_version, rv) << "the update's new resourceVersion";
  EXPECT_EQ(r->action_result.resource_version,
            engine::GetString(Server("", "ConfigMap", "t", "made"), {"metadata", "resourceVersion"}));
  // The same update again carries a stale resourceVersion: 409 Conflict.
  update.cause_seq = 13;
  r = Apply(update);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->action_result.status, 409);
  EXPECT_EQ(r->action_result.error.rfind("Conflict: ", 0), 0u) << r->action_result.error;

  auto patch = Action(
      14, "patch",
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"t","name":"made"},"data":{"b":"3"}})");
  r = Apply(patch);
  ASSERT_TRUE(r && r->action_result.ok) << (r ? r->action_result.error : "no result");
  engine::Json now = Server("", "ConfigMap", "t", "made");
  EXPECT_EQ(engine::GetString(now, {"data", "a"}), "2");
  EXPECT_EQ(engine::GetString(now, {"data", "b"}), "3");
  EXPECT_EQ(CountRequests(*server_, "PATCH", "/configmaps/made"), 1u);

  // delete with a stale resourceVersion precondition: 409; with the current
  // one: gone.
  auto del = Action(
      15, "delete",
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"t","name":"made","resourceVersion":")" +
          rv + R"("}})");
  r = Apply(del);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->action_result.status, 409) << r->action_result.error;
  std::string cur = engine::GetString(now, {"metadata", "resourceVersion"});
  std::string uid = engine::GetString(now, {"metadata", "uid"});
  del = Action(16, "delete",
               R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"t","name":"made","uid":")" +
                   uid + R"(","resourceVersion":")" + cur + R"("}})");
  r = Apply(del);
  ASSERT_TRUE(r && r->action_result.ok) << (r ? r->action_result.error : "no result");
  EXPECT_TRUE(Server("", "ConfigMap", "t", "made").is_null());
  // A delete of what is not there: 404 NotFound.
  del.cause_seq = 17;
  r = Apply(del);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->action_result.status, 404);
  // The watch saw it all.
  EXPECT_TRUE(collector_->WaitFor([&] { return collector_->Count(EventType::kDeleted, "made") == 1; }));
}

TEST_F(ActionsHttp, UpdateStatusUsesTheSubresourceAndImportImagePosts) {
  StartAdapter();
  engine::Json is = Server("image.openshift.io", "ImageStream", "openshift", "ruby");
  is["status"] = {{"dockerImageRepository", "x"}};
  is["spec"]["tags"] = engine::Json::array({{{"name", "ignored"}}});
  r_ = Apply(Action(20, "updateStatus", engine::Dump(is)));
  ASSERT_TRUE(r_ && r_->action_result.ok) << (r_ ? r_->action_result.error : "no result");
  EXPECT_EQ(CountRequests(*server_, "PUT", "/imagestreams/ruby/status"), 1u);
  engine::Json after = Server("image.openshift.io", "ImageStream", "openshift", "ruby");
  EXPECT_EQ(engine::GetString(after, {"status", "dockerImageRepository"}), "x");
  EXPECT_TRUE(after["spec"]["tags"].empty());  // the status subresource leaves spec alone

  auto import = Action(
      21, "importImage",
      R"({"apiVersion":"image.openshift.io/v1","kind":"ImageStreamImport","metadata":{"namespace":"openshift","name":"ruby"},"spec":{"import":true,"images":[{"from":{"kind":"DockerImage","name":"registry.example/ruby:3"},"to":{"name":"3"}}]}})");
  r_ = Apply(import);
  ASSERT_TRUE(r_);
  EXPECT_EQ(
      CountRequests(*server_, "POST", "/apis/image.openshift.io/v1/namespaces/openshift/imagestreamimports"),
      1u);
  EXPECT_TRUE(r_->action_result.ok) << r_->action_result.error;
}

TEST_F(ActionsHttp, TooManyRequestsIsRetriedAfterRetryAfter) {
  StartAdapter(/*manual_time=*/true);
  server_->FailNext(2, 429, 30, "create");
  records::ActionRecord a = Action(30, "create", ConfigMap("t", "throttled", "x"));
  adapter_->Apply(a);
  ASSERT_TRUE(Eventually([&] { return adapter_->requests_retried() == 1; }));
  uint64_t launched = adapter_->requests_launched();
  // Retry-After: 30 is waited for on the adapter's clock: 29 s on, nothing
  // is sent again; at 30 s the request is.
  Advance(29 * kSecond);
  EXPECT_EQ(adapter_->requests_launched(), launched);
  Advance(1 * kSecond);
  EXPECT_EQ(adapter_->requests_launched(), launched + 1);
  ASSERT_TRUE(Eventually([&] { return adapter_->requests_retried() == 2; }));
  Advance(29 * kSecond);
  EXPECT_EQ(adapter_->requests_launched(), launched + 1);
  Advance(1 * kSecond);
  std::string id = engine::ActionId(a.cause_seq, a.index);
  ASSERT_TRUE(collector_->WaitFor([&] { return collector_->Result(id) != nullptr; }));
  const auto* r = collector_->Result(id);
  EXPECT_TRUE(r->action_result.ok) << r->action_result.error;
  EXPECT_EQ(CountRequests(*server_, "POST", "/configmaps", 429), 2u);
  EXPECT_EQ(CountRequests(*server_, "POST", "/configmaps", 201), 1u);
}

TEST_F(ActionsHttp, TooManyRequestsBeyondTheRetriesIsReportedForTheRuntimeToRetry) {
  options_.api.max_retries = 1;
  StartAdapter();
  server_->FailNext(3, 429, 0, "create");
  const auto* r = Apply(Action(31, "create", ConfigMap("t", "throttled", "x")));
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->action_result.ok);
  EXPECT_EQ(r->action_result.status, 429);
  EXPECT_EQ(r->action_result.error.rfind("TooManyRequests: ", 0), 0u) << r->action_result.error;
}

TEST_F(ActionsHttp, ClientRateLimitSpacesRequests) {
  // A burst of 10, then one request per 100 s of the adapter's clock (which
  // stands still: Start's discovery, lists and watches took some of the 10).
  options_.api.qps = 0.01;
  options_.api.burst = 10;
  StartAdapter(/*manual_time=*/true);
  const int launched = static_cast<int>(adapter_->requests_launched());
  const int left = 10 - launched;
  ASSERT_GE(left, 1) << launched << " requests to start";
  const int n = left + 2;
  for (int i = 0; i < n; ++i)
    adapter_->Apply(Action(40 + i, "create", ConfigMap("t", "rl" + std::to_string(i), "x")));
  auto results = [&] {
    int done = 0;
    for (int i = 0; i < n; ++i) done += collector_->Result(engine::ActionId(40 + i, 0)) != nullptr;
    return done;
  };
  ASSERT_TRUE(collector_->WaitFor([&] { return results() == left; }));
  EXPECT_EQ(static_cast<int>(adapter_->requests_launched()), 10);
  for (int i = 1; i <= 2; ++i) {
    Advance(99 * kSecond);
    EXPECT_EQ(static_cast<int>(adapter_->requests_launched()), 10 + i - 1) << "sent before its token was due";
    Advance(1 * kSecond);
    EXPECT_EQ(static_cast<int>(adapter_->requests_launched()), 10 + i);
    ASSERT_TRUE(collector_->WaitFor([&] { return results() == left + i; }));
  }
}

TEST_F(ActionsHttp, ProbesGoThroughTheSimEndpoint) {
  StartAdapter();
  const auto* e = ApplyProbe(50, "https://management.azure.com/");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->probe.name, "aro/internet/master");
  EXPECT_FALSE(e->probe.ok);
  EXPECT_EQ(e->probe.detail, "dial tcp: i/o timeout");
  EXPECT_FALSE(adapter_->HasPendingWork());
}

TEST_F(ActionsHttp, DirectProbeOfAnUnreachableTarget) {
  options_.probe_via = "";
  options_.probe_timeout_ms = 2000;
  StartAdapter();
  const auto* e = ApplyProbe(51, "http://127.0.0.1:1/");  // nothing listens on port 1
  ASSERT_TRUE(e);
  EXPECT_FALSE(e->probe.ok);
  EXPECT_FALSE(e->probe.status.has_value());
  EXPECT_FALSE(e->probe.detail.empty());
  // A reachable one (the API server itself): any HTTP answer is ok.
  e = ApplyProbe(52, server_->url() + "/not-there");
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->probe.ok) << e->probe.detail;
  EXPECT_EQ(e->probe.status, 404);
}

}  // namespace
}  // namespace recon::k8s
