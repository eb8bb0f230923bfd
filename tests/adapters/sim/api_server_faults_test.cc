// The simulated API server's fault controls over HTTP: FailNext with
// Retry-After, a scenario's write faults, dropped watches, restarts.
#include <gtest/gtest.h>

#include <thread>

#include "tests/adapters/sim/api_server_test_util.h"

namespace recon::sim::http_testing {
namespace {

TEST_F(ApiServerTest, FailNextWithRetryAfter) {
  server_->FailNext(2, 429, 3, "get");
  EXPECT_EQ(Do("GET", CmUrl()).status, 200) << "a list is not a get";
  Resp first = Do("GET", U("/api/v1/namespaces/openshift"));
  EXPECT_EQ(first.status, 429);
  EXPECT_EQ(first.json()["reason"], "TooManyRequests");
  EXPECT_EQ(first.json()["details"]["retryAfterSeconds"], 3);
  EXPECT_NE(first.headers.find("Retry-After: 3"), std::string::npos) << first.headers;
  EXPECT_EQ(Do("GET", U("/api/v1/namespaces/openshift")).status, 429);
  EXPECT_EQ(Do("GET", U("/api/v1/namespaces/openshift")).status, 200);
  server_->FailNext(1, 500);
  Resp err = CreateCm("x");
  EXPECT_EQ(err.status, 500);
  EXPECT_EQ(err.json()["reason"], "InternalError");
  EXPECT_EQ(CreateCm("x").status, 201);
  auto log = server_->Requests();
  ASSERT_GE(log.size(), 2u);
  EXPECT_EQ(log[log.size() - 2].status, 500);
  EXPECT_EQ(log.back().method, "POST");
}

TEST_F(ApiServerTest, ScenarioWriteFaultsAnswerOverHttp) {
  server_.reset();
  Scenario s = SamplesScenario();
  s.faults.write_errors.push_back(WriteFault{503, 1.0});
  StartServer({}, s);
  Resp r = CreateCm("nope");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.json()["kind"], "Status");
  EXPECT_EQ(Do("GET", CmUrl("nope")).status, 404);
}

TEST_F(ApiServerTest, DropWatchesEndsOpenStreams) {
  WatchResult w;
  std::thread t([&] { w = Watch(CmUrl() + "?watch=1", nullptr); });
  ASSERT_TRUE(Eventually([&] { return server_->OpenWatches() == 1; }));
  server_->DropWatches();
  t.join();
  EXPECT_NE(w.code, CURLE_OPERATION_TIMEDOUT);
  EXPECT_EQ(server_->OpenWatches(), 0u);
  // Other requests still work.
  EXPECT_EQ(Do("GET", CmUrl()).status, 200);
}

TEST_F(ApiServerTest, RestartKeepsObjectsAndForgetsHistory) {
  ASSERT_EQ(CreateCm("r").status, 201);
  uint64_t before = server_->ResourceVersion();
  ASSERT_EQ(Do("PATCH", CmUrl("r"), R"({"data":{"k":"2"}})", "application/merge-patch+json").status, 200);
  WatchResult w;
  std::thread t([&] { w = Watch(CmUrl() + "?watch=1", nullptr); });
  ASSERT_TRUE(Eventually([&] { return server_->OpenWatches() == 1; }));
  server_->Restart();
  t.join();
  EXPECT_EQ(server_->OpenWatches(), 0u);
  EXPECT_EQ(Do("GET", CmUrl("r")).json()["data"]["k"], "2");
  WatchResult old = Watch(CmUrl() + "?watch=1&resourceVersion=" + std::to_string(before), nullptr);
  ASSERT_EQ(old.events.size(), 1u);
  EXPECT_EQ(old.events[0]["object"]["code"], 410);
}

}  // namespace
}  // namespace recon::sim::http_testing
