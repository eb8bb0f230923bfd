// `recon agent --shadow --audit-log FILE` reads the audit log as the API
// server writes it: whole lines only, each once, a rotated file from its
// start, a malformed line named.
#include <filesystem>
#include <fstream>
#include <string>

#include "base/strings.h"
#include "cli/domains.h"
#include "cli/shadow_audit.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/run_recon.h"
#include "tests/store/test_util.h"

namespace recon::cli {
namespace {

using ::testing::HasSubstr;

// A status write and a refused delete, shaped as kube-apiserver 1.26 logs them.
constexpr char kStatusWrite[] =
    R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"c3","stage":"ResponseComplete","verb":"update","user":{"username":"u"},"userAgent":"cluster-samples-operator/v0.0.0","objectRef":{"resource":"configs","name":"cluster","apiGroup":"samples.operator.openshift.io","apiVersion":"v1","subresource":"status"},"responseStatus":{"metadata":{},"code":200},"responseObject":{"kind":"Config","apiVersion":"samples.operator.openshift.io/v1","metadata":{"name":"cluster","resourceVersion":"50"},"status":{"managementState":"Managed"}},"stageTimestamp":"2026-11-21T10:00:03Z"})";
constexpr char kDelete[] =
    R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"a1","stage":"ResponseComplete","verb":"delete","user":{"username":"u"},"userAgent":"cluster-samples-operator/v0.0.0","objectRef":{"resource":"imagestreams","namespace":"openshift","name":"ruby","apiGroup":"image.openshift.io","apiVersion":"v1"},"responseStatus":{"metadata":{},"status":"Failure","reason":"NotFound","code":404},"stageTimestamp":"2026-11-21T10:00:04Z"})";

void Append(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::app | std::ios::binary) << text;
}

TEST(AuditLogTail, WholeLinesOnceEachRotationFromTheStartAndMalformedLinesNamed) {
  store::testing::TempDir tmp;
  const std::string path = tmp.Sub("audit.log");
  auto engine = MakeEngine("samples", {});
  ASSERT_TRUE(engine.ok()) << engine.status();
  AuditLogTail tail(path, **engine);

  auto none = tail.ReadNew();  // the API server has not written it yet
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());

  const std::string del = kDelete;
  Append(path, std::string(kStatusWrite) + "\n" + del.substr(0, 100));  // the second line half written
  auto first = tail.ReadNew();
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_EQ(first->size(), 1u);
  EXPECT_EQ((*first)[0].id, "c3");
  EXPECT_TRUE((*first)[0].status);

  Append(path, del.substr(100) + "\n");
  auto second = tail.ReadNew();
  ASSERT_TRUE(second.ok()) << second.status();
  ASSERT_EQ(second->size(), 1u);
  EXPECT_EQ((*second)[0].id, "a1");
  EXPECT_EQ((*second)[0].code, 404);
  auto again = tail.ReadNew();  // nothing new: nothing read twice
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->empty());

  // Rotated: a shorter new file, read from its first line.
  std::filesystem::remove(path);
  Append(path, del + "\n");
  auto rotated = tail.ReadNew();
  ASSERT_TRUE(rotated.ok()) << rotated.status();
  ASSERT_EQ(rotated->size(), 1u);
  EXPECT_EQ((*rotated)[0].id, "a1");

  Append(path, "{\"kind\":\"Event\",\"stage\":\n");
  auto bad = tail.ReadNew();
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr(path + " (from line 2)"));
  Append(path, std::string(kStatusWrite) + "\n");  // what follows is read
  auto after = tail.ReadNew();
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->size(), 1u);
}

TEST(AuditLogTail, TheShadowAgentJudgesOnTheFileItFollows) {
  store::testing::TempDir tmp;
  const std::string log = tmp.Sub("audit.log");
  Append(log, std::string(kStatusWrite) + "\n");
  const std::string agent = recon::StrCat("agent --cluster sim --scenario ", RECON_SOURCE_DIR,
                                          "/examples/scenarios/samples-removed.json --durability nosync "
                                          "--until-converged --store ");
  auto run = testing::RunRecon(tmp, recon::StrCat(agent, tmp.Sub("s1"), " --shadow --audit-log ", log,
                                                  " --audit-user samples=u"));
  EXPECT_EQ(run.code, 0) << run.err;
  // The operator's status write (user u) was predicted by nothing recon
  // decided before the run ended: unpredicted, on the audit log's count.
  EXPECT_THAT(run.out, HasSubstr("shadow on the audit log (1 writes of " + log + "): "));
  EXPECT_THAT(run.out, HasSubstr("; 1 unpredicted writes"));
  // The flags' rules, checked before any store exists.
  auto no_shadow = testing::RunRecon(tmp, recon::StrCat(agent, tmp.Sub("s2"), " --audit-log ", log));
  EXPECT_EQ(no_shadow.code, 2);
  EXPECT_THAT(no_shadow.err, HasSubstr("--audit-log need --shadow"));
  auto no_log = testing::RunRecon(tmp, recon::StrCat(agent, tmp.Sub("s3"), " --shadow --audit-user samples=u"));
  EXPECT_EQ(no_log.code, 2);
  EXPECT_THAT(no_log.err, HasSubstr("--audit-user needs --audit-log"));
  auto bad_user = testing::RunRecon(tmp, recon::StrCat(agent, tmp.Sub("s4"), " --shadow --audit-log ", log,
                                                       " --audit-user nodomain=u"));
  EXPECT_EQ(bad_user.code, 2) << bad_user.err;
  EXPECT_FALSE(std::filesystem::exists(tmp.Sub("s2")));
  EXPECT_FALSE(std::filesystem::exists(tmp.Sub("s3")));
  EXPECT_FALSE(std::filesystem::exists(tmp.Sub("s4")));
}

}  // namespace
}  // namespace recon::cli
