// The adapter's list/watch over real HTTP against the sim's ApiServer:
// list then watch, pagination, bookmarks, dropped watches, 410 and relist,
// 429/500 handling, restart diffs.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "base/strings.h"
#include "engine/world.h"
#include "tests/adapters/k8s/harness.h"

namespace recon::k8s {
namespace {

using namespace testing;
using records::EventType;

constexpr int64_t kS = 1'000'000'000;

class ReflectorHttp : public ::testing::Test {
 protected:
  void Serve(int objects, sim::ServeOptions so = {}) {
    auto s = sim::ApiServer::Start(ConfigMapScenario(objects), so);
    ASSERT_TRUE(s.ok()) << s.status();
    server_ = std::move(*s);
  }
  std::unique_ptr<K8sClusterAdapter> Adapter(K8sOptions o) {
    return std::make_unique<K8sClusterAdapter>(std::move(o), clock_);
  }
  std::string Url(const std::string& path) { return server_->url() + path; }
  // An adapter started against the server, its first list collected.
  std::pair<std::unique_ptr<K8sClusterAdapter>, std::unique_ptr<Collector>> Started(K8sOptions o) {
    auto a = Adapter(std::move(o));
    auto c = std::make_unique<Collector>(*a);
    auto first = ObjectsOf(a->Start(empty_));
    EXPECT_TRUE(first.ok()) << first.status();
    if (first.ok()) c->Add(std::move(*first));
    return {std::move(a), std::move(c)};
  }
  // Fills `world` as a first adapter run leaves the log (each event passed
  // through `edit` first).
  void FirstRun(engine::World& world, std::function<void(records::EventRecord&)> edit = nullptr) {
    auto a = Adapter(TestOptions(server_->url()));
    auto first = ObjectsOf(a->Start(empty_));
    EXPECT_TRUE(first.ok()) << first.status();
    uint64_t seq = 0;
    for (auto& e : first.ok() ? *first : std::vector<records::EventRecord>{}) {
      if (edit) edit(e);
      world.Apply(engine::Event::FromRecord(++seq, e));
    }
    a->Shutdown();
  }
  std::string CmUrl(const std::string& name = "") {
    return Url("/api/v1/namespaces/t/configmaps" + (name.empty() ? "" : "/" + name));
  }
  std::string ServerRv(const std::string& name) {
    auto j = server_->ObjectJson("", "ConfigMap", "t", name);
    if (!j) return "";
    return engine::GetString(*engine::ParseJson(*j), {"metadata", "resourceVersion"});
  }
  // Every (name, resourceVersion) delivered at most once, and the last
  // delivery of each object is the server's current state.
  void ExpectNoDuplicatesAndCurrent(Collector& c, const std::vector<std::string>& names) {
    std::set<std::pair<std::string, std::string>> seen;
    std::map<std::string, const records::EventRecord*> last;
    for (const auto& e : c.events()) {
      if (!(e.type == EventType::kAdded || e.type == EventType::kModified || e.type == EventType::kDeleted))
        continue;
      if (e.type != EventType::kDeleted) {
        EXPECT_TRUE(seen.insert({e.object.name, e.object.resource_version}).second)
            << "duplicate " << e.object.name << " rv " << e.object.resource_version;
      }
      last[e.object.name] = &e;
    }
    for (const auto& n : names) {
      std::string rv = ServerRv(n);
      ASSERT_TRUE(last.count(n)) << n;
      if (rv.empty()) {
        EXPECT_EQ(last[n]->type, EventType::kDeleted) << n;
      } else {
        EXPECT_NE(last[n]->type, EventType::kDeleted) << n;
        EXPECT_EQ(last[n]->object.resource_version, rv) << n;
      }
    }
  }

  ShiftedClock clock_;
  std::unique_ptr<sim::ApiServer> server_;
  engine::World empty_;
};

TEST_F(ReflectorHttp, ListThenWatchDeliversAddedThenModifiedAndDeleted) {
  Serve(2);
  auto a = Adapter(TestOptions(server_->url()));
  Collector c(*a);
  auto first = ObjectsOf(a->Start(empty_));
  ASSERT_TRUE(first.ok()) << first.status();
  c.Add(std::move(*first));
  ASSERT_EQ(c.events().size(), 2u);
  EXPECT_EQ(c.events()[0].type, EventType::kAdded);
  EXPECT_EQ(c.events()[0].object.name, "cm0");
  EXPECT_EQ(c.events()[0].object.kind, "ConfigMap");
  EXPECT_EQ(c.events()[0].object.resource_version, ServerRv("cm0"));
  EXPECT_NE(c.events()[0].body.find("\"apiVersion\":\"v1\""), std::string::npos);
  EXPECT_TRUE(a->Ready());

  ASSERT_EQ(Http("PUT", CmUrl("cm0"), ConfigMap("t", "cm0", "v1")).status, 200);
  ASSERT_TRUE(c.WaitFor([&] { return c.Count(EventType::kModified, "cm0") == 1; }));
  ASSERT_EQ(Http("POST", CmUrl(), ConfigMap("t", "cm9", "new")).status, 201);
  ASSERT_TRUE(c.WaitFor([&] { return c.Count(EventType::kAdded, "cm9") == 1; }));
  ASSERT_EQ(Http("DELETE", CmUrl("cm1")).status, 200);
  ASSERT_TRUE(c.WaitFor([&] { return c.Count(EventType::kDeleted, "cm1") == 1; }));
  const auto& mod = *std::find_if(c.events().begin(), c.events().end(),
                                  [](const auto& e) { return e.type == EventType::kModified; });
  EXPECT_NE(mod.body.find("\"v\":\"v1\""), std::string::npos) << mod.body;
  EXPECT_GT(mod.time_ns, 0);
  ExpectNoDuplicatesAndCurrent(c, {"cm0", "cm1", "cm9"});
  // The watch asked for bookmarks and a timeout in [30, 60) s.
  bool asked = false;
  for (const auto& r : server_->Requests()) {
    if (r.path.find("watch=1") == std::string::npos) continue;
    asked = r.path.find("allowWatchBookmarks=true") != std::string::npos &&
            r.path.find("timeoutSeconds=") != std::string::npos;
  }
  EXPECT_TRUE(asked);
  a->Shutdown();
}

// DESIGN: the initial lists sit between `synced: false` and `synced: true`,
// so no domain decides from an object's absence before they are complete.
TEST_F(ReflectorHttp, InitialListsAreBracketedBySyncedFacts) {
  Serve(3);
  auto o = TestOptions(server_->url());
  o.cluster_facts = R"({"version":"4.16.0"})";
  auto a = Adapter(o);
  auto first = a->Start(empty_);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_EQ(first->size(), 5u);
  EXPECT_EQ(first->front().type, records::EventType::kCluster);
  EXPECT_EQ(first->front().cluster_facts, R"({"synced":false})");
  for (size_t i = 1; i + 1 < first->size(); ++i) EXPECT_EQ((*first)[i].type, records::EventType::kAdded);
  EXPECT_EQ(first->back().type, records::EventType::kCluster);
  EXPECT_EQ(first->back().cluster_facts, R"({"version":"4.16.0","synced":true})");
  engine::World world;
  uint64_t seq = 0;
  for (size_t i = 0; i < first->size(); ++i) {
    world.Apply(engine::Event::FromRecord(++seq, (*first)[i]));
    EXPECT_EQ(world.Synced(), i + 1 == first->size()) << "after event " << i;
  }
  a->Shutdown();
}

TEST_F(ReflectorHttp, PaginatedList) {
  Serve(7);
  auto o = TestOptions(server_->url());
  o.reflector.page_size = 3;
  auto a = Adapter(o);
  auto first = ObjectsOf(a->Start(empty_));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->size(), 7u);
  std::set<std::string> names;
  for (const auto& e : *first) names.insert(e.object.name);
  EXPECT_EQ(names.size(), 7u);
  EXPECT_EQ(a->reflector("configmaps")->stats().pages.load(), 3u);
  EXPECT_EQ(CountRequests(*server_, "GET", "limit=3&continue="), 2u);
  a->Shutdown();
}

TEST_F(ReflectorHttp, BookmarksAdvanceTheResourceVersion) {
  sim::ServeOptions so;
  so.bookmark_interval_ms = 50;
  Serve(1, so);
  auto a = Adapter(TestOptions(server_->url()));
  Collector c(*a);
  ASSERT_TRUE(a->Start(empty_).ok());
  std::string before = a->reflector("configmaps")->resource_version();
  // A write to another type moves the cluster's resourceVersion; only a
  // bookmark can tell the ConfigMap watch about it.
  ASSERT_EQ(Http("POST", Url("/api/v1/namespaces/t/secrets"),
                 R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","namespace":"t"}})")
                .status,
            201);
  std::string target = std::to_string(server_->ResourceVersion());
  ASSERT_NE(before, target);
  ASSERT_TRUE(c.WaitFor([&] { return a->reflector("configmaps")->resource_version() == target; }))
      << a->reflector("configmaps")->resource_version() << " vs " << target;
  EXPECT_GE(a->reflector("configmaps")->stats().bookmarks.load(), 1u);
  // No object events came of it.
  EXPECT_TRUE(c.events().empty());
  a->Shutdown();
}

TEST_F(ReflectorHttp, DroppedWatchesResumeWithoutLossOrDuplicates) {
  Serve(3);
  auto [a, cp] = Started(TestOptions(server_->url()));
  Collector& c = *cp;
  for (int round = 0; round < 5; ++round) {
    // Drop an established watch (the resumed one of the last round).
    ASSERT_TRUE(c.WaitFor([&] { return server_->OpenWatches() >= 1; }));
    server_->DropWatches();
    std::string v = "r" + std::to_string(round);
    ASSERT_EQ(Http("PUT", CmUrl("cm0"), ConfigMap("t", "cm0", v)).status, 200);
    ASSERT_EQ(Http("POST", CmUrl(), ConfigMap("t", "n" + std::to_string(round), v)).status, 201);
  }
  ASSERT_EQ(Http("DELETE", CmUrl("cm1")).status, 200);
  std::string want = ServerRv("cm0");
  ASSERT_TRUE(c.WaitFor([&] {
    return c.Count(EventType::kAdded, "n4") == 1 && c.Count(EventType::kDeleted, "cm1") == 1 &&
           c.Count(EventType::kModified, "cm0") == 5;
  })) << c.events().size();
  ExpectNoDuplicatesAndCurrent(c, {"cm0", "cm1", "cm2", "n0", "n1", "n2", "n3", "n4"});
  EXPECT_GE(a->reflector("configmaps")->stats().watches.load(), 6u);
  EXPECT_EQ(a->reflector("configmaps")->stats().relists.load(), 0u);
  a->Shutdown();
}

TEST_F(ReflectorHttp, GoneWatchRelistsAndDiffs) {
  Serve(3);
  auto o = TestOptions(server_->url());
  // Retries wait a minute or more, far longer than the test lasts: only the
  // test's clock moves them on, once the changes below are made.
  o.reflector.backoff.initial_ns = 60 * kS;
  o.reflector.backoff.max_ns = 120 * kS;
  auto a = Adapter(o);
  Collector c(*a);
  auto first = ObjectsOf(a->Start(empty_));
  ASSERT_TRUE(first.ok());
  c.Add(std::move(*first));
  size_t listed = c.events().size();
  // The watch is cut and waits for the clock, and the next two fail;
  // meanwhile cm0 is deleted, cm1 changed, cm2 left alone, and history is
  // compacted: the resumed watch gets 410 and the relist must be diffed.
  ASSERT_TRUE(c.WaitFor([&] { return server_->OpenWatches() >= 1; }));
  server_->FailNext(2, 503, 0, "watch");
  server_->DropWatches();
  ASSERT_TRUE(c.WaitFor([&] { return a->reflector("configmaps")->stats().errors.load() == 1; }));
  ASSERT_EQ(Http("DELETE", CmUrl("cm0")).status, 200);
  ASSERT_EQ(Http("PUT", CmUrl("cm1"), ConfigMap("t", "cm1", "changed")).status, 200);
  server_->Compact();
  ASSERT_TRUE(c.WaitFor([&] {
    clock_.Advance(300 * kS);  // past any retry's delay
    a->ClockMoved();
    return a->reflector("configmaps")->stats().relists.load() >= 1 && c.events().size() >= listed + 2;
  }));
  std::vector<records::EventRecord> after(c.events().begin() + listed, c.events().end());
  ASSERT_EQ(after.size(), 2u);  // changes first, vanished objects last (DeltaFIFO.Replace)
  EXPECT_EQ(after[0].type, EventType::kModified);
  EXPECT_EQ(after[0].object.name, "cm1");
  EXPECT_EQ(after[1].type, EventType::kDeleted);
  EXPECT_EQ(after[1].object.name, "cm0");
  EXPECT_EQ(CountRequests(*server_, "GET", "watch=1", 503), 2u);
  // And it watches again afterwards.
  ASSERT_EQ(Http("PUT", CmUrl("cm2"), ConfigMap("t", "cm2", "later")).status, 200);
  ASSERT_TRUE(c.WaitFor([&] { return c.Count(EventType::kModified, "cm2") == 1; }));
  ExpectNoDuplicatesAndCurrent(c, {"cm0", "cm1", "cm2"});
  a->Shutdown();
}

TEST_F(ReflectorHttp, ServerRestartLosesWatchStateNothingLost) {
  Serve(2);
  auto [a, cp] = Started(TestOptions(server_->url()));
  Collector& c = *cp;
  ASSERT_EQ(Http("POST", Url("/api/v1/namespaces/t/secrets"),
                 R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","namespace":"t"}})")
                .status,
            201);
  server_->Restart();
  ASSERT_EQ(Http("PUT", CmUrl("cm1"), ConfigMap("t", "cm1", "x")).status, 200);
  ASSERT_TRUE(c.WaitFor([&] { return c.Count(EventType::kModified, "cm1") == 1; }));
  ExpectNoDuplicatesAndCurrent(c, {"cm0", "cm1"});
  a->Shutdown();
}

TEST_F(ReflectorHttp, RestartedAdapterEmitsOnlyTheDifferences) {
  Serve(4);
  engine::World world;
  FirstRun(world);
  ASSERT_EQ(world.ObjectCount(), 4u);
  // While the agent is away: cm0 deleted, cm1 changed, cm4 created.
  ASSERT_EQ(Http("DELETE", CmUrl("cm0")).status, 200);
  ASSERT_EQ(Http("PUT", CmUrl("cm1"), ConfigMap("t", "cm1", "changed")).status, 200);
  ASSERT_EQ(Http("POST", CmUrl(), ConfigMap("t", "cm4", "new")).status, 201);
  auto b = Adapter(TestOptions(server_->url()));
  auto again = ObjectsOf(b->Start(world));
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_EQ(again->size(), 3u);
  EXPECT_EQ((*again)[0].type, EventType::kModified);
  EXPECT_EQ((*again)[0].object.name, "cm1");
  EXPECT_EQ((*again)[1].type, EventType::kAdded);
  EXPECT_EQ((*again)[1].object.name, "cm4");
  EXPECT_EQ((*again)[2].type, EventType::kDeleted);
  EXPECT_EQ((*again)[2].object.name, "cm0");
  b->Shutdown();
}

TEST_F(ReflectorHttp, RestartedAdapterHandsUnchangedObjectsOfWantedTypesToSeen) {
  Serve(3);
  // The log's copy of cm2 differs from the server's at the same
  // resourceVersion, as a redacted Secret does.
  engine::World world;
  FirstRun(world, [](records::EventRecord& e) {
    size_t at = e.body.find("\"v\":\"v0\"");
    if (e.object.name == "cm2" && at != std::string::npos) e.body.replace(at, 8, "\"v\":\"marker\"");
  });
  ASSERT_EQ(world.ObjectCount(), 3u);
  ASSERT_EQ(engine::GetString(world.Get("", "ConfigMap", "t", "cm2")->json(), {"data", "v"}), "marker");
  ASSERT_EQ(Http("PUT", CmUrl("cm1"), ConfigMap("t", "cm1", "changed")).status, 200);
  for (bool wanted : {true, false}) {
    std::mutex mu;
    std::vector<records::EventRecord> seen;
    std::vector<std::string> asked;
    auto b = Adapter(TestOptions(server_->url()));
    b->SetSeenUnchanged(
        [&, wanted](std::string_view group, std::string_view kind) {
          asked.push_back(recon::StrCat(group, "/", kind));
          return wanted;
        },
        [&](std::vector<records::EventRecord> objects) {
          std::lock_guard<std::mutex> lock(mu);
          for (auto& o : objects) seen.push_back(std::move(o));
        });
    auto again = ObjectsOf(b->Start(world));
    ASSERT_TRUE(again.ok()) << again.status();
    ASSERT_EQ(again->size(), 1u);  // cm1 changed: an event, as before
    EXPECT_EQ((*again)[0].object.name, "cm1");
    EXPECT_EQ(asked, std::vector<std::string>{"/ConfigMap"});
    std::lock_guard<std::mutex> lock(mu);
    if (!wanted) {
      EXPECT_TRUE(seen.empty());
    } else {
      // cm0 and cm2, unchanged: not events, but handed over with the body the server sent.
      ASSERT_EQ(seen.size(), 2u);
      EXPECT_EQ(seen[0].object.name, "cm0");
      EXPECT_EQ(seen[1].object.name, "cm2");
      EXPECT_EQ(engine::GetString(*engine::ParseJson(seen[1].body), {"data", "v"}), "v0");
    }
    b->Shutdown();
  }
}

// The backoff's delays are tested on the clock (reflector_test.cc); here
// they are a millisecond, so Start() is not kept waiting.
TEST_F(ReflectorHttp, ListErrorsBackOffThenSucceed) {
  Serve(2);
  server_->FailNext(3, 500, 0, "list");
  auto o = TestOptions(server_->url());
  o.reflector.backoff.initial_ns = 1'000'000;
  auto a = Adapter(o);
  auto first = ObjectsOf(a->Start(empty_));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->size(), 2u);
  EXPECT_EQ(a->reflector("configmaps")->stats().errors.load(), 3u);
  EXPECT_EQ(CountRequests(*server_, "GET", "/configmaps?limit", 500), 3u);
  EXPECT_EQ(CountRequests(*server_, "GET", "/configmaps?limit", 200), 1u);
  a->Shutdown();
}

TEST_F(ReflectorHttp, MissingResourceTypeIsAStartupErrorNamingIt) {
  Serve(0);
  auto o = TestOptions(server_->url());
  o.resources.push_back(Use({"example.com", "v1", "Widget", "widgets", true, false, {}}));
  o.domains["widgets.example.com"] = "samples";
  auto a = Adapter(o);
  auto first = ObjectsOf(a->Start(empty_));
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(std::string(first.status().message()),
            "resource widgets.example.com (samples) not served by the cluster");
  a->Shutdown();
}

TEST_F(ReflectorHttp, AMissingTypeOfAnOptionalGroupIsNotWatched) {
  // aro without --azure on a real ARO cluster: network.azure.com is ARM's.
  Serve(2);
  auto o = TestOptions(server_->url());
  o.resources.push_back(Use({"example.com", "v1", "Widget", "widgets", true, false, {}}));
  o.domains["widgets.example.com"] = "aro";
  o.optional_groups["example.com"] = "widgets are not reconciled";
  auto a = Adapter(o);
  auto first = ObjectsOf(a->Start(empty_));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->size(), 2u);  // the ConfigMaps, listed as ever
  EXPECT_EQ(a->reflector("widgets"), nullptr);
  EXPECT_NE(a->reflector("configmaps"), nullptr);
  a->Shutdown();
}

TEST_F(ReflectorHttp, WrongTokenIsReportedWithoutTheToken) {
  sim::ServeOptions so;
  so.token = "the-right-one";
  Serve(1, so);
  auto o = TestOptions(server_->url());
  o.rest.token = "sEcReT-wrong-token";
  o.start_timeout_ms = 1500;
  auto a = Adapter(o);
  auto first = ObjectsOf(a->Start(empty_));
  ASSERT_FALSE(first.ok());
  std::string msg(first.status().message());
  EXPECT_NE(msg.find("401"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("sEcReT-wrong-token"), std::string::npos) << msg;
  a->Shutdown();
  // With the right token it works.
  o.rest.token = "the-right-one";
  auto b = Adapter(o);
  ASSERT_TRUE(b->Start(empty_).ok());
  b->Shutdown();
}

TEST_F(ReflectorHttp, CredentialsRejectedForGoodMakeTheAdapterUnhealthy) {
  Serve(1);
  auto [a, cp] = Started(TestOptions(server_->url()));
  Collector& c = *cp;
  EXPECT_TRUE(a->Health().ok());
  // The token is revoked: every watch from now on is 401.
  server_->FailNext(100, 401, 0, "watch");
  server_->DropWatches();
  ASSERT_TRUE(c.WaitFor([&a = a] { return !a->Health().ok(); }));
  std::string msg(a->Health().message());
  EXPECT_EQ(msg.rfind("credentials rejected (HTTP 401) 5 times in a row: watch configmaps: Unauthorized", 0),
            0u)
      << msg;
  EXPECT_EQ(CountRequests(*server_, "GET", "watch=1", 401), 5u);
  a->Shutdown();
}

}  // namespace
}  // namespace recon::k8s
