// Provided-API bookkeeping between OperatorGroups (reference olm-operator.md
// §B.1.4; domains/olm/csv/api_intersection.h): target sets, when they meet,
// the four outcomes, and what each makes a CSV's sync do (its gate in
// csv/transition.h). The reducer's side: scenario csv_api_conflict.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "domains/olm/csv/api_intersection.h"
#include "domains/olm/csv/transition.h"

namespace recon::olm {
namespace {

using engine::Json;

Json Group(const std::string& ns, Json status_namespaces) {
  return {{"metadata", {{"name", "og"}, {"namespace", ns}}}, {"status", {{"namespaces", status_namespaces}}}};
}

TEST(CsvApiIntersection, TargetSetsAndWhenTheyMeet) {
  const GroupTargets all = TargetsOfGroup(Group("a", Json::array({""})));
  EXPECT_TRUE(all.all);
  const GroupTargets b = TargetsOfGroup(Group("b", Json::array({"b", "x"})));
  EXPECT_EQ(b.namespaces, (std::set<std::string>{"b", "x"}));
  // Its own namespace counts, status or not.
  const GroupTargets c = TargetsOfGroup(Group("c", Json::array({"x"})));
  EXPECT_EQ(c.namespaces, (std::set<std::string>{"c", "x"}));
  const GroupTargets d = TargetsOfGroup(Json{{"metadata", {{"name", "og"}, {"namespace", "d"}}}});
  EXPECT_EQ(d.namespaces, (std::set<std::string>{"d"}));
  EXPECT_TRUE(Intersect(all, b));
  EXPECT_TRUE(Intersect(b, all));
  EXPECT_TRUE(Intersect(b, c));  // both target x
  EXPECT_FALSE(Intersect(c, d));
  EXPECT_FALSE(Intersect(all, GroupTargets{}));
}

TEST(CsvApiIntersection, TheFourOutcomes) {
  const std::set<std::string> add = {"Widget.v1.example.com"};
  EXPECT_EQ(ReconcileApis(add, add, {}), ApiReconcile::kNoConflict);
  EXPECT_EQ(ReconcileApis(add, {}, {"Gadget.v1.example.com"}), ApiReconcile::kAddApis);
  EXPECT_EQ(ReconcileApis(add, add, add), ApiReconcile::kRemoveApis);
  EXPECT_EQ(ReconcileApis(add, {}, add), ApiReconcile::kConflict);
}

CsvSyncInputs Gated(ApiReconcile apis, bool static_group = false) {
  CsvSyncInputs in;
  in.groups = 1;
  in.annotated = true;
  in.apis = apis;
  in.static_group = static_group;
  in.deployments.push_back(std::nullopt);
  return in;
}

Json Csv(const std::string& phase, const std::string& reason) {
  return {{"metadata", {{"name", "w.v1"}, {"namespace", "b"}}},
          {"spec", {{"install", {{"strategy", "deployment"}}}}},
          {"status", {{"phase", phase}, {"reason", reason}}}};
}

TEST(CsvApiIntersection, WhatEachOutcomeMakesTheSyncDo) {
  CsvStep s = NextCsvStep(Csv("Succeeded", "InstallSucceeded"), Gated(ApiReconcile::kConflict));
  ASSERT_TRUE(s.phase);
  EXPECT_EQ(s.phase->phase, "Failed");
  EXPECT_EQ(s.phase->reason, "InterOperatorGroupOwnerConflict");
  EXPECT_EQ(s.phase->message, "intersecting operatorgroups provide the same apis");
  EXPECT_TRUE(s.delete_deployments);
  // Failed for it already: no rewrite, no deletion.
  s = NextCsvStep(Csv("Failed", "InterOperatorGroupOwnerConflict"), Gated(ApiReconcile::kConflict));
  EXPECT_FALSE(s.phase);
  EXPECT_FALSE(s.delete_deployments);
  // Its group records APIs another group has: taken out, the CSV stays.
  s = NextCsvStep(Csv("Succeeded", "InstallSucceeded"), Gated(ApiReconcile::kRemoveApis));
  EXPECT_FALSE(s.phase);
  EXPECT_TRUE(s.remove_apis);
  // A static group cannot take them in or give them up.
  for (ApiReconcile r : {ApiReconcile::kAddApis, ApiReconcile::kRemoveApis}) {
    s = NextCsvStep(Csv("Pending", "RequirementsNotMet"), Gated(r, true));
    ASSERT_TRUE(s.phase);
    EXPECT_EQ(s.phase->reason, "CannotModifyStaticOperatorGroupProvidedAPIs");
    EXPECT_EQ(s.phase->message, "static provided api operatorgroup cannot be modified by these apis");
    EXPECT_TRUE(s.delete_deployments);
    EXPECT_FALSE(s.remove_apis);
  }
  // No conflict any more: a CSV that failed for one starts over.
  s = NextCsvStep(Csv("Failed", "InterOperatorGroupOwnerConflict"), Gated(ApiReconcile::kAddApis));
  ASSERT_TRUE(s.phase);
  EXPECT_EQ(s.phase->phase + "/" + s.phase->reason + ": " + s.phase->message,
            "Pending/RequirementsUnknown: OperatorGroup no longer intersecting with conflicting owner");
  s = NextCsvStep(Csv("Failed", "CannotModifyStaticOperatorGroupProvidedAPIs"),
                  Gated(ApiReconcile::kNoConflict));
  ASSERT_TRUE(s.phase);
  EXPECT_EQ(s.phase->message, "static OperatorGroup and intersecting groups now support providedAPIs");
}

}  // namespace
}  // namespace recon::olm
