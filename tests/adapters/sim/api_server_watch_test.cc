// Watches over HTTP: history after a resourceVersion, selector
// transitions, live changes, bookmarks, timeouts and 410 after compaction.
#include <gtest/gtest.h>

#include <thread>

#include "base/strings.h"
#include "tests/adapters/sim/api_server_test_util.h"

namespace recon::sim::http_testing {
namespace {

TEST_F(ApiServerTest, WatchResumesFromResourceVersion) {
  uint64_t from = server_->ResourceVersion();
  ASSERT_EQ(CreateCm("w").status, 201);
  ASSERT_EQ(Do("PATCH", CmUrl("w"), R"({"data":{"k":"2"}})", "application/merge-patch+json").status, 200);
  ASSERT_EQ(CreateCm("other-ns-filtered", {{"metadata", {{"labels", {{"skip", "1"}}}}}}).status, 201);
  ASSERT_EQ(Do("DELETE", CmUrl("w")).status, 200);
  WatchResult w =
      Watch(CmUrl() + "?watch=1&labelSelector=!skip&resourceVersion=" + std::to_string(from), AtLeast(3));
  ASSERT_EQ(w.events.size(), 3u);
  EXPECT_EQ(w.events[0]["type"], "ADDED");
  EXPECT_EQ(w.events[1]["type"], "MODIFIED");
  EXPECT_EQ(w.events[1]["object"]["data"]["k"], "2");
  EXPECT_EQ(w.events[2]["type"], "DELETED");
  EXPECT_EQ(w.events[2]["object"]["metadata"]["name"], "w");
}

TEST_F(ApiServerTest, WatchSelectorTransitionsAreAddedAndDeleted) {
  uint64_t from = server_->ResourceVersion();
  ASSERT_EQ(CreateCm("t").status, 201);  // no label: not seen
  auto label = [&](const char* value) {
    return Do("PATCH", CmUrl("t"), recon::StrCat(R"({"metadata":{"labels":{"app":)", value, "}}}"),
              "application/merge-patch+json")
        .status;
  };
  ASSERT_EQ(label("\"a\""), 200);  // starts matching: ADDED
  ASSERT_EQ(Do("PATCH", CmUrl("t"), R"({"data":{"k":"2"}})", "application/merge-patch+json").status, 200);
  ASSERT_EQ(label("\"b\""), 200);  // stops matching: DELETED
  ASSERT_EQ(label("\"a\""), 200);  // matches again: ADDED
  WatchResult w =
      Watch(CmUrl() + "?watch=1&labelSelector=app%3Da&resourceVersion=" + std::to_string(from), AtLeast(4));
  ASSERT_EQ(w.events.size(), 4u);
  EXPECT_EQ(w.events[0]["type"], "ADDED");
  EXPECT_EQ(w.events[1]["type"], "MODIFIED");
  EXPECT_EQ(w.events[2]["type"], "DELETED");
  EXPECT_EQ(w.events[2]["object"]["metadata"]["labels"]["app"], "b");
  EXPECT_EQ(w.events[3]["type"], "ADDED");
}

TEST_F(ApiServerTest, WatchDeliversLiveChanges) {
  WatchResult w;
  std::thread t([&] { w = Watch(CmUrl() + "?watch=true", AtLeast(2)); });
  ASSERT_TRUE(Eventually([&] { return server_->OpenWatches() == 1; }));
  ASSERT_EQ(CreateCm("live").status, 201);
  ASSERT_EQ(Do("DELETE", CmUrl("live")).status, 200);
  t.join();
  ASSERT_EQ(w.events.size(), 2u);
  EXPECT_EQ(w.events[0]["type"], "ADDED");
  EXPECT_EQ(w.events[1]["type"], "DELETED");
}

TEST_F(ApiServerTest, WatchFromAFutureResourceVersionCountsAsNow) {
  WatchResult w;
  std::thread t([&] { w = Watch(CmUrl() + "?watch=1&resourceVersion=999999999", AtLeast(1)); });
  ASSERT_TRUE(Eventually([&] { return server_->OpenWatches() == 1; }));
  ASSERT_EQ(CreateCm("future").status, 201);
  t.join();
  ASSERT_EQ(w.events.size(), 1u);
  EXPECT_EQ(w.events[0]["object"]["metadata"]["name"], "future");
}

TEST_F(ApiServerTest, WatchWithoutResourceVersionStartsWithTheCurrentState) {
  WatchResult w =
      Watch(U("/apis/image.openshift.io/v1/namespaces/openshift/imagestreams?watch=1"), AtLeast(1));
  ASSERT_EQ(w.events.size(), 1u);
  EXPECT_EQ(w.events[0]["type"], "ADDED");
  EXPECT_EQ(w.events[0]["object"]["metadata"]["name"], "ruby");
}

TEST_F(ApiServerTest, Bookmarks) {
  server_.reset();
  ServeOptions opts;
  opts.bookmark_interval_ms = 50;
  StartServer(opts);
  WatchResult w = Watch(CmUrl() + "?watch=1&allowWatchBookmarks=true&resourceVersion=" +
                            std::to_string(server_->ResourceVersion()),
                        AtLeast(1));
  ASSERT_EQ(w.events.size(), 1u);
  const Json& b = w.events[0];
  EXPECT_EQ(b["type"], "BOOKMARK");
  EXPECT_EQ(b["object"]["kind"], "ConfigMap");
  EXPECT_EQ(b["object"]["apiVersion"], "v1");
  EXPECT_EQ(b["object"]["metadata"].size(), 1u);
  EXPECT_EQ(b["object"]["metadata"]["resourceVersion"], std::to_string(server_->ResourceVersion()));
}

TEST_F(ApiServerTest, TimeoutSecondsEndsTheStreamCleanly) {
  WatchResult w = Watch(CmUrl() + "?watch=1&timeoutSeconds=1", nullptr);
  EXPECT_EQ(w.code, CURLE_OK);
  EXPECT_EQ(w.status, 200);
  EXPECT_TRUE(w.events.empty());
}

TEST_F(ApiServerTest, WatchFromCompactedHistoryIsExpired) {
  uint64_t from = server_->ResourceVersion();
  ASSERT_EQ(CreateCm("c").status, 201);
  server_->Compact();
  WatchResult w = Watch(CmUrl() + "?watch=1&resourceVersion=" + std::to_string(from), nullptr);
  EXPECT_EQ(w.code, CURLE_OK);
  ASSERT_EQ(w.events.size(), 1u);
  EXPECT_EQ(w.events[0]["type"], "ERROR");
  EXPECT_EQ(w.events[0]["object"]["code"], 410);
  EXPECT_EQ(w.events[0]["object"]["reason"], "Expired");
  // From the current resourceVersion the watch works again.
  uint64_t now = server_->ResourceVersion();
  ASSERT_EQ(CreateCm("c2").status, 201);
  WatchResult ok = Watch(CmUrl() + "?watch=1&resourceVersion=" + std::to_string(now), AtLeast(1));
  ASSERT_EQ(ok.events.size(), 1u);
  EXPECT_EQ(ok.events[0]["object"]["metadata"]["name"], "c2");
}

}  // namespace
}  // namespace recon::sim::http_testing
