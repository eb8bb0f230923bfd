#include "shadow/writers.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace recon::shadow {
namespace {

engine::Json Object(const std::string& managed_fields) {
  auto j = engine::ParseJson(R"({"metadata":{"managedFields":)" + managed_fields + "}}");
  EXPECT_TRUE(j.ok()) << managed_fields;
  return j.ok() ? *j : engine::Json();
}

constexpr char kOperatorOwnsSpec[] = R"([
  {"manager":"cluster-samples-operator","operation":"Update","apiVersion":"samples.operator.openshift.io/v1",
   "time":"2026-11-21T10:00:00Z","fieldsType":"FieldsV1",
   "fieldsV1":{"f:spec":{"f:managementState":{},"f:architectures":{}}}}])";

TEST(ShadowWriters, AnEntryThatOnlyLostFieldsToAnotherManagerWasNotWritten) {
  // `kubectl patch` of spec.managementState, as kube-apiserver records it:
  // the field moves to kubectl's new entry, the operator's entry keeps its
  // time and loses the field.
  auto before = Object(kOperatorOwnsSpec);
  auto after = Object(R"([
    {"manager":"cluster-samples-operator","operation":"Update","apiVersion":"samples.operator.openshift.io/v1",
     "time":"2026-11-21T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:architectures":{}}}},
    {"manager":"kubectl-patch","operation":"Update","apiVersion":"samples.operator.openshift.io/v1",
     "time":"2026-11-21T10:05:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:managementState":{}}}}])");
  EXPECT_EQ(Writers(&before, after), std::vector<std::string>{"kubectl-patch"});
}

TEST(ShadowWriters, NewFieldsOrANewTimeAreAWriteTheSameEntryIsNot) {
  auto before = Object(kOperatorOwnsSpec);
  EXPECT_TRUE(Writers(&before, before).empty());  // a resync
  // Within the same second, a write that adds a field.
  auto more = Object(R"([
    {"manager":"cluster-samples-operator","operation":"Update","apiVersion":"samples.operator.openshift.io/v1",
     "time":"2026-11-21T10:00:00Z","fieldsType":"FieldsV1",
     "fieldsV1":{"f:spec":{"f:managementState":{},"f:architectures":{},"f:skippedTemplates":{}}}}])");
  EXPECT_EQ(Writers(&before, more), std::vector<std::string>{"cluster-samples-operator"});
  // A later write of fewer fields.
  auto later = Object(R"([
    {"manager":"cluster-samples-operator","operation":"Update","apiVersion":"samples.operator.openshift.io/v1",
     "time":"2026-11-21T10:09:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:architectures":{}}}}])");
  EXPECT_EQ(Writers(&before, later), std::vector<std::string>{"cluster-samples-operator"});
  // The first version the log shows: every manager it lists.
  EXPECT_EQ(Writers(nullptr, before), std::vector<std::string>{"cluster-samples-operator"});
}

}  // namespace
}  // namespace recon::shadow
