#include "adapters/k8s/kubeconfig.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace recon::k8s {
namespace {

constexpr char kToken[] = "sEcReT-t0ken-value";

std::string Config(const std::string& extra_user = "", const std::string& extra_cluster = "") {
  return std::string(R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: prod
  cluster:
    server: https://prod.example:6443/
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==
- name: lab
  cluster:
    server: https://lab.example:6443
    certificate-authority: certs/ca.pem
)") + extra_cluster +
         R"(
users:
- name: alice
  user:
    token: )" +
         kToken + R"(
- name: bob
  user:
    client-certificate-data: Q0VSVA==
    client-key-data: S0VZ
- name: carol
  user:
    tokenFile: tok/carol
)" + extra_user +
         R"(
contexts:
- name: dev
  context: {cluster: prod, user: alice, namespace: team}
- name: lab
  context: {cluster: lab, user: carol}
- name: certs
  context: {cluster: prod, user: bob}
)";
}

TEST(Kubeconfig, CurrentContextWithTokenAndCaData) {
  auto c = ParseKubeconfig(Config(), "/home/u/.kube/config", "", "/home/u/.kube");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->server, "https://prod.example:6443");
  EXPECT_EQ(c->ca_pem, "-----BEGIN CERTIFICATE-----\n");
  EXPECT_TRUE(c->ca_file.empty());
  EXPECT_EQ(c->token, kToken);
  EXPECT_EQ(c->ns, "team");
  EXPECT_EQ(c->context, "dev");
  EXPECT_FALSE(c->insecure_skip_tls_verify);
  EXPECT_EQ(c->Describe().find(kToken), std::string::npos);
  EXPECT_NE(c->Describe().find("token auth"), std::string::npos);
}

TEST(Kubeconfig, ContextFlagFilesResolvedAgainstTheConfigDir) {
  auto c = ParseKubeconfig(Config(), "/home/u/.kube/config", "lab", "/home/u/.kube");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->server, "https://lab.example:6443");
  EXPECT_EQ(c->ca_file, "/home/u/.kube/certs/ca.pem");
  EXPECT_EQ(c->token_file, "/home/u/.kube/tok/carol");
  EXPECT_TRUE(c->token.empty());
  EXPECT_EQ(c->ns, "");
}

TEST(Kubeconfig, ClientCertificateData) {
  auto c = ParseKubeconfig(Config(), "cfg", "certs");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->client_cert_pem, "CERT");
  EXPECT_EQ(c->client_key_pem, "KEY");
  EXPECT_NE(c->Describe().find("client certificate"), std::string::npos);
}

TEST(Kubeconfig, ParsedOnceEveryContextResolvesAsParsingAgainWould) {
  auto file = Kubeconfig::Parse(Config(), "cfg");
  ASSERT_TRUE(file.ok()) << file.status();
  for (std::string_view context : {"", "lab", "certs", "nope"}) {
    auto once = file->Resolve(context, "/k");
    auto again = ParseKubeconfig(Config(), "cfg", context, "/k");
    ASSERT_EQ(once.ok(), again.ok()) << context;
    if (!once.ok()) {
      EXPECT_EQ(once.status(), again.status());
      continue;
    }
    EXPECT_EQ(once->Describe(), again->Describe());
    EXPECT_EQ(once->token_file, again->token_file);
    EXPECT_EQ(once->client_key_pem, again->client_key_pem);
  }
  // Resolving does not change the parsed file (a const read inserts nothing).
  EXPECT_EQ(file->Resolve("lab", "/k")->server, "https://lab.example:6443");
  EXPECT_EQ(Kubeconfig::Parse("- a list", "cfg").status().message(), "kubeconfig cfg: expected a mapping");
}

TEST(Kubeconfig, InsecureOnlyWhenSet) {
  auto plain = ParseKubeconfig(Config(), "cfg", "lab");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->insecure_skip_tls_verify);
  auto c = ParseKubeconfig(Config("", "    insecure-skip-tls-verify: true\n"), "cfg", "lab");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->insecure_skip_tls_verify);
  EXPECT_NE(c->Describe().find("TLS verification OFF"), std::string::npos);
  auto bad = ParseKubeconfig(Config("", "    insecure-skip-tls-verify: maybe\n"), "cfg", "lab");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("insecure-skip-tls-verify: expected true or false"),
            std::string::npos);
}

std::string Err(const absl::StatusOr<RestConfig>& c) {
  EXPECT_FALSE(c.ok());
  std::string m(c.status().message());
  EXPECT_EQ(m.find(kToken), std::string::npos) << m;
  return m;
}

TEST(Kubeconfig, ErrorsNameFileContextAndField) {
  EXPECT_EQ(Err(ParseKubeconfig(Config(), "/k/cfg", "nope")),
            "kubeconfig /k/cfg: context \"nope\" not found (contexts: dev, lab, certs)");
  std::string no_server = R"(
current-context: x
contexts: [{name: x, context: {cluster: c, user: alice}}]
clusters: [{name: c, cluster: {certificate-authority: /ca}}]
users: [{name: alice, user: {token: )" +
                          std::string(kToken) + "}}]\n";
  EXPECT_EQ(Err(ParseKubeconfig(no_server, "/k/cfg", "")),
            "kubeconfig /k/cfg: context \"x\", cluster \"c\": server is missing");
  std::string no_cluster = "current-context: x\ncontexts: [{name: x, context: {user: alice}}]\n";
  EXPECT_EQ(Err(ParseKubeconfig(no_cluster, "/k/cfg", "")),
            "kubeconfig /k/cfg: context \"x\": cluster is missing");
  std::string missing_user = R"(
current-context: x
contexts: [{name: x, context: {cluster: c, user: zed}}]
clusters: [{name: c, cluster: {server: "https://h"}}]
)";
  EXPECT_EQ(Err(ParseKubeconfig(missing_user, "/k/cfg", "")),
            "kubeconfig /k/cfg: context \"x\": user \"zed\" not found (users: none)");
  EXPECT_NE(Err(ParseKubeconfig("clusters: []\n", "/k/cfg", "")).find("current-context is not set"),
            std::string::npos);
  std::string cert_only = Config("- name: dan\n  user:\n    client-certificate: /c.pem\n") +
                          "- name: d\n  context: {cluster: prod, user: dan}\n";
  EXPECT_NE(Err(ParseKubeconfig(cert_only, "/k/cfg", "d")).find("client-key(-data) is missing"),
            std::string::npos);
  std::string exec = Config("- name: eve\n  user:\n    exec: {command: aws}\n") +
                     "- name: e\n  context: {cluster: prod, user: eve}\n";
  EXPECT_NE(Err(ParseKubeconfig(exec, "/k/cfg", "e")).find("credential plugins are not supported"),
            std::string::npos);
}

TEST(Kubeconfig, InvalidYamlAndBase64NeverQuoteSecrets) {
  // A YAML error right after the token must not echo it.
  std::string broken = std::string("users: [{name: a, user: {token: ") + kToken + "}\n  - ]: [\n";
  std::string m = Err(ParseKubeconfig(broken, "/k/cfg", ""));
  EXPECT_NE(m.find("kubeconfig /k/cfg: not valid YAML at line"), std::string::npos) << m;
  std::string bad64 = Config("- name: f\n  user:\n    token: " + std::string(kToken) +
                             "\n    client-certificate-data: '!!notbase64'\n    client-key-data: S0VZ\n") +
                      "- name: f\n  context: {cluster: prod, user: f}\n";
  EXPECT_NE(Err(ParseKubeconfig(bad64, "/k/cfg", "f")).find("client-certificate-data is not valid base64"),
            std::string::npos);
}

TEST(Kubeconfig, PathChoice) {
  EXPECT_EQ(KubeconfigPath("/flag", "/a:/b", "/home/u"), "/flag");
  EXPECT_EQ(KubeconfigPath("", "/a:/b", "/home/u"), "/a");
  EXPECT_EQ(KubeconfigPath("", ":/b", "/home/u"), "/b");
  EXPECT_EQ(KubeconfigPath("", "", "/home/u"), "/home/u/.kube/config");
}

TEST(Kubeconfig, LoadFromFileNamesThePath) {
  auto dir = std::filesystem::temp_directory_path() / "recon-k8s-kubeconfig-test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "config") << Config();
  auto c = LoadKubeconfig((dir / "config").string(), "lab");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->ca_file, (dir / "certs/ca.pem").string());
  auto missing = LoadKubeconfig((dir / "absent").string(), "");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(std::string(missing.status().message()).find((dir / "absent").string()), std::string::npos);
}

TEST(InCluster, InjectedPaths) {
  auto dir = std::filesystem::temp_directory_path() / "recon-k8s-incluster-test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "token") << kToken;
  std::ofstream(dir / "ca.crt") << "-----BEGIN CERTIFICATE-----\n";
  std::ofstream(dir / "namespace") << "recon-system\n";
  InClusterPaths paths{(dir / "token").string(), (dir / "ca.crt").string(), (dir / "namespace").string()};
  auto c = InClusterConfig("10.0.0.1", "443", paths);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->server, "https://10.0.0.1:443");
  EXPECT_EQ(c->token_file, paths.token);
  EXPECT_EQ(c->ca_file, paths.ca);
  EXPECT_EQ(c->ns, "recon-system");
  EXPECT_EQ(c->Describe().find(kToken), std::string::npos);
  auto v6 = InClusterConfig("fd00::1", "443", paths);
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->server, "https://[fd00::1]:443");
  auto no_env = InClusterConfig("", "", paths);
  ASSERT_FALSE(no_env.ok());
  EXPECT_NE(std::string(no_env.status().message()).find("KUBERNETES_SERVICE_HOST"), std::string::npos);
  paths.token = (dir / "missing-token").string();
  auto no_token = InClusterConfig("10.0.0.1", "443", paths);
  ASSERT_FALSE(no_token.ok());
  EXPECT_NE(std::string(no_token.status().message()).find(paths.token), std::string::npos);
}

}  // namespace
}  // namespace recon::k8s
