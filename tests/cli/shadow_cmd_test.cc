// `recon shadow report`, run as the real binary on a disconnected scenario
// read as the log of the real operator: its objects appear as the domain
// predicts (match), unless the log is edited to diverge.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/strings.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/run_recon.h"
#include "tests/store/test_util.h"

namespace recon::cli {
namespace {

using store::testing::TempDir;
using ::testing::HasSubstr;
using testing::ReadFile;
using testing::RunResult;

const std::string kScenario = RECON_SOURCE_DIR "/tests/scenarios/disconnected/create.jsonl";

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

void WriteLines(const std::string& path, const std::vector<std::string>& lines) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  for (const auto& l : lines) out << l << "\n";
}

void Replace(std::string* s, const std::string& from, const std::string& to) {
  size_t at = s->find(from);
  ASSERT_NE(at, std::string::npos) << from;
  s->replace(at, from.size(), to);
}

class ShadowCmdTest : public ::testing::Test {
 protected:
  RunResult Recon(const std::string& args) { return testing::RunRecon(tmp_, args); }
  TempDir tmp_;
};

TEST_F(ShadowCmdTest, EveryPredictionMatchesTheRealOperatorsLog) {
  RunResult r = Recon("shadow report " + kScenario + " --domains disconnected --shadow-window 5m");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("shadow report: 5 events, window 5m\n"));
  EXPECT_THAT(r.out, ::testing::MatchesRegex("(.|\n)*disconnected +3 +0 +0 +0 +0 +0\n(.|\n)*"));

  // Byte-identical run to run, and from a store of the same log.
  RunResult j1 = Recon("shadow report " + kScenario + " --domains disconnected --shadow-window 5m -o json");
  RunResult j2 = Recon("shadow report " + kScenario + " --domains disconnected --shadow-window 5m -o json");
  EXPECT_EQ(j1.code, 0);
  EXPECT_EQ(j1.out, j2.out);
  EXPECT_THAT(
      j1.out,
      HasSubstr(
          R"("counts":{"disconnected":{"match":3,"differs":0,"missed":0,"unpredicted":0,"pending":0,"superseded":0}})"));
  std::string st = tmp_.Sub("store");
  ASSERT_EQ(Recon("log import " + kScenario + " --store " + st).code, 0);
  RunResult js = Recon("shadow report --store " + st + " --domains disconnected --shadow-window 5m -o json");
  EXPECT_EQ(js.code, 0) << js.err;
  EXPECT_EQ(js.out, j1.out);
}

TEST_F(ShadowCmdTest, TheStatusWriteComesAfterTheDefaultWindow) {
  // The status is written at 10:04, three minutes after the prediction.
  RunResult r = Recon("shadow report " + kScenario + " --domains disconnected");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("window 2m"));
  EXPECT_THAT(
      r.out, HasSubstr("missed  seq 2 2026-11-21T10:01:00Z disconnected updateStatus DisconnectedFriendlyApp "
                       "apps/demo (action 2.2): nothing within 2m\n"));
}

TEST_F(ShadowCmdTest, DivergencesAreReportedWithObjectAndFields) {
  auto lines = Lines(ReadFile(kScenario));
  ASSERT_EQ(lines.size(), 5u);
  // The real operator runs another image in sleeper-demo...
  std::string& sleeper = lines[3];
  size_t image = sleeper.find(R"("image":")");
  ASSERT_NE(image, std::string::npos);
  sleeper.insert(image + 9, "quay.io/other/");
  // ...and later changes busybox-demo's replicas, which nobody predicted.
  std::string busybox = lines[2];
  Replace(&busybox, R"("time":"2026-11-21T10:02:00Z","type":"Added")",
          R"("time":"2026-11-21T10:05:00Z","type":"Modified")");
  Replace(&busybox, R"("replicas":1)", R"("replicas":3)");
  Replace(
      &busybox, R"("resourceVersion":"101")",
      R"("resourceVersion":"104","managedFields":[{"manager":"manager","operation":"Update","apiVersion":"apps/v1","time":"2026-11-21T10:05:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}}])");
  lines.push_back(busybox);
  lines.push_back(R"({"time":"2026-11-21T10:30:00Z","type":"Cluster","facts":{}})");
  std::string log = tmp_.Sub("diverged.jsonl");
  WriteLines(log, lines);

  RunResult r = Recon("shadow report " + log + " --domains disconnected --shadow-window 5m");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(
      r.out, HasSubstr("differs  seq 2 2026-11-21T10:01:00Z disconnected create Deployment apps/sleeper-demo "
                       "(action 2.1):\n    spec.template.spec.containers[0].image: predicted \"quay.io/"));
  EXPECT_THAT(r.out, HasSubstr(", observed \"quay.io/other/quay.io/"));
  EXPECT_THAT(r.out, HasSubstr("unpredicted  seq 6 2026-11-21T10:05:00Z disconnected Modified Deployment "
                               "apps/busybox-demo by manager: no prediction\n"));
  // Another field manager for the domain: the same write is nobody's to predict.
  RunResult other =
      Recon("shadow report " + log +
            " --domains disconnected --shadow-window 5m --shadow-manager disconnected=dfa -o json");
  EXPECT_THAT(other.out, HasSubstr(R"("unpredicted":0)"));
  // recon explain --shadow says the same at the causes' seqs, run to run alike.
  const std::string explain = "explain " + log + " --domains disconnected --shadow --shadow-window 5m";
  RunResult ex = Recon(explain);
  EXPECT_EQ(ex.code, 0) << ex.err;
  EXPECT_THAT(ex.out,
              HasSubstr("seq 2 10:01:00  disconnected  Deployment apps/sleeper-demo: shadow: predicted "
                        "create (action 2.1) — differs within 5m: "
                        "spec.template.spec.containers[0].image predicted \"quay.io/"));
  EXPECT_THAT(ex.out,
              HasSubstr("seq 6 10:05:00  disconnected  Deployment apps/busybox-demo: shadow: Modified "
                        "by manager — unpredicted: no prediction of disconnected was open on it\n"));
  EXPECT_EQ(Recon(explain).out, ex.out);
  EXPECT_THAT(Recon("explain " + log + " --domains disconnected").out, ::testing::Not(HasSubstr("shadow:")));
}

// The kinds a domain declares may depend on its options (olm.executePlans
// adds the CRDs, RBAC and Jobs a plan creates; olm.csvLifecycle the CRDs a
// CSV requires), and an agent's log records
// the options it ran with: the audit's writes to those kinds are judged
// without repeating the option on the command line (they were dropped as
// kinds no domain declares before the report applied the recorded options).
TEST_F(ShadowCmdTest, TheAuditIsReadWithTheOptionsTheLogRecorded) {
  auto log_with = [&](const std::string& name, const std::string& options) {
    std::string path = tmp_.Sub(name);
    WriteLines(path, {R"({"time":"2026-11-21T10:00:00Z","type":"Cluster","facts":{"synced":true)" + options + "}}"});
    return path;
  };
  std::string executing = log_with("executing.jsonl", "");  // the default since issue 49
  // Planning only (a cluster whose OLM carries plans out and moves CSVs):
  // neither option watches CRDs.
  std::string planning =
      log_with("planning.jsonl", R"(,"options":{"olm.executePlans":"false","olm.csvLifecycle":"false"})");
  std::string audit = tmp_.Sub("audit.log");
  WriteLines(
      audit,
      {R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"a1","stage":"ResponseComplete",)"
       R"("requestURI":"/apis/apiextensions.k8s.io/v1/customresourcedefinitions","verb":"create",)"
       R"("user":{"username":"system:serviceaccount:olm:olm-operator-serviceaccount"},"userAgent":"catalog/v0.0.0",)"
       R"("objectRef":{"resource":"customresourcedefinitions","name":"things.example.com","apiGroup":"apiextensions.k8s.io","apiVersion":"v1"},)"
       R"("responseStatus":{"metadata":{},"code":201},)"
       R"("responseObject":{"kind":"CustomResourceDefinition","apiVersion":"apiextensions.k8s.io/v1","metadata":{"name":"things.example.com","resourceVersion":"7"}},)"
       R"("requestReceivedTimestamp":"2026-11-21T10:00:01.000000Z","stageTimestamp":"2026-11-21T10:00:01.000000Z"})"});
  const std::string flags = " --domains olm --audit " + audit;
  RunResult with = Recon("shadow report " + executing + flags);
  EXPECT_EQ(with.code, 1) << with.err;
  EXPECT_THAT(with.out, HasSubstr("judged on the audit log (1 writes)"));
  EXPECT_THAT(with.out, HasSubstr("olm create CustomResourceDefinition things.example.com by catalog: no prediction"));
  // The same write, the option given on the command line instead.
  RunResult set = Recon("shadow report " + planning + flags + " --set olm.executePlans=true");
  EXPECT_THAT(set.out, HasSubstr("judged on the audit log (1 writes)"));
  // With the log's option alone, a CRD is no kind of the domain's.
  RunResult without = Recon("shadow report " + planning + flags);
  EXPECT_EQ(without.code, 0) << without.out << without.err;
  EXPECT_THAT(without.out, HasSubstr("judged on the audit log (0 writes)"));
}

TEST_F(ShadowCmdTest, BadInputAndUsage) {
  std::string bad = tmp_.Sub("bad.jsonl");
  WriteLines(
      bad, {R"({"time":"2026-11-21T10:00:00Z","type":"Timer","timer":"x"})", R"({"time":"2026-11-21T10:0)"});
  RunResult r = Recon("shadow report " + bad);
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("line 2"));
  EXPECT_EQ(Recon("shadow report " + kScenario + " -o yaml").code, 2);
  EXPECT_EQ(Recon("shadow report " + kScenario + " --shadow-window soon").code, 2);
  EXPECT_EQ(Recon("shadow report " + kScenario + " --shadow-manager nosuch=x").code, 2);
  EXPECT_EQ(Recon("shadow report").code, 2);
  EXPECT_EQ(Recon("shadow frobnicate").code, 2);
  EXPECT_EQ(Recon("shadow report --store " + tmp_.Sub("none")).code, 1);
  EXPECT_EQ(Recon("shadow --help").code, 0);
  EXPECT_EQ(Recon("explain " + kScenario + " --shadow-window 1m").code, 2);  // needs --shadow
  EXPECT_EQ(Recon("explain " + kScenario + " --shadow --shadow-manager nosuch=x").code, 2);
  EXPECT_EQ(Recon("agent --cluster sim --scenario " RECON_SOURCE_DIR
                  "/examples/scenarios/samples-removed.json --field-manager m")
                .code,
            2);  // the in-process sim records no field manager
}

}  // namespace
}  // namespace recon::cli
