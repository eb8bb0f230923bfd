// Secrets never reach the log: a whole agent run on the simulated cluster
// with Secrets holding planted values (data and stringData, base64 and
// plain, a docker config, a kubectl last-applied annotation), then every
// byte of the RocksDB store directory and the output of `log export` and
// `explain` are searched for those values (plain and base64). None may be
// there; the key names must be. `log import` redacts the same way.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "base/strings.h"
#include "engine/json.h"
#include "gtest/gtest.h"
#include "tests/cli/run_recon.h"
#include "tests/store/test_util.h"

namespace recon::cli {
namespace {

using testing::ReadFile;
using testing::RunResult;

using engine::Json;
using store::testing::TempDir;

constexpr char kPassword[] = "PLANTED-password-c0ffee-1";
constexpr char kToken[] = "PLANTED-token-c0ffee-2";
constexpr char kRotated[] = "PLANTED-rotated-c0ffee-3";
constexpr char kTbrAuth[] = "PLANTED-tbr-user:c0ffee-4";
constexpr char kApplied[] = "PLANTED-applied-c0ffee-5";
// Not a secret: a ConfigMap value, which must be found (the search works).
constexpr char kVisible[] = "VISIBLE-configmap-c0ffee-6";

std::string B64(std::string_view s) { return absl::Base64Escape(Av(s)); }

std::string DockerConfig() {
  return recon::StrCat(R"({"auths":{"registry.redhat.io":{"auth":")", B64(kTbrAuth), R"("}}})");
}

// Every form a planted value could be stored in.
std::vector<std::string> Forbidden() {
  std::vector<std::string> out;
  for (const char* v : {kPassword, kToken, kRotated, kTbrAuth, kApplied}) {
    out.push_back(v);
    out.push_back(B64(v));
  }
  out.push_back(B64(DockerConfig()));
  return out;
}

class RedactionTest : public ::testing::Test {
 protected:
  RunResult Recon(const std::string& args) { return testing::RunRecon(tmp_, args); }

  // The bytes of every file under `dir` (.sst, .log, MANIFEST, OPTIONS, ...).
  static std::string AllBytes(const std::string& dir, int* files) {
    std::string all;
    *files = 0;
    for (const auto& f : std::filesystem::recursive_directory_iterator(dir)) {
      if (!f.is_regular_file()) continue;
      ++*files;
      all += ReadFile(f.path().string());
      all += '\n';
    }
    return all;
  }

  static void ExpectNoSecrets(const std::string& where, const std::string& bytes) {
    for (const auto& v : Forbidden()) EXPECT_EQ(bytes.find(v), std::string::npos) << where << " holds " << v;
  }

  TempDir tmp_;
};

Json Secret(const std::string& ns, const std::string& name, Json data, Json string_data = nullptr,
            std::string type = "Opaque") {
  Json s = {{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", {{"name", name}, {"namespace", ns}}}};
  s["type"] = type;
  if (!data.is_null()) s["data"] = std::move(data);
  if (!string_data.is_null()) s["stringData"] = std::move(string_data);
  return s;
}

// A scenario with planted secrets: a docker config, data and stringData,
// the last-applied annotation, and a rotation at 1m.
std::string WriteSecretScenario(TempDir& tmp_) {
  Json app = Secret("demo", "app-creds", {{"password", B64(kPassword)}}, {{"token", kToken}});
  app["metadata"]["annotations"] = {
      {"kubectl.kubernetes.io/last-applied-configuration",
       recon::StrCat(R"({"apiVersion":"v1","kind":"Secret","stringData":{"password":")", kApplied,
                     R"("}})")}};
  Json rotated = Secret("demo", "app-creds", {{"password", B64(kRotated)}}, {{"token", kToken}});
  Json scenario = {
      {"name", "redaction"},
      {"seed", 1},
      {"facts", {{"architecture", "x86_64"}, {"ipv6", false}, {"version", "4.16.0"}}},
      {"objects",
       Json::array({{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "demo"}}}},
                    {{"apiVersion", "v1"},
                     {"kind", "ConfigMap"},
                     {"metadata", {{"name", "settings"}, {"namespace", "demo"}}},
                     {"data", {{"mode", kVisible}}}},
                    Secret("openshift-config", "pull-secret", {{".dockerconfigjson", B64(DockerConfig())}},
                           nullptr, "kubernetes.io/dockerconfigjson"),
                    app})},
      {"edits", Json::array({{{"at", "1m"}, {"update", rotated}}})}};
  const std::string scenario_path = tmp_.Sub("scenario.json");
  std::ofstream(scenario_path) << scenario.dump(2);
  return scenario_path;
}

TEST_F(RedactionTest, AgentRunOnTheSimStoresNoSecretValue) {
  const std::string scenario_path = WriteSecretScenario(tmp_);
  const std::string store = tmp_.Sub("store");

  RunResult run = Recon(recon::StrCat("agent --cluster sim --scenario ", scenario_path, " --store ", store,
                                      " --until-converged"));
  ASSERT_EQ(run.code, 0) << run.out << run.err;
  ExpectNoSecrets("agent output", run.out + run.err);

  int files = 0;
  std::string bytes = AllBytes(store, &files);
  ASSERT_GT(files, 2);
  // The search sees what was stored: a ConfigMap value and the key names.
  ASSERT_NE(bytes.find(kVisible), std::string::npos) << "the store's files do not hold the ConfigMap value";
  EXPECT_NE(bytes.find("app-creds"), std::string::npos);
  ExpectNoSecrets("the store directory", bytes);

  RunResult exported = Recon(recon::StrCat("log export --store ", store));
  ASSERT_EQ(exported.code, 0) << exported.err;
  ExpectNoSecrets("log export", exported.out);
  EXPECT_NE(exported.out.find(kVisible), std::string::npos);
  for (const char* key : {"\"password\":\"recon-redacted:hmac-sha256:",
                          "\"token\":\"recon-redacted:hmac-sha256:", "\".dockerconfigjson\":"}) {
    EXPECT_NE(exported.out.find(key), std::string::npos) << key << " not in\n" << exported.out;
  }
  // The rotation is seen as a change: the password's hash differs between
  // the first and the last observation, the unchanged token's does not.
  std::vector<std::string> passwords, tokens;
  for (size_t start = 0; start < exported.out.size();) {
    size_t end = exported.out.find('\n', start);
    auto line = engine::ParseJson(std::string_view(exported.out).substr(start, end - start));
    start = end == std::string::npos ? exported.out.size() : end + 1;
    ASSERT_TRUE(line.ok());
    const Json& o = engine::Path(*line, {"object"});
    if (engine::GetString(o, {"kind"}) != "Secret" ||
        engine::GetString(o, {"metadata", "name"}) != "app-creds")
      continue;
    passwords.push_back(engine::GetString(o, {"data", "password"}));
    std::string token = engine::GetString(o, {"stringData", "token"});
    if (token.empty()) token = engine::GetString(o, {"data", "token"});
    tokens.push_back(token);
  }
  ASSERT_GE(passwords.size(), 2u) << exported.out;
  EXPECT_NE(passwords.front(), passwords.back());
  EXPECT_EQ(tokens.front(), tokens.back());

  // The pull secret still names its registry (the samples check reads it).
  size_t at = exported.out.find("\".dockerconfigjson\":\"");
  ASSERT_NE(at, std::string::npos);
  at += std::string_view("\".dockerconfigjson\":\"").size();
  std::string decoded;
  ASSERT_TRUE(absl::Base64Unescape(exported.out.substr(at, exported.out.find('"', at) - at), &decoded));
  EXPECT_NE(decoded.find("registry.redhat.io"), std::string::npos) << decoded;
  ExpectNoSecrets("the stored docker config", decoded);

  for (const char* format : {"text", "json"}) {
    RunResult explain = Recon(recon::StrCat("explain --store ", store, " -o ", format));
    ASSERT_EQ(explain.code, 0) << explain.err;
    ExpectNoSecrets(recon::StrCat("explain -o ", format), explain.out + explain.err);
  }
  RunResult check = Recon(recon::StrCat("replay --check --store ", store));
  EXPECT_EQ(check.code, 0) << check.out << check.err;
}

// recon sim (the agent's Runtime on a simulated cluster) redacts with the
// store's key too.
TEST_F(RedactionTest, SimRunStoresNoSecretValue) {
  const std::string scenario_path = WriteSecretScenario(tmp_);
  const std::string store = tmp_.Sub("sim-store");
  RunResult run =
      Recon(recon::StrCat("sim --scenario ", scenario_path, " --store ", store, " --until-converged"));
  ASSERT_EQ(run.code, 0) << run.out << run.err;
  int files = 0;
  std::string bytes = AllBytes(store, &files);
  ASSERT_NE(bytes.find(kVisible), std::string::npos) << "the store's files do not hold the ConfigMap value";
  ExpectNoSecrets("the sim's store directory", bytes);
  RunResult exported = Recon(recon::StrCat("log export --store ", store));
  ASSERT_EQ(exported.code, 0) << exported.err;
  ExpectNoSecrets("log export of the sim's store", exported.out);
  EXPECT_NE(exported.out.find("\"password\":\"recon-redacted:hmac-sha256:"), std::string::npos)
      << exported.out;
  RunResult check = Recon(recon::StrCat("replay --check --store ", store));
  EXPECT_EQ(check.code, 0) << check.out << check.err;
}

TEST_F(RedactionTest, LogImportRedactsWithTheStoresKey) {
  const std::string log = tmp_.Sub("in.jsonl");
  std::ofstream(log) << R"({"time":"2026-11-21T10:00:00Z","type":"Added","object":)"
                     << Secret("demo", "a", {{"password", B64(kPassword)}}, {{"token", kToken}}).dump()
                     << "}\n"
                     << R"({"time":"2026-11-21T10:00:01Z","type":"Modified","object":)"
                     << Secret("demo", "a", {{"password", B64(kPassword)}}).dump() << "}\n";
  const std::string store = tmp_.Sub("store");
  RunResult imported = Recon(recon::StrCat("log import ", log, " --store ", store));
  ASSERT_EQ(imported.code, 0) << imported.err;
  int files = 0;
  ExpectNoSecrets("the store directory", AllBytes(store, &files));
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(store) / "recon-redaction.key"));
  RunResult exported = Recon(recon::StrCat("log export --store ", store));
  ASSERT_EQ(exported.code, 0) << exported.err;
  ExpectNoSecrets("log export", exported.out);
  // Same value, same key: both lines carry the same hash.
  size_t first = exported.out.find("recon-redacted:hmac-sha256:");
  ASSERT_NE(first, std::string::npos) << exported.out;
  std::string hash = exported.out.substr(first, 27 + 64);
  EXPECT_NE(exported.out.find(hash, exported.out.find('\n')), std::string::npos) << exported.out;
  // A second import into the same store uses the same key; an export of a
  // redacted log imports unchanged.
  const std::string again = tmp_.Sub("again.jsonl");
  std::ofstream(again) << exported.out;
  const std::string store2 = tmp_.Sub("store2");
  ASSERT_EQ(Recon(recon::StrCat("log import ", again, " --store ", store2)).code, 0);
  RunResult exported2 = Recon(recon::StrCat("log export --store ", store2));
  EXPECT_EQ(exported2.out, exported.out);
  ASSERT_EQ(Recon(recon::StrCat("log import ", log, " --store ", store, " --append")).code, 0);
  RunResult both = Recon(recon::StrCat("log export --store ", store));
  EXPECT_NE(both.out.find(hash, both.out.rfind('\n', both.out.size() - 2)), std::string::npos) << both.out;
}

}  // namespace
}  // namespace recon::cli
