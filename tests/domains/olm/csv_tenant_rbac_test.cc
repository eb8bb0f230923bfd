// The RBAC spread to a group's targets (domains/olm/csv/tenant_rbac.h;
// reference olm-operator.md §B.1.5): when the permissions count as
// granted, what a lifted ClusterRole and ClusterRoleBinding hold, and what
// a tenant copy of a Role carries.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "domains/olm/csv/deployments.h"
#include "domains/olm/csv/tenant_rbac.h"
#include "tests/domains/olm/fake_requirement_view.h"

namespace recon::olm {
namespace {

using engine::Json;

Json Csv() {
  return Json{{"apiVersion", "operators.coreos.com/v1alpha1"},
              {"kind", "ClusterServiceVersion"},
              {"metadata", {{"name", "op.v1"}, {"namespace", "ops"}, {"uid", "csv-uid"}}},
              {"spec",
               {{"install",
                 {{"strategy", "deployment"},
                  {"spec",
                   {{"permissions",
                     Json::array({Json{{"serviceAccountName", "op"},
                                       {"rules", Json::array({Json{{"apiGroups", {""}},
                                                                   {"resources", {"configmaps"}},
                                                                   {"verbs", {"get", "list"}}}})}}})}}}}}}}};
}

Json OwnerLabels() {
  return Json{
      {"olm.owner", "op.v1"}, {"olm.owner.namespace", "ops"}, {"olm.owner.kind", "ClusterServiceVersion"}};
}

Json Role() {
  return Json{
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "Role"},
      {"metadata",
       {{"name", "op.v1-abc"},
        {"namespace", "ops"},
        {"uid", "role-uid"},
        {"resourceVersion", "7"},
        {"labels", OwnerLabels()},
        {"ownerReferences", Json::array({Json{{"kind", "ClusterServiceVersion"}, {"uid", "csv-uid"}}})}}},
      {"rules",
       Json::array({Json{{"apiGroups", {""}}, {"resources", {"configmaps"}}, {"verbs", {"get", "list"}}}})}};
}

Json Binding(const std::string& ns, const std::string& role_kind) {
  return Json{
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", ns.empty() ? "ClusterRoleBinding" : "RoleBinding"},
      {"metadata", {{"name", "op.v1-abc"}, {"namespace", ns}, {"labels", OwnerLabels()}}},
      {"subjects", Json::array({Json{{"kind", "ServiceAccount"}, {"name", "op"}, {"namespace", "ops"}}})},
      {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", role_kind}, {"name", "op.v1-abc"}}}};
}

TEST(OlmTenantRbac, PermissionsCountWhereTheyAreGranted) {
  FakeRequirementCluster c;
  c.sas["op"] = Json{{"metadata", {{"name", "op"}, {"namespace", "ops"}}}};
  c.roles["ops/op.v1-abc"] = Role();
  c.role_bindings.push_back(Binding("ops", "Role"));
  const Json csv = Csv();
  EXPECT_TRUE(PermissionsMet(csv, "ops", false, c.View()));
  EXPECT_FALSE(PermissionsMet(csv, "team-a", false, c.View())) << "the Role grants in ops only";
  EXPECT_FALSE(PermissionsMet(csv, "", true, c.View())) << "lifted: checked cluster-wide";
  // Lifted: a ClusterRole and a ClusterRoleBinding grant it everywhere.
  c.cluster_roles["op.v1-abc"] = LiftedClusterRole(Role());
  c.cluster_role_bindings.push_back(LiftedClusterRoleBinding(Binding("ops", "Role")));
  EXPECT_TRUE(PermissionsMet(csv, "", true, c.View()));
  EXPECT_TRUE(PermissionsMet(csv, "team-a", false, c.View()));
  // A service account missing, or another CSV's, grants nothing.
  c.sas["op"]["metadata"]["ownerReferences"] =
      Json::array({Json{{"kind", "ClusterServiceVersion"}, {"uid", "other"}}});
  EXPECT_FALSE(PermissionsMet(csv, "ops", false, c.View()));
  c.sas["op"]["metadata"]["ownerReferences"][0]["uid"] = "csv-uid";
  EXPECT_TRUE(PermissionsMet(csv, "ops", false, c.View()));
}

TEST(OlmTenantRbac, ALiftedRoleReadsNamespacesTooAndItsBindingNamesTheClusterRole) {
  const Json cr = LiftedClusterRole(Role());
  EXPECT_EQ(cr["kind"], "ClusterRole");
  EXPECT_EQ(cr["metadata"], (Json{{"name", "op.v1-abc"}, {"labels", OwnerLabels()}}));
  ASSERT_EQ(cr["rules"].size(), 2u);
  EXPECT_EQ(cr["rules"][0], Role()["rules"][0]);
  EXPECT_EQ(cr["rules"][1],
            (Json{{"verbs", {"get", "list", "watch"}}, {"apiGroups", {""}}, {"resources", {"namespaces"}}}));
  const Json crb = LiftedClusterRoleBinding(Binding("ops", "Role"));
  EXPECT_EQ(crb["kind"], "ClusterRoleBinding");
  EXPECT_FALSE(crb["metadata"].contains("namespace"));
  EXPECT_EQ(
      crb["roleRef"],
      (Json{{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "op.v1-abc"}}));
  EXPECT_EQ(crb["subjects"], Binding("ops", "Role")["subjects"]);
}

TEST(OlmTenantRbac, ATenantCopyIsOwnedByTheCsvsCopyThere) {
  const Json copy = {{"apiVersion", "operators.coreos.com/v1alpha1"},
                     {"kind", "ClusterServiceVersion"},
                     {"metadata", {{"name", "op.v1"}, {"namespace", "team-a"}, {"uid", "copy-uid"}}}};
  const Json r = TenantCopy(Role(), copy, "ops");
  EXPECT_EQ(r["metadata"]["namespace"], "team-a");
  EXPECT_EQ(r["metadata"]["name"], "op.v1-abc");
  EXPECT_FALSE(r["metadata"].contains("uid"));
  EXPECT_FALSE(r["metadata"].contains("resourceVersion"));
  EXPECT_EQ(r["metadata"]["labels"], (Json{{"olm.owner", "op.v1"},
                                           {"olm.owner.namespace", "team-a"},
                                           {"olm.owner.kind", "ClusterServiceVersion"},
                                           {"olm.copiedFrom", "ops"}}));
  EXPECT_EQ(r["metadata"]["ownerReferences"],
            Json::array({Json{{"apiVersion", "operators.coreos.com/v1alpha1"},
                              {"kind", "ClusterServiceVersion"},
                              {"name", "op.v1"},
                              {"uid", "copy-uid"},
                              {"controller", false},
                              {"blockOwnerDeletion", false}}}));
  EXPECT_EQ(r["rules"], Role()["rules"]);
  EXPECT_TRUE(HasCsvOwnerLabels(Role(), Csv()));
  EXPECT_TRUE(OwnedByCsv(Role(), Csv()));
  EXPECT_FALSE(OwnedByCsv(r, Csv()));
  EXPECT_TRUE(HasCsvOwnerLabels(r, copy));
}

}  // namespace
}  // namespace recon::olm
