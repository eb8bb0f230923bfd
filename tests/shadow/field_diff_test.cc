#include "shadow/field_diff.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

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

// An InstallPlan step's manifest is an object serialized by the operator's
// client: its field order and Go zero values are not differences, a value
// that differs inside is, named by its path into the object.
TEST(ShadowFieldDiff, AStringHoldingAnObjectComparesAsTheObject) {
  auto predicted = J(R"({"status":{"plan":[{"resource":{"manifest":"{\"apiVersion\":\"v1\",\"kind\":\"CSV\",\"metadata\":{\"name\":\"a\"},\"spec\":{\"n\":1}}"}}]}})");
  auto go = J(R"({"status":{"plan":[{"resource":{"manifest":"{\"kind\":\"CSV\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\",\"creationTimestamp\":null},\"spec\":{\"n\":1,\"cleanup\":{}}}"}}]}})");
  EXPECT_TRUE(DiffStatus(predicted, go).empty());
  auto other = J(R"({"status":{"plan":[{"resource":{"manifest":"{\"kind\":\"CSV\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\"},\"spec\":{\"n\":2}}"}}]}})");
  auto diffs = DiffStatus(predicted, other);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0], (FieldDiff{"status.plan[0].resource.manifest.spec.n", "1", "2"}));
  // A string that is not an object is compared as a string.
  EXPECT_EQ(DiffStatus(J(R"({"status":{"m":"{not json"}})"), J(R"({"status":{"m":"{not json "}})")).size(), 1u);
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

// A status write replaces the status: a condition it leaves out is one it
// removes, so an object that still has it does not hold the prediction
// (a Subscription's InstallPlanPending removed once its plan is Complete).
TEST(ShadowFieldDiff, AConditionThePredictionLeavesOutMustBeGone) {
  auto predicted = J(R"({"status":{"conditions":[{"type":"Healthy","status":"True"}]}})");
  auto observed = J(R"({"status":{"conditions":[{"type":"Healthy","status":"True"},
    {"type":"InstallPlanPending","status":"True","reason":"Installing","message":"m"}]}})");
  auto diffs = DiffStatus(predicted, observed);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0], (FieldDiff{"status.conditions[type=InstallPlanPending]", std::string(kAbsent),
                                 R"({"type":"InstallPlanPending","status":"True","reason":"Installing"})"}));
  EXPECT_TRUE(DiffStatus(predicted, J(R"({"status":{"conditions":[{"type":"Healthy","status":"True"}]}})")).empty());
}

TEST(ShadowFieldDiff, TimesUidsAndResourceVersionsAreNeverDifferencesWhateverTheirKey) {
  // OLM's Subscription status: lastUpdated and catalogHealth[].lastUpdated
  // are times without a *Time key; installPlanRef carries a uid and a
  // resourceVersion only the server knows.
  auto predicted = J(R"({"kind":"Subscription","status":{"lastUpdated":"2026-11-21T10:00:00Z",
    "catalogHealth":[{"healthy":true,"lastUpdated":"2026-11-21T10:00:00Z"}],
    "installPlanRef":{"name":"p","uid":"recon-uid","resourceVersion":"1"}},
    "spec":{"startedAt":"2026-11-21T10:00:00.5+01:00","note":"2026-11-21"}})");
  auto observed = J(R"({"kind":"Subscription","status":{"lastUpdated":"2026-11-21T10:03:07Z",
    "catalogHealth":[{"healthy":true,"lastUpdated":"2026-11-21T10:03:01Z"}],
    "installPlanRef":{"name":"p","uid":"8f0c","resourceVersion":"4711"}},
    "spec":{"startedAt":"2026-11-21T11:00:00Z","note":"2026-11-22"}})");
  EXPECT_TRUE(DiffStatus(predicted, observed).empty());
  auto diffs = DiffSpec(predicted, observed);
  ASSERT_EQ(diffs.size(), 1u);  // a date alone is no RFC 3339 time
  EXPECT_EQ(diffs[0], (FieldDiff{"spec.note", "\"2026-11-21\"", "\"2026-11-22\""}));
  EXPECT_TRUE(IsRfc3339Time("2026-11-21T10:00:00.123456789Z"));
  EXPECT_FALSE(IsRfc3339Time("2026-11-21 10:00:00"));
  EXPECT_FALSE(IsRfc3339Time("v2026-11-21T10:00:00Z"));
}

TEST(ShadowFieldDiff, AConditionIsComparedWholeAReasonOrMessageLeftOutMustBeGoneToo) {
  auto predicted = J(R"({"kind":"Config","status":{"conditions":[
    {"type":"ImportImageErrorsExist","status":"False"},
    {"type":"ImageChangesInProgress","status":"False","reason":"","message":"done"}]}})");
  auto stale = J(R"({"kind":"Config","status":{"conditions":[
    {"type":"ImportImageErrorsExist","status":"False","reason":"ruby","message":"import failed"},
    {"type":"ImageChangesInProgress","status":"False","message":"done"}]}})");
  auto diffs = DiffStatus(predicted, stale);
  ASSERT_EQ(diffs.size(), 2u);
  EXPECT_EQ(diffs[0], (FieldDiff{"status.conditions[type=ImportImageErrorsExist].reason", "(absent)", "\"ruby\""}));
  EXPECT_EQ(diffs[1],
            (FieldDiff{"status.conditions[type=ImportImageErrorsExist].message", "(absent)", "\"import failed\""}));
  // A write that changes only a message is a difference too ...
  auto other_message = J(R"({"kind":"Config","status":{"conditions":[
    {"type":"ImportImageErrorsExist","status":"False"},
    {"type":"ImageChangesInProgress","status":"False","reason":"","message":"still going"}]}})");
  diffs = DiffStatus(predicted, other_message);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].path, "status.conditions[type=ImageChangesInProgress].message");
  // ... unless the domain marks that condition's message free text.
  for (const char* free : {"*", "Config/*", "Config/ImageChangesInProgress"}) {
    DiffRules rules;
    rules.free_text = {free};
    EXPECT_TRUE(DiffStatus(predicted, other_message, rules).empty()) << free;
  }
  DiffRules other_kind;
  other_kind.free_text = {"Subscription/*"};
  EXPECT_EQ(DiffStatus(predicted, other_message, other_kind).size(), 1u);
}

TEST(ShadowFieldDiff, AGeneratedNameHoldsForItsPairOrBeforeThatAnyNameOfItsPrefix) {
  std::map<std::string, std::string> generated = {{"install-bcdfg", "install-"}};
  std::map<std::string, std::string> aliases;
  DiffRules rules;
  rules.generated = &generated;
  rules.aliases = &aliases;
  auto predicted = J(R"({"kind":"Subscription","status":{"installPlanRef":{"name":"install-bcdfg"}}})");
  auto observed = J(R"({"kind":"Subscription","status":{"installPlanRef":{"name":"install-q8x2z"}}})");
  EXPECT_EQ(DiffStatus(predicted, observed).size(), 1u);  // without the rules: a difference
  EXPECT_TRUE(DiffStatus(predicted, observed, rules).empty());
  aliases["install-bcdfg"] = "install-zzzzz";  // paired with another plan
  EXPECT_EQ(DiffStatus(predicted, observed, rules).size(), 1u);
  aliases["install-bcdfg"] = "install-q8x2z";
  EXPECT_TRUE(DiffStatus(predicted, observed, rules).empty());
  auto not_a_plan = J(R"({"kind":"Subscription","status":{"installPlanRef":{"name":"other"}}})");
  aliases.clear();
  EXPECT_EQ(DiffStatus(predicted, not_a_plan, rules).size(), 1u);
}

TEST(ShadowFieldDiff, AnUnorderedListIsComparedAsAMultisetOnlyForItsKindAndPath) {
  // Upstream builds OperatorGroup status.namespaces from a Go map: its
  // order is not a behaviour.
  auto predicted = J(R"({"kind":"OperatorGroup","status":{"namespaces":["a","b","c"]}})");
  auto shuffled = J(R"({"kind":"OperatorGroup","status":{"namespaces":["c","a","b"]}})");
  auto other = J(R"({"kind":"OperatorGroup","status":{"namespaces":["c","a","a"]}})");
  // Ordered by default: element by element, each position differs.
  EXPECT_EQ(DiffStatus(predicted, shuffled).size(), 3u);
  DiffRules rules;
  rules.unordered = {"OperatorGroup/status.namespaces"};
  EXPECT_TRUE(DiffStatus(predicted, shuffled, rules).empty());
  auto diffs = DiffStatus(predicted, other, rules);  // a multiset: a repeat is no match
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].path, "status.namespaces");
  DiffRules other_kind;
  other_kind.unordered = {"Subscription/status.namespaces"};
  EXPECT_EQ(DiffStatus(predicted, shuffled, other_kind).size(), 3u);
}

// A CSV's status.conditions is a history of phases, with no `type`: it is
// compared entry by entry, times aside (keyed by an empty type, every
// entry was compared with the first).
TEST(ShadowFieldDiff, ConditionsWithoutATypeAreAHistoryComparedByPosition) {
  auto predicted = J(R"({"kind":"ClusterServiceVersion","status":{"conditions":[
      {"phase":"Pending","reason":"RequirementsUnknown","lastUpdateTime":"2026-12-06T21:42:01Z"},
      {"phase":"InstallReady","reason":"AllRequirementsMet","lastUpdateTime":"2026-12-06T21:42:02Z"}]}})");
  auto same = J(R"({"kind":"ClusterServiceVersion","status":{"conditions":[
      {"phase":"Pending","reason":"RequirementsUnknown","lastUpdateTime":"2026-12-06T21:42:03Z"},
      {"phase":"InstallReady","reason":"AllRequirementsMet","lastUpdateTime":"2026-12-06T21:42:04Z"}]}})");
  EXPECT_TRUE(DiffStatus(predicted, same).empty());
  auto other = same;
  other["status"]["conditions"][1]["reason"] = "InstallWaiting";
  auto diffs = DiffStatus(predicted, other);
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].path, "status.conditions[1].reason");
}

// A value recon cannot reproduce (upstream's hash of Go's dump) is compared
// for presence only, for its kind and path.
TEST(ShadowFieldDiff, AnOpaqueValueIsComparedForPresenceOnly) {
  auto predicted = J(R"({"kind":"Deployment","metadata":{"labels":{"olm.deployment-spec-hash":"9866886b","app":"a"}}})");
  auto theirs = J(R"({"kind":"Deployment","metadata":{"labels":{"olm.deployment-spec-hash":"75f48dc767","app":"a"}}})");
  auto none = J(R"({"kind":"Deployment","metadata":{"labels":{"app":"a"}}})");
  EXPECT_EQ(DiffSpec(predicted, theirs).size(), 1u);
  DiffRules rules;
  rules.opaque = {R"(Deployment/metadata.labels["olm.deployment-spec-hash"])"};
  EXPECT_TRUE(DiffSpec(predicted, theirs, rules).empty());
  EXPECT_EQ(DiffSpec(predicted, none, rules).size(), 1u);
}

}  // namespace
}  // namespace recon::shadow
