#include "domains/olm/install/bundle_steps.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "engine/json.h"

namespace recon::olm {
namespace {

using engine::Json;

Json J(const char* text) { return Json::parse(text); }

std::vector<std::string> Kinds(const std::vector<Json>& steps) {
  std::vector<std::string> out;
  for (const Json& s : steps) out.push_back(engine::GetString(s, {"resource", "kind"}));
  return out;
}

BundleContent Etcd() {
  BundleContent b;
  b.csv = J(R"({"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion",
    "metadata":{"name":"etcd.v0.9.2","annotations":{"alm-examples":"[]"}},
    "spec":{"replaces":"etcd.v0.9.0","install":{"strategy":"deployment","spec":{
      "permissions":[{"serviceAccountName":"zeta","rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]},
                     {"serviceAccountName":"etcd-operator","rules":[{"apiGroups":["etcd.database.coreos.com"],"resources":["*"],"verbs":["*"]}]}],
      "clusterPermissions":[{"serviceAccountName":"etcd-operator","rules":[{"apiGroups":[""],"resources":["nodes"],"verbs":["list"]}]},
                            {"serviceAccountName":"default","rules":[{"apiGroups":[""],"resources":["namespaces"],"verbs":["get"]}]}]}}}})");
  b.objects = {J(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"etcd-metrics"}})"),
               b.csv,
               J(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"etcdclusters.etcd.database.coreos.com"}})"),
               J(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"etcd-webhook-cert"}})")};
  b.properties = J(R"([{"type":"olm.package","value":{"packageName":"etcd","version":"0.9.2"}}])");
  b.replaces = "etcd.v0.9.1";
  b.catalog = "operatorhubio";
  b.catalog_ns = "olm";
  return b;
}

TEST(BundleSteps, TheCsvCarriesTheNamespaceTheResolvedReplacesAndTheProperties) {
  auto steps = BundleSteps(Etcd(), "ns1");
  ASSERT_TRUE(steps.ok()) << steps.status();
  const Json& first = (*steps)[0];
  EXPECT_EQ(engine::GetString(first, {"resolving"}), "etcd.v0.9.2");
  EXPECT_EQ(engine::GetString(first, {"status"}), "Unknown");
  EXPECT_EQ(engine::GetString(first, {"resource", "group"}), "operators.coreos.com");
  EXPECT_EQ(engine::GetString(first, {"resource", "version"}), "v1alpha1");
  EXPECT_EQ(engine::GetString(first, {"resource", "sourceName"}), "operatorhubio");
  auto csv = engine::ParseJson(engine::GetString(first, {"resource", "manifest"}));
  ASSERT_TRUE(csv.ok());
  EXPECT_EQ(engine::GetString(*csv, {"metadata", "namespace"}), "ns1");
  EXPECT_EQ(engine::GetString(*csv, {"spec", "replaces"}), "etcd.v0.9.1");
  EXPECT_EQ(engine::GetString(*csv, {"metadata", "annotations", "alm-examples"}), "[]");
  EXPECT_EQ(engine::GetString(*csv, {"metadata", "annotations", "operatorframework.io/properties"}),
            R"({"properties":[{"type":"olm.package","value":{"packageName":"etcd","version":"0.9.2"}}]})");
  BundleContent fresh = Etcd();
  fresh.replaces.clear();  // a fresh install that replaces nothing
  auto none = BundleSteps(fresh, "ns1");
  ASSERT_TRUE(none.ok());
  auto csv2 = engine::ParseJson(engine::GetString((*none)[0], {"resource", "manifest"}));
  EXPECT_FALSE(csv2->at("spec").contains("replaces"));
}

TEST(BundleSteps, ObjectsInBundleOrderThenRbacPerServiceAccountInNameOrder) {
  auto steps = BundleSteps(Etcd(), "ns1");
  ASSERT_TRUE(steps.ok());
  EXPECT_EQ(Kinds(*steps),
            (std::vector<std::string>{"ClusterServiceVersion", "Service", "CustomResourceDefinition",
                                      "BundleSecret",
                                      // "default": no ServiceAccount, its ClusterRole and binding
                                      "ClusterRole", "ClusterRoleBinding",
                                      // etcd-operator
                                      "ServiceAccount", "Role", "RoleBinding", "ClusterRole",
                                      "ClusterRoleBinding",
                                      // zeta
                                      "ServiceAccount", "Role", "RoleBinding"}));
  auto role = engine::ParseJson(engine::GetString((*steps)[7], {"resource", "manifest"}));
  ASSERT_TRUE(role.ok());
  std::string name = engine::GetString(*role, {"metadata", "name"});
  EXPECT_EQ(name.rfind("etcd.v0.9.2-etcd-operator-", 0), 0u) << name;
  EXPECT_EQ(engine::GetString(*role, {"metadata", "labels", "olm.owner"}), "etcd.v0.9.2");
  EXPECT_EQ(engine::GetString(*role, {"metadata", "labels", "olm.owner.kind"}), "ClusterServiceVersion");
  EXPECT_EQ(engine::GetString((*role)["metadata"]["ownerReferences"][0], {"name"}), "etcd.v0.9.2");
  auto binding = engine::ParseJson(engine::GetString((*steps)[8], {"resource", "manifest"}));
  EXPECT_EQ(engine::GetString(*binding, {"metadata", "name"}), name);
  EXPECT_EQ(engine::GetString(*binding, {"roleRef", "name"}), name);
  EXPECT_EQ(engine::GetString((*binding)["subjects"][0], {"namespace"}), "ns1");
  auto cluster_role = engine::ParseJson(engine::GetString((*steps)[9], {"resource", "manifest"}));
  EXPECT_FALSE(cluster_role->at("metadata").contains("namespace"));
  EXPECT_FALSE(cluster_role->at("metadata").contains("ownerReferences"));
}

TEST(BundleSteps, ACsvWithoutApiVersionOrKindIsUpstreamsFatalError) {
  BundleContent b = Etcd();
  b.csv.erase("apiVersion");
  EXPECT_EQ(BundleSteps(b, "ns1").status().message(), "bundle CSV etcd.v0.9.2 missing APIVersion");
  b = Etcd();
  b.csv.erase("kind");
  EXPECT_EQ(BundleSteps(b, "ns1").status().message(), "bundle CSV etcd.v0.9.2 missing Kind");
}

TEST(BundleSteps, RbacNamesAreStableChangeWithTheirInputsAndFit63Characters) {
  Json a = J(R"(["csv",{"rules":[1]}])");
  Json b = J(R"(["csv",{"rules":[2]}])");
  EXPECT_EQ(RbacHash(a), RbacHash(a));
  EXPECT_NE(RbacHash(a), RbacHash(b));
  for (char c : RbacHash(a)) EXPECT_NE(std::string("bcdfghjklmnpqrstvwxz2456789").find(c), std::string::npos);
  EXPECT_EQ(RbacName("short", "xyz"), "short-xyz");
  std::string longer(70, 'a');
  std::string cut = RbacName(longer, "hash123");
  EXPECT_EQ(cut.size(), 63u);
  EXPECT_EQ(cut.substr(cut.size() - 8), "-hash123");
}

TEST(BundleSteps, OrderStepsPutsCsvsThenCrdsThenTheRestKeepingTheirOrder) {
  auto step = [](const char* kind, const char* name) {
    return Json{{"resource", Json{{"kind", kind}, {"name", name}}}};
  };
  std::vector<Json> in = {step("Role", "r1"), step("CustomResourceDefinition", "c1"),
                          step("ClusterServiceVersion", "v1"), step("Subscription", "s1"),
                          step("CustomResourceDefinition", "c2"), step("ClusterServiceVersion", "v2")};
  std::vector<std::string> names;
  for (const Json& s : OrderSteps(in)) names.push_back(engine::GetString(s, {"resource", "name"}));
  EXPECT_EQ(names, (std::vector<std::string>{"v1", "v2", "c1", "c2", "r1", "s1"}));
}

}  // namespace
}  // namespace recon::olm
