#include "shadow/field_diff.h"

#include <gtest/gtest.h>

namespace recon::shadow {
namespace {

engine::Json J(const char* text) {
  auto j = engine::ParseJson(text);
  EXPECT_TRUE(j.ok()) << text;
  return j.ok() ? *j : engine::Json();
}

TEST(ShadowFieldDiff, SpecIsASubsetArraysWholeMetadataOnlyLabelsAndAnnotations) {
  auto predicted = J(R"({"apiVersion":"v1","kind":"X","metadata":{"name":"a","resourceVersion":"1",
    "labels":{"app":"x"},"annotations":{"openshift.io/by":"recon"}},
    "spec":{"tags":[{"name":"latest"}],"n":1,"gone":null},"status":{"phase":"ignored"}})");
  auto observed = J(R"({"apiVersion":"v1","kind":"X","metadata":{"name":"a","resourceVersion":"7",
    "labels":{"app":"x","extra":"y"},"annotations":{"openshift.io/by":"them"}},
    "spec":{"tags":[{"name":"latest"},{"name":"1.0"}],"n":1,"more":true},"status":{"phase":"other"}})");
  auto diffs = DiffSpec(predicted, observed);
  ASSERT_EQ(diffs.size(), 2u);
  EXPECT_EQ(diffs[0],
            (FieldDiff{"spec.tags", R"([{"name":"latest"}])", R"([{"name":"latest"},{"name":"1.0"}])"}));
  EXPECT_EQ(diffs[1], (FieldDiff{R"(metadata.annotations["openshift.io/by"])", "\"recon\"", "\"them\""}));
}

TEST(ShadowFieldDiff, AbsentFieldsAndObjectsAreNamed) {
  auto diffs = DiffSpec(J(R"({"spec":{"a":{"b":1}}})"), J(R"({"spec":{}})"));
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0], (FieldDiff{"spec.a", R"({"b":1})", std::string(kAbsent)}));
  EXPECT_TRUE(DiffSpec(J(R"({"spec":{"a":null}})"), J(R"({"spec":{}})")).empty());
}

TEST(ShadowFieldDiff, StatusConditionsByTypeTimestampsIgnored) {
  auto predicted = J(R"({"status":{"observedGeneration":2,"lastSyncTime":"2026-11-21T10:00:00Z",
    "conditions":[{"type":"Ready","status":"True","reason":"Done","lastTransitionTime":"2026-11-21T10:00:00Z"},
                  {"type":"Degraded","status":"False"}]}})");
  auto observed = J(R"({"status":{"observedGeneration":2,"lastSyncTime":"2026-11-21T11:00:00Z",
    "conditions":[{"type":"Ready","status":"True","reason":"Done","lastTransitionTime":"2026-11-21T10:30:00Z"}]}})");
  auto diffs = DiffStatus(predicted, observed);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0], (FieldDiff{"status.conditions[type=Degraded]",
                                 R"({"type":"Degraded","status":"False"})", std::string(kAbsent)}));
}

}  // namespace
}  // namespace recon::shadow
