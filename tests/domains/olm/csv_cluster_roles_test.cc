// The generated ClusterRoles (domains/olm/csv/cluster_roles.h; reference
// olm-operator.md §B.1.5): the aggregation hash, a group's three roles, a
// CRD's four per-API roles, and when an existing role is rewritten.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "domains/olm/csv/cluster_roles.h"

namespace recon::olm {
namespace {

using engine::Json;

TEST(ClusterRoles, TheAggregationKeyIsFnv64aOfKindVersionGroupInHex) {
  // Values computed independently (Python, FNV-1a 64).
  EXPECT_EQ(ApiHash("EtcdCluster.v1beta2.etcd.database.coreos.com"), "c571d720f17289d3");
  EXPECT_EQ(ApiHash(""), "cbf29ce484222325");
}

TEST(ClusterRoles, TheApisOfACsvAndOfAGroup) {
  Json csv = Json::parse(R"({"spec":{"customresourcedefinitions":{"owned":[
      {"name":"etcdclusters.etcd.database.coreos.com","kind":"EtcdCluster","version":"v1beta2"},
      {"name":"nodot","kind":"Bad","version":"v1"}]},
    "apiservicedefinitions":{"owned":[{"group":"metrics.example.com","version":"v1","kind":"Metric"}]}}})");
  EXPECT_EQ(CsvProvidedApis(csv), (std::set<std::string>{"EtcdCluster.v1beta2.etcd.database.coreos.com",
                                                         "Metric.v1.metrics.example.com"}));
  Json og = Json::parse(R"({"metadata":{"annotations":{"olm.providedAPIs":"A.v1.x.io,B.v2.y.io"}}})");
  EXPECT_EQ(GroupProvidedApis(og), (std::set<std::string>{"A.v1.x.io", "B.v2.y.io"}));
}

TEST(ClusterRoles, AGroupAggregatesItsApisInThreeRoles) {
  Json og = Json::parse(R"({"metadata":{"name":"og","namespace":"ops"}})");
  std::vector<Json> roles = GroupClusterRoles(og, {"EtcdCluster.v1beta2.etcd.database.coreos.com"});
  ASSERT_EQ(roles.size(), 3u);
  EXPECT_EQ(
      engine::Dump(roles[1]),
      R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"og-edit",)"
      R"("labels":{"olm.owner":"og","olm.owner.namespace":"ops","olm.owner.kind":"OperatorGroup"}},)"
      R"("aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{)"
      R"("olm.opgroup.permissions/aggregate-to-c571d720f17289d3-edit":"true"}}]}})");
  EXPECT_EQ(engine::GetString(roles[0], {"metadata", "name"}), "og-admin");
  EXPECT_EQ(engine::GetString(roles[2], {"metadata", "name"}), "og-view");
  // No API: no aggregation rule at all.
  EXPECT_FALSE(GroupClusterRoles(og, {})[0].contains("aggregationRule"));
}

TEST(ClusterRoles, EachOwnedCrdGetsFourRolesItOwns) {
  Json d = Json::parse(
      R"({"name":"etcdclusters.etcd.database.coreos.com","kind":"EtcdCluster","version":"v1beta2"})");
  Json crd = Json::parse(R"({"metadata":{"name":"etcdclusters.etcd.database.coreos.com","uid":"u-crd"}})");
  auto roles = CrdClusterRoles(d, crd);
  ASSERT_TRUE(roles.has_value());
  ASSERT_EQ(roles->size(), 4u);
  EXPECT_EQ(engine::Dump((*roles)[0]),
            R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{)"
            R"("name":"etcdclusters.etcd.database.coreos.com-v1beta2-admin","labels":{)"
            R"("rbac.authorization.k8s.io/aggregate-to-admin":"true",)"
            R"("olm.opgroup.permissions/aggregate-to-c571d720f17289d3-admin":"true"},)"
            R"("ownerReferences":[{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",)"
            R"("name":"etcdclusters.etcd.database.coreos.com","uid":"u-crd","blockOwnerDeletion":false,)"
            R"("controller":false}]},"rules":[{"verbs":["*"],"apiGroups":["etcd.database.coreos.com"],)"
            R"("resources":["etcdclusters"]}]})");
  EXPECT_EQ(engine::Dump((*roles)[1]["rules"][0]["verbs"]), R"(["create","update","patch","delete"])");
  EXPECT_EQ(engine::Dump((*roles)[2]["rules"][0]["verbs"]), R"(["get","list","watch"])");
  const Json& crdview = (*roles)[3];
  EXPECT_EQ(engine::GetString(crdview, {"metadata", "name"}),
            "etcdclusters.etcd.database.coreos.com-v1beta2-crdview");
  EXPECT_EQ(engine::Dump(crdview["metadata"]["labels"]),
            R"({"rbac.authorization.k8s.io/aggregate-to-view":"true",)"
            R"("olm.opgroup.permissions/aggregate-to-c571d720f17289d3-view":"true"})");
  EXPECT_EQ(
      engine::Dump(crdview["rules"]),
      R"([{"verbs":["get"],"apiGroups":["apiextensions.k8s.io"],"resources":["customresourcedefinitions"],)"
      R"("resourceNames":["etcdclusters.etcd.database.coreos.com"]}])");
  // The names the reducer's memo reads the live roles by are these roles' names.
  std::vector<std::string> names;
  for (const Json& r : *roles) names.push_back(engine::GetString(r, {"metadata", "name"}));
  EXPECT_EQ(CrdClusterRoleNames(d), names);
  d["name"] = "nodot";
  EXPECT_FALSE(CrdClusterRoles(d, crd).has_value());
  EXPECT_TRUE(CrdClusterRoleNames(d).empty());
}

TEST(ClusterRoles, AnExistingRoleIsRewrittenOnlyWhereItDiffers) {
  Json og = Json::parse(R"({"metadata":{"name":"og","namespace":"ops"}})");
  Json want = GroupClusterRoles(og, {"A.v1.x.io"})[0];
  Json live = want;
  live["metadata"]["resourceVersion"] = "9";
  live["metadata"]["labels"]["someone.else/label"] = "kept";
  live["rules"] = Json::array({Json{{"verbs", {"get"}}}});  // the aggregation controller's
  EXPECT_FALSE(ClusterRoleUpdate(live, want).has_value());
  // Another API: the aggregation rule is rewritten, the rest kept.
  Json more = GroupClusterRoles(og, {"A.v1.x.io", "B.v1.x.io"})[0];
  auto update = ClusterRoleUpdate(live, more);
  ASSERT_TRUE(update.has_value());
  EXPECT_EQ((*update)["aggregationRule"], more["aggregationRule"]);
  EXPECT_EQ((*update)["metadata"]["resourceVersion"], "9");
  EXPECT_EQ((*update)["metadata"]["labels"]["someone.else/label"], "kept");
  EXPECT_EQ((*update)["rules"], live["rules"]);
  // A per-API role: its rules and its owner count.
  Json d = Json::parse(R"({"name":"as.x.io","kind":"A","version":"v1"})");
  Json role = (*CrdClusterRoles(d, Json::parse(R"({"metadata":{"name":"as.x.io","uid":"u1"}})")))[0];
  EXPECT_FALSE(ClusterRoleUpdate(role, role).has_value());
  Json recreated = (*CrdClusterRoles(d, Json::parse(R"({"metadata":{"name":"as.x.io","uid":"u2"}})")))[0];
  ASSERT_TRUE(ClusterRoleUpdate(role, recreated).has_value());
  Json edited = role;
  edited["rules"][0]["verbs"] = Json::array({"get"});
  EXPECT_EQ((*ClusterRoleUpdate(edited, role))["rules"], role["rules"]);
}

}  // namespace
}  // namespace recon::olm
