// ClusterRefs (domains/olm/cluster_refs.h): an event of a cluster-scoped
// object wakes the namespaces whose CSVs it concerns, not every namespace
// with a CSV; the index follows changes and deletions, and answers which
// cluster-scoped objects a CSV's olm.owner labels claim.
#include "domains/olm/cluster_refs.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "engine/json.h"

namespace recon::olm {
namespace {

using engine::Json;

class ClusterRefsTest : public ::testing::Test {
 protected:
  void Put(const std::string& group, const std::string& kind, const std::string& ns, const std::string& name,
           const Json& body) {
    world_.Upsert(group, kind, ns, name, "v1", engine::Dump(body), ++seq_, 0);
  }
  void Csv(const std::string& ns, const std::string& name, const std::vector<std::string>& owned,
           const std::vector<std::string>& required = {}) {
    Json crds = {{"owned", Json::array()}, {"required", Json::array()}};
    for (const auto& n : owned) crds["owned"].push_back({{"name", n}});
    for (const auto& n : required) crds["required"].push_back({{"name", n}});
    Put("operators.coreos.com", "ClusterServiceVersion", ns, name,
        Json{{"metadata", {{"name", name}, {"namespace", ns}}},
             {"spec", {{"customresourcedefinitions", crds}}}});
  }
  std::set<std::string> Wake(const std::string& group, const std::string& kind, const std::string& ns,
                             const std::string& name) {
    std::set<std::string> out;
    EXPECT_TRUE(refs_.Update(world_, group, kind, ns, name, &out));
    return out;
  }

  engine::World world_;
  ClusterRefs refs_;
  uint64_t seq_ = 0;
};

TEST_F(ClusterRefsTest, ACrdWakesTheNamespacesWhoseCsvsOwnOrRequireIt) {
  Csv("a", "op-a.v1", {"widgets.example.com"});
  Csv("b", "op-b.v1", {"gadgets.example.com"}, {"widgets.example.com"});
  Csv("c", "op-c.v1", {"gadgets.example.com"});
  refs_.Build(world_);
  Put("apiextensions.k8s.io", "CustomResourceDefinition", "", "widgets.example.com",
      Json{{"metadata", {{"name", "widgets.example.com"}}}});
  EXPECT_EQ(Wake("apiextensions.k8s.io", "CustomResourceDefinition", "", "widgets.example.com"),
            (std::set<std::string>{"a", "b"}));
  // b's CSV replaced by one that no longer requires it.
  Csv("b", "op-b.v1", {"gadgets.example.com"});
  EXPECT_TRUE(Wake("operators.coreos.com", "ClusterServiceVersion", "b", "op-b.v1").empty());
  EXPECT_EQ(Wake("apiextensions.k8s.io", "CustomResourceDefinition", "", "widgets.example.com"),
            (std::set<std::string>{"a"}));
  EXPECT_TRUE(Wake("apiextensions.k8s.io", "CustomResourceDefinition", "", "other.example.com").empty());
}

TEST_F(ClusterRefsTest, AClusterRoleWakesTheNamespacesOfTheBindingsThatGrantIt) {
  Put("rbac.authorization.k8s.io", "RoleBinding", "a", "rb",
      Json{{"metadata", {{"name", "rb"}, {"namespace", "a"}}},
           {"roleRef", {{"kind", "ClusterRole"}, {"name", "edit"}}}});
  Put("rbac.authorization.k8s.io", "ClusterRoleBinding", "", "crb",
      Json{{"metadata", {{"name", "crb"}}},
           {"roleRef", {{"kind", "ClusterRole"}, {"name", "edit"}}},
           {"subjects", Json::array({Json{{"kind", "ServiceAccount"}, {"name", "op"}, {"namespace", "b"}},
                                     Json{{"kind", "User"}, {"name", "system:serviceaccount:c:op"}}})}});
  refs_.Build(world_);
  EXPECT_EQ(Wake("rbac.authorization.k8s.io", "ClusterRole", "", "edit"),
            (std::set<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(Wake("rbac.authorization.k8s.io", "ClusterRole", "", "view").empty());
  // The binding's subjects change: both the old and the new namespaces wake.
  Put("rbac.authorization.k8s.io", "ClusterRoleBinding", "", "crb",
      Json{
          {"metadata", {{"name", "crb"}}},
          {"roleRef", {{"kind", "ClusterRole"}, {"name", "edit"}}},
          {"subjects", Json::array({Json{{"kind", "ServiceAccount"}, {"name", "op"}, {"namespace", "d"}}})}});
  EXPECT_EQ(Wake("rbac.authorization.k8s.io", "ClusterRoleBinding", "", "crb"),
            (std::set<std::string>{"b", "c", "d"}));
  EXPECT_EQ(Wake("rbac.authorization.k8s.io", "ClusterRole", "", "edit"), (std::set<std::string>{"a", "d"}));
  // A deleted RoleBinding no longer ties its namespace to the role.
  world_.Clear();
  EXPECT_TRUE(Wake("rbac.authorization.k8s.io", "RoleBinding", "a", "rb").empty());
  EXPECT_TRUE(Wake("rbac.authorization.k8s.io", "ClusterRoleBinding", "", "crb").contains("d"));
  EXPECT_TRUE(Wake("rbac.authorization.k8s.io", "ClusterRole", "", "edit").empty());
}

TEST_F(ClusterRefsTest, OwnerLabelsClaimClusterScopedObjectsForTheirCsv) {
  const Json labels = {
      {"olm.owner", "op.v1"}, {"olm.owner.namespace", "a"}, {"olm.owner.kind", "ClusterServiceVersion"}};
  Put("rbac.authorization.k8s.io", "ClusterRole", "", "op.v1-x",
      Json{{"metadata", {{"name", "op.v1-x"}, {"labels", labels}}}});
  Put("rbac.authorization.k8s.io", "ClusterRole", "", "op.v1-a",
      Json{{"metadata", {{"name", "op.v1-a"}, {"labels", labels}}}});
  Put("rbac.authorization.k8s.io", "ClusterRole", "", "og-admin",
      Json{{"metadata",
            {{"name", "og-admin"}, {"labels", {{"olm.owner", "og"}, {"olm.owner.kind", "OperatorGroup"}}}}}});
  refs_.Build(world_);
  const std::set<std::string>* owned =
      refs_.OwnedBy("a", "op.v1", "rbac.authorization.k8s.io", "ClusterRole");
  ASSERT_NE(owned, nullptr);
  EXPECT_EQ(*owned, (std::set<std::string>{"op.v1-a", "op.v1-x"}));
  EXPECT_EQ(refs_.OwnedBy("a", "op.v1", "rbac.authorization.k8s.io", "ClusterRoleBinding"), nullptr);
  EXPECT_EQ(Wake("rbac.authorization.k8s.io", "ClusterRole", "", "op.v1-x"), (std::set<std::string>{"a"}));
  EXPECT_TRUE(Wake("rbac.authorization.k8s.io", "ClusterRole", "", "og-admin").empty());
  // Its labels removed: no longer the CSV's.
  Put("rbac.authorization.k8s.io", "ClusterRole", "", "op.v1-x", Json{{"metadata", {{"name", "op.v1-x"}}}});
  EXPECT_EQ(Wake("rbac.authorization.k8s.io", "ClusterRole", "", "op.v1-x"), (std::set<std::string>{"a"}));
  EXPECT_EQ(*refs_.OwnedBy("a", "op.v1", "rbac.authorization.k8s.io", "ClusterRole"),
            (std::set<std::string>{"op.v1-a"}));
  EXPECT_FALSE(refs_.Update(world_, "apps", "Deployment", "a", "d", nullptr)) << "not a kind it keeps";
}

}  // namespace
}  // namespace recon::olm
