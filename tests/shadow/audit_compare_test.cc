#include "shadow/audit_compare.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace recon::shadow {
namespace {

using engine::Json;

constexpr int64_t kSecond = 1'000'000'000;

Json J(const std::string& text) {
  auto j = engine::ParseJson(text);
  EXPECT_TRUE(j.ok()) << text;
  return j.ok() ? *j : Json();
}

PredictionRecord Predict(std::string verb, engine::ObjectKey object, int64_t t, std::string body,
                         std::string domain = "samples") {
  PredictionRecord p;
  p.finding.domain = std::move(domain);
  p.finding.verb = std::move(verb);
  p.finding.object = std::move(object);
  p.finding.time_ns = t * kSecond;
  p.finding.cause = static_cast<uint64_t>(t);
  p.finding.action = std::to_string(t) + ".0";
  p.body = J(body);
  return p;
}

AuditedWrite Write(std::string id, std::string verb, engine::ObjectKey object, int64_t t, int64_t code,
                   std::string body, std::string agent = "cluster-samples-operator/v0.0.0 (linux/amd64)") {
  AuditedWrite w;
  w.id = std::move(id);
  w.verb = std::move(verb);
  w.object = std::move(object);
  w.time_ns = t * kSecond;
  w.code = code;
  w.user_agent = std::move(agent);
  if (!body.empty()) {
    w.body = J(body);
    w.resource_version = engine::GetString(w.body, {"metadata", "resourceVersion"});
  }
  return w;
}

const engine::ObjectKey kConfig{"samples.operator.openshift.io", "Config", "", "cluster"};
const engine::ObjectKey kStream{"image.openshift.io", "ImageStream", "openshift", "ruby"};
const engine::ObjectKey kMap{"", "ConfigMap", "openshift", "x"};

AuditOptions SamplesAudit() {
  AuditOptions a;
  a.programs["samples"] = {"cluster-samples-operator"};
  a.kinds["samples"] = {{"samples.operator.openshift.io", "Config"}, {"image.openshift.io", "ImageStream"},
                        {"", "ConfigMap"}};
  return a;
}

std::vector<int64_t> Times(int64_t last) {
  std::vector<int64_t> t;
  for (int64_t s = 1; s <= last; ++s) t.push_back(s * kSecond);
  return t;
}

TEST(ShadowAudit, NoOpWritesRefusedDeletesAndOtherClientsAreSeen) {
  std::vector<PredictionRecord> predictions = {
      Predict("updateStatus", kConfig, 1,
              R"({"kind":"Config","status":{"conditions":[{"type":"ImageChangesInProgress","status":"False"}]}})"),
      Predict("update", kMap, 1, R"({"kind":"ConfigMap","data":{"a":"2"}})"),
  };
  std::vector<AuditedWrite> writes = {
      Write("s1", "update", kConfig, 2, 200,
            R"({"kind":"Config","metadata":{"resourceVersion":"7"},"status":{"conditions":[{"type":"ImageChangesInProgress","status":"False"}]}})"),
      Write("m1", "patch", kMap, 2, 200, R"({"kind":"ConfigMap","metadata":{"resourceVersion":"9"},"data":{"a":"1"}})"),
      Write("m2", "patch", kMap, 3, 200, R"({"kind":"ConfigMap","metadata":{"resourceVersion":"9"},"data":{"a":"1"}})"),
      Write("d1", "delete", kStream, 4, 404, ""),
      Write("k1", "patch", kMap, 5, 200, R"({"kind":"ConfigMap","metadata":{"resourceVersion":"10"}})", "kubectl/v1.26"),
  };
  writes[0].status = true;
  Options o;
  auto findings = CompareAudit(predictions, writes, Times(300), o, SamplesAudit());
  ASSERT_EQ(findings.size(), 4u);
  EXPECT_EQ(findings[0].result, Result::kMatch);
  EXPECT_EQ(findings[0].audit_id, "s1");
  EXPECT_EQ(findings[0].decided, 2u);  // the last event at or before the write
  EXPECT_EQ(findings[1].result, Result::kDiffers);  // the ConfigMap: paired with the first patch
  EXPECT_EQ(findings[1].audit_id, "m1");
  ASSERT_EQ(findings[1].diffs.size(), 1u);
  EXPECT_EQ(findings[1].diffs[0], (FieldDiff{"data.a", "\"2\"", "\"1\""}));
  EXPECT_EQ(findings[2].result, Result::kUnpredicted);
  EXPECT_EQ(findings[2].audit_id, "m2");
  EXPECT_EQ(findings[2].detail, "no-op");
  EXPECT_EQ(findings[2].verb, "patch");
  EXPECT_EQ(findings[2].manager, "cluster-samples-operator");
  EXPECT_EQ(findings[3].result, Result::kUnpredicted);
  EXPECT_EQ(findings[3].verb, "delete");
  EXPECT_EQ(findings[3].detail, "HTTP 404");
  // kubectl's patch is nobody's domain.
}

TEST(ShadowAudit, MissedPendingAndSupersededAndUserNames) {
  std::vector<PredictionRecord> predictions = {
      Predict("delete", kStream, 1, "{}"),
      Predict("update", kMap, 10, R"({"kind":"ConfigMap","data":{"a":"1"}})"),
      Predict("update", kMap, 11, R"({"kind":"ConfigMap","data":{"a":"2"}})"),
      Predict("update", kMap, 290, R"({"kind":"ConfigMap","data":{"a":"3"}})"),
  };
  AuditedWrite w = Write("m1", "update", kMap, 12, 200,
                         R"({"kind":"ConfigMap","metadata":{"resourceVersion":"3"},"data":{"a":"2"}})", "");
  w.user = "system:serviceaccount:openshift-cluster-samples-operator:cluster-samples-operator";
  AuditOptions audit = SamplesAudit();
  audit.users["samples"] = {w.user};
  auto findings = CompareAudit(predictions, {w}, Times(300), Options{}, audit);
  ASSERT_EQ(findings.size(), 4u);
  EXPECT_EQ(findings[0].result, Result::kMissed);
  EXPECT_EQ(findings[1].result, Result::kSuperseded);
  EXPECT_EQ(findings[2].result, Result::kMatch);
  EXPECT_EQ(findings[3].result, Result::kPending);  // its window passes the end of both logs
}

TEST(ShadowAudit, APredictedDeletePairsWithTheOneThatLandedNotAnEarlier404) {
  // Upstream deletes a skipped stream's tracking ConfigMap at each Config
  // event whether it exists or not: a 404, then the real delete.
  std::vector<PredictionRecord> predictions = {Predict("delete", kMap, 3, "{}")};
  std::vector<AuditedWrite> writes = {Write("d404", "delete", kMap, 2, 404, ""),
                                      Write("d200", "delete", kMap, 3, 200, "")};
  auto findings = CompareAudit(predictions, writes, Times(300), Options{}, SamplesAudit());
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].result, Result::kUnpredicted);
  EXPECT_EQ(findings[0].audit_id, "d404");
  EXPECT_EQ(findings[0].detail, "HTTP 404");
  EXPECT_EQ(findings[1].result, Result::kMatch);
  EXPECT_EQ(findings[1].audit_id, "d200");
}

TEST(ShadowAudit, ARepeatedPredictionSharesTheWriteAnEarlierOneClaimed) {
  // A shadow never sends its write, so it predicts the same state at each
  // event until the operator's write shows: three predictions, two writes
  // of that state. The third is satisfied by the write at its cause, not
  // paired with one sent before it.
  const std::string status =
      R"({"kind":"Config","status":{"conditions":[{"type":"ImageChangesInProgress","status":"False"}]}})";
  std::vector<PredictionRecord> predictions = {Predict("updateStatus", kConfig, 5, status),
                                               Predict("updateStatus", kConfig, 6, status),
                                               Predict("updateStatus", kConfig, 7, status)};
  auto written = [&](std::string id, int64_t t, std::string rv, std::string st) {
    AuditedWrite w = Write(std::move(id), "update", kConfig, t, 200,
                           R"({"kind":"Config","metadata":{"resourceVersion":")" + rv + R"("},"status":{"conditions":[{"type":"ImageChangesInProgress","status":")" + st + R"("}]}})");
    w.status = true;
    return w;
  };
  std::vector<AuditedWrite> writes = {written("early", 4, "7", "True"), written("w1", 6, "8", "False"),
                                      written("w2", 7, "9", "False")};
  auto findings = CompareAudit(predictions, writes, Times(300), Options{}, SamplesAudit());
  int match = 0;
  for (const auto& f : findings) {
    if (f.result == Result::kMatch) ++match;
    EXPECT_NE(f.result, Result::kDiffers) << f.action;
  }
  EXPECT_EQ(match, 3);
}

TEST(ShadowAudit, AGeneratedNameIsPairedByContentAndFollowed) {
  const engine::ObjectKey ours{"operators.coreos.com", "InstallPlan", "ops", "install-bcdfg"};
  const engine::ObjectKey theirs{"operators.coreos.com", "InstallPlan", "ops", "install-q8x2z"};
  std::vector<PredictionRecord> predictions = {
      Predict("create", ours, 1,
              R"({"kind":"InstallPlan","metadata":{"namespace":"ops","name":"install-bcdfg"},"spec":{"clusterServiceVersionNames":["a.v1"],"approval":"Manual","approved":false}})",
              "olm"),
      Predict("updateStatus", ours, 2, R"({"kind":"InstallPlan","status":{"phase":"RequiresApproval"}})", "olm"),
  };
  AuditedWrite create = Write(
      "c1", "create", theirs, 1, 201,
      R"({"kind":"InstallPlan","metadata":{"namespace":"ops","name":"install-q8x2z","resourceVersion":"5"},"spec":{"clusterServiceVersionNames":["a.v1"],"approval":"Manual","approved":false}})",
      "catalog/v0.0.0");
  AuditedWrite status = Write("c2", "update", theirs, 3, 200,
                              R"({"kind":"InstallPlan","metadata":{"resourceVersion":"6"},"status":{"phase":"RequiresApproval"}})",
                              "catalog/v0.0.0");
  status.status = true;
  AuditOptions audit;
  audit.programs["olm"] = {"catalog", "olm"};
  audit.kinds["olm"] = {{"operators.coreos.com", "InstallPlan"}};
  auto findings = CompareAudit(predictions, {create, status}, Times(300), Options{}, audit);
  ASSERT_EQ(findings.size(), 2u);
  for (const auto& f : findings) {
    EXPECT_EQ(f.result, Result::kMatch) << f.verb;
    EXPECT_EQ(f.object.name, "install-q8x2z");
    EXPECT_EQ(f.predicted_name, "install-bcdfg");
  }
}

}  // namespace
}  // namespace recon::shadow
