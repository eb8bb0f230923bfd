// Starting on a cluster that already runs things (issue 40): kube-apiserver
// sends the items of a list of a built-in kind without apiVersion/kind, and
// those items carry ownerReferences and managedFields with an "apiVersion"
// of their own. The sim's server answers lists that way; the adapter must
// fill in the list's type, and `recon agent` must start and converge.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli/domains.h"
#include "soak/child_process.h"
#include "base/strings.h"
#include "tests/adapters/k8s/harness.h"

namespace recon::k8s {
namespace {

using namespace testing;
namespace fs = std::filesystem;

// What a running cluster holds: objects another controller made, each with
// an owner and a managedFields entry, as a real server stores them.
void AddRunningObjects(sim::Scenario* s) {
  auto meta = [](const std::string& ns, const std::string& name) {
    return engine::Json{
        {"name", name},
        {"namespace", ns},
        {"ownerReferences",
         engine::Json::array({engine::Json{{"apiVersion", "tools.opdev.io/v1alpha1"},
                                           {"kind", "DisconnectedFriendlyApp"},
                                           {"name", "demo"},
                                           {"uid", "0b6c1f0e-0000-4000-8000-000000000001"},
                                           {"controller", true}}})},
        {"managedFields", engine::Json::array({engine::Json{{"manager", "manager"},
                                                            {"operation", "Update"},
                                                            {"apiVersion", "v1"},
                                                            {"fieldsType", "FieldsV1"},
                                                            {"fieldsV1", engine::Json::object()}}})}};
  };
  s->objects.push_back(engine::Json{{"apiVersion", "v1"},
                                    {"kind", "ConfigMap"},
                                    {"metadata", meta("apps", "demo-config")},
                                    {"data", engine::Json{{"k", "v"}}}});
  s->objects.push_back(engine::Json{{"apiVersion", "v1"},
                                    {"kind", "Secret"},
                                    {"metadata", meta("apps", "demo-secret")},
                                    {"type", "Opaque"},
                                    {"data", engine::Json{{"k", "dg=="}}}});
  engine::Json other = engine::Json{
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata", meta("apps", "unrelated")},
      {"spec", engine::Json{{"replicas", 1},
                            {"selector", engine::Json{{"matchLabels", engine::Json{{"app", "unrelated"}}}}},
                            {"template", engine::Json{{"metadata", engine::Json{{"labels", {{"app", "unrelated"}}}}},
                                                      {"spec", engine::Json{{"containers", engine::Json::array(
                                                                                               {engine::Json{
                                                                                                   {"name", "c"},
                                                                                                   {"image",
                                                                                                    "quay.io/x/y:1"}}})}}}}}}}};
  other["metadata"]["managedFields"][0]["apiVersion"] = "apps/v1";
  s->objects.push_back(other);
}

sim::Scenario RunningCluster() {
  auto s = sim::LoadScenario(std::string(RECON_SOURCE_DIR) + "/examples/scenarios/disconnected-dfa.json");
  EXPECT_TRUE(s.ok()) << s.status();
  s->edits.clear();
  AddRunningObjects(&*s);
  return *s;
}

TEST(ExistingObjects, ListsOfBuiltInKindsComeWithoutTypeAndTheAdapterFillsItIn) {
  sim::Scenario scenario = RunningCluster();
  auto srv = sim::ApiServer::Start(scenario, sim::ServeOptions{}, {});
  ASSERT_TRUE(srv.ok()) << srv.status();
  auto& server = **srv;
  // As kube-apiserver: the list's items carry no apiVersion or kind.
  auto raw = Http("GET", server.url() + "/apis/apps/v1/namespaces/apps/deployments");
  ASSERT_EQ(raw.status, 200) << raw.body;
  auto list = engine::ParseJson(raw.body);
  ASSERT_TRUE(list.ok());
  ASSERT_FALSE((*list)["items"].empty());
  for (const auto& item : (*list)["items"]) {
    EXPECT_FALSE(item.contains("apiVersion")) << engine::Dump(item);
    EXPECT_FALSE(item.contains("kind")) << engine::Dump(item);
  }
  // A get, and the items of a CRD's list, keep them.
  EXPECT_NE(Http("GET", server.url() + "/apis/apps/v1/namespaces/apps/deployments/unrelated").body.find(
                R"("kind":"Deployment")"),
            std::string::npos);
  auto dfas = engine::ParseJson(
      Http("GET", server.url() + "/apis/tools.opdev.io/v1alpha1/namespaces/apps/disconnectedfriendlyapps").body);
  ASSERT_TRUE(dfas.ok());
  ASSERT_FALSE((*dfas)["items"].empty());
  EXPECT_EQ(engine::GetString((*dfas)["items"][0], {"kind"}), "DisconnectedFriendlyApp");

  K8sOptions o = TestOptions(server.url());
  o.resources = {Use({"apps", "v1", "Deployment", "deployments", true, true, {"deploy"}}),
                 Use(ConfigMapType()), Use({"", "v1", "Secret", "secrets", true, false, {}})};
  ShiftedClock clock;
  engine::World empty;
  K8sClusterAdapter adapter(o, clock);
  auto start = ObjectsOf(adapter.Start(empty));
  ASSERT_TRUE(start.ok()) << start.status();
  std::map<std::string, int> kinds;
  for (const auto& e : *start) {
    ++kinds[e.object.kind];
    EXPECT_EQ(e.body.find(R"({"apiVersion":")"), 0u) << e.body.substr(0, 120);
    EXPECT_NE(e.body.find(StrCat(R"("kind":")", e.object.kind, R"(")")), std::string::npos);
  }
  EXPECT_EQ(kinds["Deployment"], 2);  // the operator's and the unrelated one
  EXPECT_EQ(kinds["ConfigMap"], 1);
  EXPECT_EQ(kinds["Secret"], 1);
  adapter.Shutdown();
}

// The reported failure: `recon agent --domains disconnected` on a cluster
// that already runs Deployments (the operator's own among them) exited after
// 120 s of "apiVersion is missing". Now it creates the operand's Deployments
// and converges.
TEST(ExistingObjects, AgentStartsAndConvergesOnARunningCluster) {
  sim::Scenario scenario = RunningCluster();
  auto engine = cli::MakeEngine("disconnected", {});
  ASSERT_TRUE(engine.ok()) << engine.status();
  std::vector<engine::ResourceType> types;
  for (const auto& u : cli::DomainResources(**engine)) types.push_back(u.type);
  auto srv = sim::ApiServer::Start(scenario, sim::ServeOptions{}, types);
  ASSERT_TRUE(srv.ok()) << srv.status();
  auto& server = **srv;
  fs::path dir = fs::temp_directory_path() / ("recon-existing-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  WriteKubeconfig((dir / "kubeconfig").string(), server.url(), "t");
  std::vector<std::string> args = {RECON_BINARY,
                                   "agent",
                                   "--cluster",
                                   (dir / "kubeconfig").string(),
                                   "--store",
                                   (dir / "store").string(),
                                   "--domains",
                                   "disconnected",
                                   "--set",
                                   "disconnected.operatorDeployment=openshift-operators/"
                                   "simple-disconnected-operator-controller-manager",
                                   "--no-leader-election",
                                   "--until-converged"};
  std::string log = (dir / "agent.log").string();
  pid_t pid = soak::SpawnLogged(args, log);
  int code = soak::WaitExit(pid, 60);
  std::string out((std::istreambuf_iterator<char>(std::ifstream(log).rdbuf())), std::istreambuf_iterator<char>());
  EXPECT_EQ(code, 0) << out;
  EXPECT_EQ(out.find("apiVersion is missing"), std::string::npos) << out;
  // The operand's Deployments for both instances, made by the agent.
  for (const char* name : {"busybox-demo", "sleeper-demo", "busybox-other", "sleeper-other"})
    EXPECT_TRUE(server.ObjectJson("apps", "Deployment", "apps", name)) << name << "\n" << out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace recon::k8s
