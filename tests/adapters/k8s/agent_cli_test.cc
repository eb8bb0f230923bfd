// `recon agent --cluster ...` startup errors as a user sees them: the
// message names the file, the context and the field, never the token; a
// type the cluster does not serve names the type and the domain.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cli/domains.h"
#include "crd/registry.h"
#include "tests/adapters/k8s/harness.h"
#include "tests/lib/eventually.h"

namespace recon::k8s {
namespace {

namespace fs = std::filesystem;
using namespace testing;

struct AgentRun {
  int code = -1;
  std::string output;
};

AgentRun Agent(const std::string& args) {
  AgentRun r;
  std::string cmd = std::string(RECON_BINARY) + " agent " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

fs::path Dir() {
  fs::path d = fs::temp_directory_path() / ("recon-k8s-cli-" + std::to_string(getpid()));
  fs::create_directories(d);
  return d;
}

TEST(AgentCli, BadKubeconfigNamesFileContextAndFieldButNotTheToken) {
  fs::path kc = Dir() / "bad-kubeconfig";
  std::ofstream(kc) << "current-context: prod\n"
                       "contexts: [{name: prod, context: {cluster: c, user: u}}]\n"
                       "clusters: [{name: c, cluster: {certificate-authority-data: Zm9v}}]\n"
                       "users: [{name: u, user: {token: hunter2-SECRET}}]\n";
  AgentRun r = Agent("--cluster " + kc.string() + " --store " + (Dir() / "store").string());
  EXPECT_NE(r.code, 0);
  EXPECT_NE(
      r.output.find("kubeconfig " + kc.string() + ": context \"prod\", cluster \"c\": server is missing"),
      std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("hunter2-SECRET"), std::string::npos) << r.output;

  AgentRun ctx =
      Agent("--cluster " + kc.string() + " --context staging --store " + (Dir() / "store").string());
  EXPECT_NE(ctx.code, 0);
  EXPECT_NE(ctx.output.find("context \"staging\" not found (contexts: prod)"), std::string::npos)
      << ctx.output;

  AgentRun missing = Agent("--cluster " + (Dir() / "nope").string());
  EXPECT_NE(missing.code, 0);
  EXPECT_NE(missing.output.find((Dir() / "nope").string() + ": cannot read"), std::string::npos)
      << missing.output;

  AgentRun incluster = Agent("--cluster incluster");
  EXPECT_NE(incluster.code, 0);
  EXPECT_NE(incluster.output.find("KUBERNETES_SERVICE_HOST"), std::string::npos) << incluster.output;
}

TEST(AgentCli, TypeNotServedIsAStartupErrorNamingItAndTheDomain) {
  // A server that serves only the built-ins (no CRDs installed): the
  // samples domain's proxies.config.openshift.io is not among them.
  sim::ServeOptions no_crds;
  no_crds.api.crds = std::make_shared<const crd::Registry>();
  auto srv = sim::ApiServer::Start(ConfigMapScenario(0), no_crds);
  ASSERT_TRUE(srv.ok()) << srv.status();
  fs::path kc = Dir() / "kubeconfig";
  std::ofstream(kc) << "current-context: sim\ncontexts: [{name: sim, context: {cluster: c}}]\n"
                       "clusters: [{name: c, cluster: {server: \""
                    << (*srv)->url() << "\"}}]\n";
  auto engine = cli::MakeEngine("samples", {});
  ASSERT_TRUE(engine.ok());
  bool proxies = false;
  for (const auto& u : cli::DomainResources(**engine)) proxies |= u.type.plural == "proxies";
  if (!proxies) GTEST_SKIP() << "the samples domain no longer watches proxies";
  AgentRun r = Agent("--cluster " + kc.string() + " --domains samples --no-leader-election --store " +
                     (Dir() / "store2").string());
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.output.find("resource proxies.config.openshift.io (samples) not served by the cluster"),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace recon::k8s

namespace recon::k8s {
namespace {

// /readyz of a live agent: 503 while another replica holds the lease, 200
// once this one holds it (the holder's lease is deleted here, as if it
// gave up), and SIGTERM then exits 0 and releases the lease.
TEST(AgentCli, ReadyzFollowsTheLease) {
  auto engine = cli::MakeEngine("samples", {});
  ASSERT_TRUE(engine.ok());
  std::vector<engine::ResourceType> types;
  for (const auto& u : cli::DomainResources(**engine)) types.push_back(u.type);
  auto srv = sim::ApiServer::Start(ConfigMapScenario(1), {}, types);
  ASSERT_TRUE(srv.ok()) << srv.status();
  auto& server = **srv;
  std::string leases = server.url() + "/apis/coordination.k8s.io/v1/namespaces/t/leases";
  ASSERT_EQ(
      Http(
          "POST", leases,
          R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"recon-agent","namespace":"t"},)"
          R"("spec":{"holderIdentity":"someone-else","leaseDurationSeconds":15,"leaseTransitions":4}})")
          .status,
      201);
  fs::path kc = Dir() / "kubeconfig-readyz";
  std::ofstream(kc) << "current-context: sim\ncontexts: [{name: sim, context: {cluster: c, namespace: t}}]\n"
                       "clusters: [{name: c, cluster: {server: \""
                    << server.url() << "\"}}]\n";
  fs::path log = Dir() / "readyz.log";
  fs::path store = Dir() / "store-readyz";
  // A fresh log and store each run (a stale log would show an old port).
  fs::remove(log);
  fs::remove_all(store);
  pid_t pid = fork();
  if (pid == 0) {
    FILE* f = std::fopen(log.c_str(), "w");
    dup2(fileno(f), 2);
    dup2(fileno(f), 1);
    execl(RECON_BINARY, RECON_BINARY, "agent", "--cluster", kc.c_str(), "--store", store.c_str(), "--domains",
          "samples", "--port", "0", "--identity", "me", nullptr);
    _exit(127);
  }
  auto wait = [](const std::function<bool()>& pred) {
    return testlib::Eventually(pred, std::chrono::seconds(10), std::chrono::milliseconds(25));
  };
  std::string port;
  bool serving = wait([&] {
    std::ifstream in(log);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t at = text.find("/metrics on 127.0.0.1:");
    if (at == std::string::npos) return false;
    at += std::string("/metrics on 127.0.0.1:").size();
    size_t end = text.find('\n', at);
    if (end == std::string::npos) return false;  // the line is still being written
    port = text.substr(at, end - at);
    return true;
  });
  auto readyz = [&] { return Http("GET", "http://127.0.0.1:" + port + "/readyz").status; };
  bool standby = serving && readyz() == 503;
  // The other holder goes away: this replica creates the lease and leads.
  Http("DELETE", leases + "/recon-agent");
  bool ready = serving && wait([&] { return readyz() == 200; });
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  std::ifstream in(log);
  std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_TRUE(serving) << out;
  EXPECT_TRUE(standby) << out;
  EXPECT_TRUE(ready) << out;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  auto lease = server.ObjectJson("coordination.k8s.io", "Lease", "t", "recon-agent");
  ASSERT_TRUE(lease);
  EXPECT_EQ(engine::GetString(*engine::ParseJson(*lease), {"spec", "holderIdentity"}), "");
}

}  // namespace
}  // namespace recon::k8s
