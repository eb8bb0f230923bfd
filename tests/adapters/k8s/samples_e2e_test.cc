// End to end over HTTP: the runtime with the samples domain and the live
// adapter against the sim's ApiServer serving the samples-removed scenario.
// The agent bootstraps the Config and creates the imagestreams; an admin
// (this test, through the API) sets the Config to Removed; the agent
// removes them.
#include <gtest/gtest.h>

#include <thread>

#include "cli/domains.h"
#include "records/codec.h"
#include "runtime/metrics.h"
#include "runtime/runtime.h"
#include "store/memory_store.h"
#include "tests/adapters/k8s/harness.h"
#include "tests/adapters/k8s/rbac_check.h"
#include "tests/lib/eventually.h"

namespace recon::k8s {
namespace {

using namespace testing;

std::vector<engine::ResourceType> Types(const std::vector<engine::ResourceUse>& uses) {
  std::vector<engine::ResourceType> out;
  for (const auto& u : uses) out.push_back(u.type);
  return out;
}

size_t ImageStreams(sim::ApiServer& s) {
  auto r = Http("GET", s.url() + "/apis/image.openshift.io/v1/namespaces/openshift/imagestreams");
  auto j = engine::ParseJson(r.body);
  if (!j.ok() || !(*j)["items"].is_array()) return 0;
  return (*j)["items"].size();
}

std::string ConfigState(sim::ApiServer& s, std::initializer_list<std::string_view> path) {
  auto j = s.ObjectJson("samples.operator.openshift.io", "Config", "", "cluster");
  return j ? engine::GetString(*engine::ParseJson(*j), path) : "";
}

TEST(SamplesE2e, ManagedThenRemovedThroughTheApi) {
  auto scenario =
      sim::LoadScenario(std::string(RECON_SOURCE_DIR) + "/examples/scenarios/samples-removed.json");
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  scenario->edits.clear();  // the admin is this test

  auto engine = cli::MakeEngine("samples", {});
  ASSERT_TRUE(engine.ok()) << engine.status();
  auto resources = cli::DomainResources(**engine);
  sim::ServeOptions so;
  so.speed = 100;  // 30 s imports take 0.3 s
  auto srv = sim::ApiServer::Start(*scenario, so, Types(resources));
  ASSERT_TRUE(srv.ok()) << srv.status();
  auto& server = **srv;

  K8sOptions o = TestOptions(server.url());
  o.resources = resources;
  o.probe_via = server.url();  // the registry check is answered by the scenario
  auto files = cli::LoadDirectory(std::string(RECON_SOURCE_DIR) + "/examples/scenarios/samples-small");
  ASSERT_TRUE(files.ok()) << files.status();
  records::EventRecord content;
  content.type = records::EventType::kContent;
  content.content_name = "samples/inventory";
  content.content_digest = records::ContentDigest(*files);
  content.content_files = *files;
  o.cluster_facts = engine::Dump(engine::Json{
      {"architecture", "x86_64"},
      {"options", {{"samples.inventory", content.content_digest}, {"samples.removalImportWait", "0s"}}}});
  o.preamble.push_back(std::move(content));

  runtime::RealTimeSource clock;
  K8sClusterAdapter adapter(o, clock);
  store::MemoryStore st;
  runtime::Metrics metrics;
  runtime::RuntimeOptions ro;
  runtime::Runtime runtime(adapter, **engine, st, clock, metrics, ro);
  absl::Status result;
  std::thread run([&] { result = runtime.Run(); });

  auto wait = [](const std::function<bool()>& pred) {
    return testlib::Eventually(pred, std::chrono::seconds(20), std::chrono::milliseconds(50));
  };
  bool managed = wait([&] {
    return ConfigState(server, {"spec", "managementState"}) == "Managed" && ImageStreams(server) == 2;
  });
  if (!managed) {
    for (const auto& r : server.Requests())
      fprintf(stderr, "  %s %s -> %d\n", r.method.c_str(), r.path.c_str(), r.status);
    fprintf(stderr, "store last seq %llu\n", (unsigned long long)st.LastSeq());
  }
  EXPECT_TRUE(managed) << "imagestreams " << ImageStreams(server);
  EXPECT_TRUE(adapter.Ready());
  if (managed) {
    auto patch = Http("PATCH", server.url() + "/apis/samples.operator.openshift.io/v1/configs/cluster",
                      R"({"spec":{"managementState":"Removed"}})", "application/merge-patch+json");
    EXPECT_EQ(patch.status, 200) << patch.body;
    EXPECT_TRUE(wait([&] { return ImageStreams(server) == 0; })) << "imagestreams " << ImageStreams(server);
  }
  runtime.Stop();
  run.join();
  EXPECT_TRUE(result.ok()) << result;
  // Every observation went into the log before reducers saw it: the Config
  // edit is there as a Modified event.
  auto it = st.ReadEvents(1, st.LastSeq());
  ASSERT_TRUE(it.ok());
  size_t modified_config = 0, results = 0;
  for (; (*it)->Valid(); (*it)->Next()) {
    auto e = records::DecodeEvent((*it)->payload());
    ASSERT_TRUE(e.ok()) << e.status();
    modified_config += e->type == records::EventType::kModified && e->object.kind == "Config";
    results += e->type == records::EventType::kActionResult;
  }
  EXPECT_GE(modified_config, 1u);
  EXPECT_GT(results, 0u);

  // deploy/'s RBAC (what `recon rbac` derives from the domains) allows
  // every request the adapter really sent; the admin's PATCH above is this
  // test's, not the agent's.
  std::vector<sim::RequestLogEntry> agent_requests;
  for (const auto& r : server.Requests())
    if (r.method != "PATCH") agent_requests.push_back(r);
  size_t checked = 0;
  auto denied = Unauthorized(agent_requests, cli::ClusterRules(resources), cli::NamespaceRules(), &checked);
  EXPECT_GT(checked, 10u);
  EXPECT_TRUE(denied.empty()) << [&] {
    std::string all;
    for (const auto& d : denied) all += d + "\n";
    return all;
  }();
}

}  // namespace
}  // namespace recon::k8s

namespace recon::k8s {
namespace {

TEST(RbacCheck, MapsRequestsToWhatRbacAuthorizes) {
  testing::RbacRequest r;
  ASSERT_TRUE(testing::ToRbacRequest(
      "GET", "/apis/image.openshift.io/v1/namespaces/openshift/imagestreams?watch=1&x=y", &r));
  EXPECT_EQ(r.group, "image.openshift.io");
  EXPECT_EQ(r.resource, "imagestreams");
  EXPECT_EQ(r.verb, "watch");
  EXPECT_TRUE(r.namespaced);
  ASSERT_TRUE(
      testing::ToRbacRequest("PUT", "/apis/samples.operator.openshift.io/v1/configs/cluster/status", &r));
  EXPECT_EQ(r.resource, "configs/status");
  EXPECT_EQ(r.verb, "update");
  EXPECT_FALSE(r.namespaced);
  ASSERT_TRUE(testing::ToRbacRequest("GET", "/api/v1/namespaces/openshift", &r));
  EXPECT_EQ(r.resource, "namespaces");
  EXPECT_EQ(r.verb, "get");
  ASSERT_TRUE(testing::ToRbacRequest("GET", "/api/v1/namespaces/x/configmaps?limit=500", &r));
  EXPECT_EQ(r.verb, "list");
  EXPECT_FALSE(testing::ToRbacRequest("GET", "/apis/image.openshift.io/v1", &r));
  EXPECT_FALSE(testing::ToRbacRequest("GET", "/recon-sim/v1/probe?name=a", &r));
  // A request outside the rules is reported.
  size_t checked = 0;
  auto denied =
      testing::Unauthorized({{"DELETE", "/api/v1/namespaces/openshift-config/secrets/pull-secret", 200}},
                            {{"", "secrets", {"get", "list", "watch"}}}, {}, &checked);
  EXPECT_EQ(checked, 1u);
  EXPECT_EQ(denied, (std::set<std::string>{"delete core/secrets"}));
}

}  // namespace
}  // namespace recon::k8s
