// adapters/importers/audit_writes: every write request of an audit log,
// answered or refused, with who sent it.
#include "adapters/importers/audit_writes.h"

#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/adapters/importers/declared_kinds.h"

namespace recon::adapters::importers {
namespace {

using ::testing::HasSubstr;
using testing::Declared;

// Lines shaped as kube-apiserver 1.26 writes them (fields trimmed).
constexpr char kLog[] =
    // A patch of a ConfigMap that changed nothing: answered 200, same resourceVersion.
    R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"b2","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/openshift/configmaps/x","verb":"patch","user":{"username":"system:serviceaccount:openshift-cluster-samples-operator:cluster-samples-operator"},"userAgent":"cluster-samples-operator/v0.0.0 (linux/amd64) kubernetes/$Format","objectRef":{"resource":"configmaps","namespace":"openshift","name":"x","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestObject":{"data":{"a":"1"}},"responseObject":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x","namespace":"openshift","resourceVersion":"41"},"data":{"a":"1"}},"stageTimestamp":"2026-11-21T10:00:02.000000Z"})"
    "\n"
    // The same request at an earlier stage: not the answer.
    R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"b2","stage":"RequestReceived","verb":"patch","objectRef":{"resource":"configmaps","namespace":"openshift","name":"x"},"stageTimestamp":"2026-11-21T10:00:01.000000Z"})"
    "\n"
    // A delete answered 404: no object either way; the kind from the plural.
    R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"a1","stage":"ResponseComplete","verb":"delete","user":{"username":"u"},"userAgent":"cluster-samples-operator/v0.0.0","objectRef":{"resource":"imagestreams","namespace":"openshift","name":"ruby","apiGroup":"image.openshift.io","apiVersion":"v1"},"responseStatus":{"metadata":{},"status":"Failure","reason":"NotFound","code":404},"responseObject":{"kind":"Status","apiVersion":"v1","status":"Failure","code":404},"stageTimestamp":"2026-11-21T10:00:01.500000Z"})"
    "\n"
    // A status write.
    R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"c3","stage":"ResponseComplete","verb":"update","user":{"username":"u"},"userAgent":"cluster-samples-operator/v0.0.0","objectRef":{"resource":"configs","name":"cluster","apiGroup":"samples.operator.openshift.io","apiVersion":"v1","subresource":"status"},"responseStatus":{"metadata":{},"code":200},"responseObject":{"kind":"Config","apiVersion":"samples.operator.openshift.io/v1","metadata":{"name":"cluster","resourceVersion":"50"},"status":{"managementState":"Managed"}},"stageTimestamp":"2026-11-21T10:00:03Z"})"
    "\n"
    // A read, a scale write, a Lease (no domain declares it).
    R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"d4","stage":"ResponseComplete","verb":"get","objectRef":{"resource":"configmaps","namespace":"openshift","name":"x"},"stageTimestamp":"2026-11-21T10:00:04Z"})"
    "\n"
    R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"e5","stage":"ResponseComplete","verb":"update","objectRef":{"resource":"leases","namespace":"openshift","name":"l","apiGroup":"coordination.k8s.io"},"responseStatus":{"code":200},"stageTimestamp":"2026-11-21T10:00:04Z"})"
    "\n";

TEST(AuditWrites, EveryWriteWithItsAnswerAndSenderInTimeOrder) {
  std::istringstream in(kLog);
  auto decoded = DecodeAuditWrites("audit.log", in, Declared());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_EQ(decoded->writes.size(), 3u);
  const AuditWrite& del = decoded->writes[0];
  EXPECT_EQ(del.audit_id, "a1");
  EXPECT_EQ(del.verb, "delete");
  EXPECT_EQ(del.kind, "ImageStream");
  EXPECT_EQ(del.code, 404);
  EXPECT_TRUE(del.body.is_null());
  const AuditWrite& patch = decoded->writes[1];
  EXPECT_EQ(patch.kind, "ConfigMap");
  EXPECT_EQ(patch.resource_version, "41");
  EXPECT_EQ(patch.user_agent.substr(0, 25), "cluster-samples-operator/");
  EXPECT_EQ(engine::GetString(patch.body, {"data", "a"}), "1");
  const AuditWrite& status = decoded->writes[2];
  EXPECT_TRUE(status.status);
  EXPECT_EQ(status.kind, "Config");
  EXPECT_EQ(status.ns, "");
  EXPECT_EQ(decoded->read, 6u);
  EXPECT_EQ(decoded->skipped.size(), 3u);  // stage, read, undeclared kind
}

TEST(AuditWrites, AMalformedLineNamesTheFileLineAndField) {
  std::istringstream in(std::string(kLog) + "{\"kind\":\"Event\",\"stage\":\"ResponseComplete\",\"verb\":\"create\"}\n");
  auto decoded = DecodeAuditWrites("audit.log", in, Declared());
  ASSERT_FALSE(decoded.ok());
  EXPECT_THAT(decoded.status().message(), HasSubstr("audit.log:7: \"objectRef\": missing"));
  std::istringstream bad("not json\n");
  auto malformed = DecodeAuditWrites("a.log", bad, Declared());
  ASSERT_FALSE(malformed.ok());
  EXPECT_THAT(malformed.status().message(), HasSubstr("a.log:1: malformed JSON"));
}

}  // namespace
}  // namespace recon::adapters::importers
