// `recon log import --format audit|must-gather`, run as the real binary:
// refused input changes no store, Secrets are redacted, and the worked
// incident of examples/incidents/ explains and diffs as the README says.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "base/strings.h"
#include "engine/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/run_recon.h"
#include "tests/store/test_util.h"

namespace recon::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::RunResult;

void Write(const std::string& path, std::string_view text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string FirstLines(const std::string& text, int n) {
  std::istringstream in(text);
  std::string line, out;
  for (int i = 0; i < n && std::getline(in, line); ++i) out += line + "\n";
  return out;
}

// A secret write as the apiserver logs it at RequestResponse.
constexpr char kSecretLine[] =
    R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"0b1f","stage":"ResponseComplete",)"
    R"("requestURI":"/api/v1/namespaces/openshift/secrets","verb":"create","user":{"username":"kube:admin"},)"
    R"("objectRef":{"resource":"secrets","namespace":"openshift","name":"pull","apiVersion":"v1"},)"
    R"("responseStatus":{"metadata":{},"code":201},)"
    R"("responseObject":{"kind":"Secret","apiVersion":"v1","metadata":{"name":"pull","namespace":"openshift","resourceVersion":"7"},)"
    R"("data":{".dockerconfigjson":"c3VwZXJzZWNyZXQtdG9rZW4="},"type":"kubernetes.io/dockerconfigjson"},)"
    R"("requestReceivedTimestamp":"2026-11-21T10:00:00.000001Z","stageTimestamp":"2026-11-21T10:00:00.004000Z"})"
    "\n";

class ImportCliTest : public ::testing::Test {
 protected:
  RunResult Recon(const std::string& args) { return testing::RunRecon(tmp_, args); }
  std::string Stat(const std::string& store) { return testing::StoreStat(tmp_, store); }

  store::testing::TempDir tmp_;
  const std::string incident_ = recon::StrCat(RECON_SOURCE_DIR, "/examples/incidents/samples-removal-hang");
  const std::string logs_ =
      recon::StrCat(incident_, ".kube-apiserver.audit.log ", incident_, ".openshift-apiserver.audit.log");
  const std::string store_ = tmp_.Sub("store");
};

// The worked incident: import both apiservers' logs, then explain and diff.
TEST_F(ImportCliTest, SamplesRemovalHangIncident) {
  RunResult imp = Recon(recon::StrCat("log import --format audit ", logs_, " --store ", store_));
  ASSERT_EQ(imp.code, 0) << imp.err;
  EXPECT_THAT(imp.out, HasSubstr("277 audit lines read, 158 events; skipped:"));
  EXPECT_THAT(imp.out, HasSubstr("reads (get, list, watch)"));
  EXPECT_THAT(imp.out, HasSubstr("1 failed writes (HTTP 409)"));
  EXPECT_THAT(imp.out, HasSubstr("writes to kinds no domain declares (--all-kinds keeps them)"));
  EXPECT_THAT(imp.out, HasSubstr(recon::StrCat("imported 158 events from ", incident_,
                                               ".kube-apiserver.audit.log and 1 more into ", store_)));

  // "Why did Removed hang?" is answered in the first lines.
  RunResult ex = Recon(recon::StrCat("explain --store ", store_, " --domains samples"));
  ASSERT_EQ(ex.code, 0) << ex.err;
  EXPECT_THAT(
      FirstLines(ex.out, 15),
      HasSubstr("Config cluster: Removed waiting on 3 in-progress imports (fuse7-java-openshift, jenkins, "
                "jenkins-agent-base) since seq"));
  EXPECT_THAT(ex.out, HasSubstr("the imports finished after 40m27s; samples removed at seq"));
  // As the operator of that era behaved: no limit.
  RunResult forever = Recon(recon::StrCat("explain --store ", store_,
                                          " --domains samples --set samples.removalImportWait=forever"));
  ASSERT_EQ(forever.code, 0) << forever.err;
  EXPECT_THAT(FirstLines(forever.out, 15),
              HasSubstr("no limit (removalImportWait=forever): only the imports finishing ends it"));

  // What the fix changes: the imagestreams go at once instead of a wait.
  RunResult diff = Recon(recon::StrCat("replay --store ", store_,
                                       " --domains samples --diff --set samples.removalImportWait=0s"));
  ASSERT_EQ(diff.code, 1) << diff.err;  // like diff(1): 1 when the streams differ
  EXPECT_THAT(diff.out, HasSubstr("+++ with samples.removalImportWait=0s"));
  EXPECT_THAT(diff.out, HasSubstr(R"(- {"cause":)"));
  EXPECT_THAT(diff.out, HasSubstr(R"("verb":"setTimer","timer":"samples/removalWait")"));
  EXPECT_THAT(
      diff.out,
      HasSubstr(
          R"("verb":"delete","object":{"apiVersion":"image.openshift.io/v1","kind":"ImageStream","metadata":{"name":"jenkins")"));

  // The same logs again: named as already imported, the store unchanged.
  const std::string before = Stat(store_);
  RunResult again = Recon(recon::StrCat("log import --format audit ", logs_, " --store ", store_));
  EXPECT_EQ(again.code, 1);
  EXPECT_THAT(again.err, HasSubstr("was already imported into"));
  EXPECT_EQ(Stat(store_), before);
}

TEST_F(ImportCliTest, BadInputLeavesTheStoreUnchanged) {
  RunResult imp = Recon(recon::StrCat("log import ", RECON_SOURCE_DIR,
                                      "/examples/samples-removed-hang.jsonl --store ", store_));
  ASSERT_EQ(imp.code, 0) << imp.err;
  const std::string before = Stat(store_);
  ASSERT_FALSE(before.empty());
  // A good line, then one whose responseObject lacks its name.
  const std::string bad = tmp_.Sub("bad.audit.log");
  std::string broken = kSecretLine;
  broken.replace(broken.find(R"("name":"pull","namespace")"), 14, R"("nom":"pull",)");
  broken.replace(broken.find("0b1f"), 4, "0b20");  // another request
  Write(bad, std::string(kSecretLine) + broken);
  RunResult r =
      Recon(recon::StrCat("log import --append --all-kinds --format audit ", bad, " --store ", store_));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr(recon::StrCat(bad, ": line 2: \"responseObject.metadata.name\": missing")));
  EXPECT_EQ(Stat(store_), before);
  // A must-gather with a bad file.
  const std::string mg = tmp_.Sub("mg");
  Write(mg + "/timestamp", "2026-11-21 10:20:30.5 +0000 UTC m=+0.1\n");
  Write(mg + "/image/cluster-scoped-resources/samples.operator.openshift.io/configs/cluster.yaml",
        "apiVersion: samples.operator.openshift.io/v1\nmetadata:\n  name: cluster\n");
  r = Recon(recon::StrCat("log import --append --format must-gather ", mg, " --store ", store_));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("configs/cluster.yaml: \"kind\": missing"));
  EXPECT_EQ(Stat(store_), before);
  // Usage errors.
  EXPECT_EQ(Recon(recon::StrCat("log import --format xml ", bad, " --store ", store_)).code, 2);
  EXPECT_EQ(Recon(recon::StrCat("log import --all-kinds ", bad, " --store ", store_)).code, 2);
  EXPECT_EQ(
      Recon(recon::StrCat("log import --format audit --time 2026-11-21T10:00:00Z ", bad, " --store ", store_))
          .code,
      2);
  EXPECT_EQ(Recon(recon::StrCat("log import --format must-gather ", mg, " ", mg, " --store ", store_)).code,
            2);
  EXPECT_EQ(Stat(store_), before);
}

TEST_F(ImportCliTest, SecretsAreRedactedAndMustGatherImports) {
  const std::string log = tmp_.Sub("secret.audit.log");
  Write(log, kSecretLine);
  // A log with nothing any domain reads: nothing to import, no store made.
  const std::string leases = tmp_.Sub("lease.audit.log");
  std::string lease = kSecretLine;
  for (auto [from, to] :
       {std::pair<std::string, std::string>{R"("resource":"secrets")",
                                            R"("resource":"leases","apiGroup":"coordination.k8s.io")"},
        {R"("kind":"Secret","apiVersion":"v1")", R"("kind":"Lease","apiVersion":"coordination.k8s.io/v1")"}})
    lease.replace(lease.find(from), from.size(), to);
  Write(leases, lease);
  RunResult none = Recon(recon::StrCat("log import --format audit ", leases, " --store ", store_));
  EXPECT_EQ(none.code, 1);
  EXPECT_THAT(none.err, HasSubstr("no object events to import"));
  EXPECT_FALSE(std::filesystem::exists(store_));
  // Secrets are read by a domain: imported, their values redacted.
  RunResult r = Recon(recon::StrCat("log import --format audit ", log, " --store ", store_));
  ASSERT_EQ(r.code, 0) << r.err;
  RunResult exp = Recon(recon::StrCat("log export --store ", store_));
  ASSERT_EQ(exp.code, 0) << exp.err;
  EXPECT_THAT(exp.out, Not(HasSubstr("c3VwZXJzZWNyZXQtdG9rZW4=")));
  EXPECT_THAT(exp.out, HasSubstr("recon-redacted:hmac-sha256:"));

  const std::string mg = tmp_.Sub("must-gather.local.1");
  Write(mg + "/timestamp", "2026-11-21 10:20:30.5 +0000 UTC m=+0.1\n");
  Write(mg + "/image/cluster-scoped-resources/samples.operator.openshift.io/configs/cluster.yaml",
        "apiVersion: samples.operator.openshift.io/v1\nkind: Config\nmetadata:\n  name: cluster\n"
        "spec:\n  managementState: Removed\n");
  Write(mg + "/image/cluster-scoped-resources/core/nodes/master-0.yaml",
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: m\n");
  const std::string store2 = tmp_.Sub("store2");
  RunResult m = Recon(recon::StrCat("log import --format must-gather ", mg, " --store ", store2));
  ASSERT_EQ(m.code, 0) << m.err;
  EXPECT_EQ(m.out, recon::StrCat(mg, ": 1 objects read, 1 events; skipped:\n",
                                 "  1 files of resources no domain declares (--all-kinds reads them)\n",
                                 "imported 1 events from ", mg, " into ", store2, " (seq 1..1)\n"));
  RunResult e2 = Recon(recon::StrCat("log export --store ", store2));
  EXPECT_THAT(
      e2.out,
      HasSubstr(
          R"({"seq":1,"time":"2026-11-21T10:20:30.5Z","type":"Added","object":{"apiVersion":"samples.operator.openshift.io/v1","kind":"Config")"));
}

}  // namespace
}  // namespace recon::cli
