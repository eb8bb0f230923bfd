// OperatorConditions (domains/olm/csv/operator_conditions.h; reference
// olm-operator.md §B.6): the generator's object per CSV and what of an
// existing one it touches, the reconciler's Role, RoleBinding, Deployment
// env and status (Kubernetes' SetStatusCondition), and the upgrade gate
// with upstream's texts.
#include <gtest/gtest.h>

#include "domains/olm/csv/operator_conditions.h"

namespace recon::olm {
namespace {

using engine::Json;

Json Csv() {
  return Json::parse(R"({
    "apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
    "metadata": {"name": "etcd.v2", "namespace": "ops", "uid": "u-csv"},
    "spec": {"install": {"strategy": "deployment", "spec": {
      "clusterPermissions": [{"serviceAccountName": "etcd-operator", "rules": []}],
      "permissions": [{"serviceAccountName": "etcd-operator", "rules": []},
                      {"serviceAccountName": "etcd-backup", "rules": []}],
      "deployments": [{"name": "etcd-operator", "spec": {}}, {"name": "etcd-backup", "spec": {}}]}}}})");
}

TEST(OperatorConditions, OnePerCsvControlledByItWithItsAccountsAndDeployments) {
  Json oc = OperatorConditionFor(Csv());
  EXPECT_EQ(
      engine::Dump(oc),
      R"({"apiVersion":"operators.coreos.com/v2","kind":"OperatorCondition","metadata":{"name":"etcd.v2",)"
      R"("namespace":"ops","ownerReferences":[{"apiVersion":"operators.coreos.com/v1alpha1","kind":)"
      R"("ClusterServiceVersion","name":"etcd.v2","uid":"u-csv","controller":true,"blockOwnerDeletion":false}]},)"
      R"("spec":{"serviceAccounts":["etcd-operator","etcd-operator","etcd-backup"],)"
      R"("deployments":["etcd-operator","etcd-backup"]}})");
  // No permissions: the default service account; no Deployments: none listed.
  Json bare = Csv();
  bare["spec"]["install"]["spec"] = Json::object();
  EXPECT_EQ(engine::Dump(OperatorConditionFor(bare)["spec"]), R"({"serviceAccounts":["default"]})");
}

TEST(OperatorConditions, TheGeneratorTouchesOnlyOwnersDeploymentsAndAccounts) {
  Json want = OperatorConditionFor(Csv());
  Json live = want;
  live["metadata"]["resourceVersion"] = "7";
  live["spec"]["conditions"] = Json::array({Json{{"type", "Upgradeable"}, {"status", "False"}}});
  live["spec"]["overrides"] = Json::array();
  live["status"] = Json{{"conditions", Json::array()}};
  EXPECT_FALSE(OperatorConditionUpdate(live, want).has_value());
  // Keys in another order (another writer's) are the same object.
  Json reordered = live;
  reordered["metadata"]["ownerReferences"][0] =
      Json::parse(R"({"uid":"u-csv","name":"etcd.v2","kind":"ClusterServiceVersion","controller":true,)"
                  R"("blockOwnerDeletion":false,"apiVersion":"operators.coreos.com/v1alpha1"})");
  EXPECT_FALSE(OperatorConditionUpdate(reordered, want).has_value());

  live["spec"]["serviceAccounts"] = Json::array({"someone"});
  live["metadata"].erase("ownerReferences");
  auto update = OperatorConditionUpdate(live, want);
  ASSERT_TRUE(update.has_value());
  EXPECT_EQ((*update)["spec"]["serviceAccounts"], want["spec"]["serviceAccounts"]);
  EXPECT_EQ((*update)["metadata"]["ownerReferences"], want["metadata"]["ownerReferences"]);
  EXPECT_EQ((*update)["metadata"]["resourceVersion"], "7");
  EXPECT_EQ((*update)["spec"]["conditions"], live["spec"]["conditions"]);
  EXPECT_FALSE(update->contains("status"));
}

TEST(OperatorConditions, RoleAndBindingLetTheOperatorsAccountsWriteIt) {
  Json oc = OperatorConditionFor(Csv());
  oc["metadata"]["uid"] = "u-oc";
  Json role = OperatorConditionRole(oc);
  EXPECT_EQ(engine::Dump(role["rules"]),
            R"([{"verbs":["get","update","patch"],"apiGroups":["operators.coreos.com"],)"
            R"("resources":["operatorconditions"],"resourceNames":["etcd.v2"]}])");
  EXPECT_EQ(engine::Dump(role["metadata"]["ownerReferences"]),
            R"([{"apiVersion":"operators.coreos.com/v2","kind":"OperatorCondition","name":"etcd.v2",)"
            R"("uid":"u-oc","controller":true,"blockOwnerDeletion":false}])");
  Json binding = OperatorConditionRoleBinding(oc);
  EXPECT_EQ(
      engine::Dump(binding["subjects"]),
      R"([{"kind":"ServiceAccount","name":"etcd-operator"},{"kind":"ServiceAccount","name":"etcd-operator"},)"
      R"({"kind":"ServiceAccount","name":"etcd-backup"}])");
  EXPECT_EQ(engine::Dump(binding["roleRef"]),
            R"({"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"etcd.v2"})");

  Json live = role;
  live["metadata"]["resourceVersion"] = "3";
  EXPECT_FALSE(RbacUpdate(live, role, "u-oc").has_value());
  // Owned by an earlier OperatorCondition of that name: taken over.
  auto taken = RbacUpdate(live, role, "u-oc-2");
  ASSERT_TRUE(taken.has_value());
  EXPECT_EQ((*taken)["metadata"]["resourceVersion"], "3");
  live["rules"][0]["verbs"] = Json::array({"get"});
  ASSERT_TRUE(RbacUpdate(live, role, "u-oc").has_value());
  EXPECT_EQ((*RbacUpdate(live, role, "u-oc"))["rules"], role["rules"]);

  Json bound = binding;
  bound["metadata"]["uid"] = "x";
  EXPECT_FALSE(RbacUpdate(bound, binding, "u-oc").has_value());
  bound["subjects"].erase(0);
  auto rebound = RbacUpdate(bound, binding, "u-oc");
  ASSERT_TRUE(rebound.has_value());
  EXPECT_EQ((*rebound)["subjects"], binding["subjects"]);
}

TEST(OperatorConditions, EveryContainerGetsTheConditionsName) {
  Json d = Json::parse(R"({"spec":{"template":{"spec":{"containers":[
      {"name":"a","env":[{"name":"X","value":"1"},{"name":"OPERATOR_CONDITION_NAME","value":"etcd.v2"}]},
      {"name":"b"}]}}}})");
  auto fixed = WithOperatorConditionName(d, "etcd.v2");
  ASSERT_TRUE(fixed.has_value());
  EXPECT_EQ(engine::Dump((*fixed)["spec"]["template"]["spec"]["containers"][1]["env"]),
            R"([{"name":"OPERATOR_CONDITION_NAME","value":"etcd.v2"}])");
  EXPECT_FALSE(WithOperatorConditionName(*fixed, "etcd.v2").has_value());
  // Another value is fixed in place.
  auto renamed = WithOperatorConditionName(*fixed, "etcd.v3");
  ASSERT_TRUE(renamed.has_value());
  EXPECT_EQ(engine::Dump((*renamed)["spec"]["template"]["spec"]["containers"][0]["env"]),
            R"([{"name":"X","value":"1"},{"name":"OPERATOR_CONDITION_NAME","value":"etcd.v3"}])");
}

TEST(OperatorConditions, StatusFollowsSpecAsSetStatusConditionDoes) {
  Json oc = Json::parse(R"({"metadata":{"name":"etcd.v1","generation":2},"spec":{"conditions":[
      {"type":"Upgradeable","status":"False","reason":"Migrating","message":"migrating data",
       "lastTransitionTime":"2027-01-01T00:00:00Z"}]}})");
  auto first = OperatorConditionStatus(oc, "2027-01-02T00:00:00Z");
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(engine::Dump(*first),
            R"({"conditions":[{"type":"Upgradeable","status":"False","reason":"Migrating","message":)"
            R"("migrating data","lastTransitionTime":"2027-01-01T00:00:00Z","observedGeneration":2}]})");
  oc["status"] = *first;
  EXPECT_FALSE(OperatorConditionStatus(oc, "2027-01-02T00:00:00Z").has_value());
  // The message alone changed with the generation: the transition time stays.
  oc["metadata"]["generation"] = 3;
  oc["spec"]["conditions"][0]["message"] = "almost done";
  oc["spec"]["conditions"][0]["lastTransitionTime"] = "2027-01-03T00:00:00Z";
  auto second = OperatorConditionStatus(oc, "2027-01-04T00:00:00Z");
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(engine::Dump((*second)["conditions"][0]),
            R"({"type":"Upgradeable","status":"False","reason":"Migrating","message":"almost done",)"
            R"("lastTransitionTime":"2027-01-01T00:00:00Z","observedGeneration":3})");
  // A new status: the entry's transition time.
  oc["status"] = *second;
  oc["metadata"]["generation"] = 4;
  oc["spec"]["conditions"][0]["status"] = "True";
  auto third = OperatorConditionStatus(oc, "2027-01-05T00:00:00Z");
  ASSERT_TRUE(third.has_value());
  EXPECT_EQ(engine::GetString((*third)["conditions"][0], {"lastTransitionTime"}), "2027-01-03T00:00:00Z");
  EXPECT_EQ(engine::GetString((*third)["conditions"][0], {"status"}), "True");
}

TEST(OperatorConditions, TheUpgradeGate) {
  EXPECT_FALSE(NotUpgradeable(nullptr).has_value());
  Json oc = Json::parse(R"({"metadata":{"generation":2},"status":{"conditions":[
      {"type":"Upgradeable","status":"False","message":"migrating","observedGeneration":2}]}})");
  EXPECT_EQ(NotUpgradeable(&oc).value_or(""), "the operator is not upgradeable: migrating");
  oc["metadata"]["generation"] = 3;
  EXPECT_EQ(NotUpgradeable(&oc).value_or(""),
            R"(the operatorcondition status "Upgradeable"="False" is outdated)");
  oc["status"]["conditions"][0]["observedGeneration"] = 3;
  oc["status"]["conditions"][0]["status"] = "True";
  EXPECT_FALSE(NotUpgradeable(&oc).has_value());
  // An override decides alone, either way.
  oc["spec"]["overrides"] =
      Json::array({Json{{"type", "Upgradeable"}, {"status", "False"}, {"message", "admin says no"}}});
  EXPECT_EQ(NotUpgradeable(&oc).value_or(""), "the operator is not upgradeable: admin says no");
  oc["spec"]["overrides"][0]["status"] = "True";
  oc["status"]["conditions"][0]["status"] = "False";
  EXPECT_FALSE(NotUpgradeable(&oc).has_value());
  // Other condition types do not count.
  Json other = Json::parse(R"({"metadata":{"generation":1},"status":{"conditions":[
      {"type":"Ready","status":"False","observedGeneration":0}]}})");
  EXPECT_FALSE(NotUpgradeable(&other).has_value());
}

}  // namespace
}  // namespace recon::olm
