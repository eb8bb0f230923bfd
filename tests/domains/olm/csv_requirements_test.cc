// The requirement check (domains/olm/csv/requirements.h): every CRD and
// service-account entry of the reference's §B.2.4 with upstream's words,
// and the RBAC evaluation behind the policy-rule dependents.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "domains/olm/csv/requirements.h"
#include "tests/domains/olm/fake_requirement_view.h"

namespace recon::olm {
namespace {

using engine::Json;

Json Crd(std::string name, bool established, bool served = true, Json annotations = Json::object()) {
  return Json{{"metadata", {{"name", name}, {"uid", "crd-uid-" + name}, {"annotations", annotations}}},
              {"spec", {{"versions", Json::array({Json{{"name", "v1"}, {"served", served}}})}}},
              {"status",
               {{"conditions",
                 Json::array({Json{{"type", "NamesAccepted"}, {"status", "True"}},
                              Json{{"type", "Established"}, {"status", established ? "True" : "False"}}})}}}};
}

Json Csv(Json owned, Json required, Json permissions = Json::array(), Json cluster = Json::array()) {
  return Json{{"metadata", {{"name", "etcd.v2"}, {"namespace", "ops"}, {"uid", "csv-uid"}}},
              {"spec",
               {{"customresourcedefinitions", {{"owned", owned}, {"required", required}}},
                {"install",
                 {{"strategy", "deployment"},
                  {"spec", {{"permissions", permissions}, {"clusterPermissions", cluster}}}}}}}};
}

Json Desc(std::string name, std::string version = "v1") {
  return Json{{"name", name}, {"version", version}, {"kind", "X"}};
}

using Cluster = FakeRequirementCluster;

std::vector<std::string> Lines(const RequirementResult& r) {
  std::vector<std::string> out;
  for (const Json& e : r.statuses) {
    out.push_back(engine::GetString(e, {"kind"}) + " " + engine::GetString(e, {"name"}) + ": " +
                  engine::GetString(e, {"status"}) + " / " + engine::GetString(e, {"message"}));
  }
  return out;
}

TEST(CsvRequirements, CrdEntriesSortedByNameWithUpstreamsWords) {
  Cluster c;
  c.crds["b.example.com"] = Crd("b.example.com", true);
  c.crds["c.example.com"] = Crd("c.example.com", false);
  c.crds["d.example.com"] = Crd("d.example.com", true, /*served=*/false);
  Json csv = Csv(Json::array({Desc("d.example.com"), Desc("b.example.com")}),
                 Json::array({Desc("c.example.com"), Desc("a.example.com"), Desc("b.example.com")}));
  RequirementResult r = CheckRequirements(csv, c.View());
  EXPECT_FALSE(r.met);
  EXPECT_EQ(
      Lines(r),
      (std::vector<std::string>{
          "CustomResourceDefinition a.example.com: NotPresent / CRD is not present",
          "CustomResourceDefinition b.example.com: Present / CRD is present and Established condition is "
          "true",
          "CustomResourceDefinition c.example.com: PresentNotAvailable / CRD is present but the Established "
          "condition is False (not available)",
          "CustomResourceDefinition d.example.com: NotPresent / CRD version not served"}));
  EXPECT_EQ(
      engine::Dump(r.statuses[1]),
      R"({"group":"apiextensions.k8s.io","version":"v1","kind":"CustomResourceDefinition","name":"b.example.com",)"
      R"("status":"Present","message":"CRD is present and Established condition is true","uuid":"crd-uid-b.example.com"})");

  c.crds["a.example.com"] = Crd("a.example.com", true);
  c.crds["c.example.com"] = Crd("c.example.com", true);
  c.crds["d.example.com"] = Crd("d.example.com", true);
  EXPECT_TRUE(CheckRequirements(csv, c.View()).met);
}

// An owned CRD that says it was installed alongside a CSV this one
// replaces waits until the plan's CRD step names this one too.
TEST(CsvRequirements, AnOwnedCrdInstalledAlongsideAReplacedCsv) {
  Cluster c;
  Json annotations = {{"operatorframework.io/installed-alongside-1f2e", "ops/etcd.v1"},
                      {"operatorframework.io/installed-alongside-9a9a", "ops/etcd.v0"},
                      {"operatorframework.io/installed-alongside-7b7b", "other/etcd.v1"}};
  c.crds["e.example.com"] = Crd("e.example.com", true, true, annotations);
  RequirementView v = c.View();
  v.replaced_chain = {"etcd.v1", "etcd.v0"};
  Json csv = Csv(Json::array({Desc("e.example.com")}), Json::array());
  RequirementResult r = CheckRequirements(csv, v);
  EXPECT_FALSE(r.met);
  EXPECT_EQ(Lines(r),
            (std::vector<std::string>{"CustomResourceDefinition e.example.com: PresentNotSatisfied / CRD "
                                      "installed alongside other CSV(s): etcd.v0, etcd.v1"}));
  annotations["operatorframework.io/installed-alongside-3c3c"] = "ops/etcd.v2";
  c.crds["e.example.com"] = Crd("e.example.com", true, true, annotations);
  EXPECT_TRUE(CheckRequirements(csv, v).met);
  // Required, not owned: the annotations do not matter.
  c.crds["e.example.com"] =
      Crd("e.example.com", true, true, {{"operatorframework.io/installed-alongside-1", "ops/etcd.v1"}});
  EXPECT_TRUE(CheckRequirements(Csv(Json::array(), Json::array({Desc("e.example.com")})), v).met);
}

Json Rule(Json verbs, Json groups, Json resources, Json names = Json::array()) {
  Json r = {{"verbs", verbs}, {"apiGroups", groups}, {"resources", resources}};
  if (!names.empty()) r["resourceNames"] = names;
  return r;
}

Json Binding(std::string kind, std::string ns, std::string role_kind, std::string role, Json subjects) {
  Json b = {{"kind", kind},
            {"metadata", {{"name", role + "-binding"}}},
            {"roleRef", {{"kind", role_kind}, {"name", role}}},
            {"subjects", subjects}};
  if (!ns.empty()) b["metadata"]["namespace"] = ns;
  return b;
}

Json SaSubject(std::string name, std::string ns = "ops") {
  return Json::array({Json{{"kind", "ServiceAccount"}, {"name", name}, {"namespace", ns}}});
}

TEST(CsvRequirements, ServiceAccountsAndTheirRules) {
  Cluster c;
  Json csv = Csv(
      Json::array(), Json::array(),
      Json::array(
          {Json{{"serviceAccountName", "etcd-operator"},
                {"rules", Json::array({Rule({"get", "list"}, {""}, {"pods"}),
                                       Rule({"update"}, {"apps"}, {"deployments"}, {"etcd"})})}},
           Json{{"serviceAccountName", "missing"}, {"rules", Json::array({Rule({"get"}, {""}, {"pods"})})}}}),
      Json::array(
          {Json{{"serviceAccountName", "etcd-operator"},
                {"rules", Json::array({Json{{"verbs", {"get"}}, {"nonResourceURLs", {"/metrics"}}}})}}}));
  c.sas["etcd-operator"] = Json{{"metadata", {{"name", "etcd-operator"}}}};
  c.roles["ops/etcd-role"] =
      Json{{"rules", Json::array({Rule({"get", "list", "watch"}, {""}, {"pods", "services"}),
                                  Rule({"*"}, {"apps"}, {"deployments"}, {"etcd"})})}};
  c.role_bindings.push_back(Binding("RoleBinding", "ops", "Role", "etcd-role", SaSubject("etcd-operator")));
  RequirementResult r = CheckRequirements(csv, c.View());
  EXPECT_FALSE(r.met);
  EXPECT_EQ(
      Lines(r),
      (std::vector<std::string>{
          "ServiceAccount etcd-operator: PresentNotSatisfied / Policy rule not satisfied for service account",
          "ServiceAccount missing: NotPresent / Service account does not exist"}));
  const Json& deps = r.statuses[0]["dependents"];
  ASSERT_EQ(deps.size(), 3u);
  EXPECT_EQ(
      engine::Dump(deps[0]),
      R"({"group":"rbac.authorization.k8s.io","version":"v1","kind":"PolicyRule","status":"Satisfied",)"
      R"("message":"namespaced rule:{\"verbs\":[\"get\",\"list\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}"})");
  EXPECT_EQ(engine::GetString(deps[1], {"status"}), "Satisfied");
  EXPECT_EQ(engine::GetString(deps[2], {"status"}), "NotSatisfied");  // /metrics needs a ClusterRoleBinding
  EXPECT_EQ(engine::GetString(deps[2], {"message"}),
            R"(cluster rule:{"verbs":["get"],"nonResourceURLs":["/metrics"]})");

  c.cluster_roles["metrics"] =
      Json{{"rules", Json::array({Json{{"verbs", {"get"}}, {"nonResourceURLs", {"/met*"}}}})}};
  c.cluster_role_bindings.push_back(
      Binding("ClusterRoleBinding", "", "ClusterRole", "metrics", SaSubject("etcd-operator")));
  c.sas["missing"] =
      Json{{"metadata",
            {{"name", "missing"},
             {"ownerReferences", Json::array({Json{{"kind", "ClusterServiceVersion"}, {"uid", "other"}}})}}}};
  r = CheckRequirements(csv, c.View());
  EXPECT_EQ(Lines(r), (std::vector<std::string>{
                          "ServiceAccount etcd-operator: Present / ",
                          "ServiceAccount missing: PresentNotSatisfied / Service account is owned by another "
                          "ClusterServiceVersion"}));
  c.sas["missing"]["metadata"]["ownerReferences"][0]["uid"] = "csv-uid";
  c.role_bindings.push_back(Binding("RoleBinding", "ops", "Role", "etcd-role", SaSubject("missing")));
  EXPECT_TRUE(CheckRequirements(csv, c.View()).met);
}

TEST(CsvRequirements, RbacMatchesAsKubernetesDoes) {
  Cluster c;
  c.cluster_roles["wide"] =
      Json{{"rules", Json::array({Rule({"*"}, {"*"}, {"*/status"}), Rule({"get"}, {""}, {"pods/log"})})}};
  // A subject without a namespace in a RoleBinding means the binding's.
  c.role_bindings.push_back(Binding("RoleBinding", "ops", "ClusterRole", "wide",
                                    Json::array({Json{{"kind", "ServiceAccount"}, {"name", "sa"}}})));
  RequirementView v = c.View();
  EXPECT_TRUE(RuleSatisfied(Rule({"update"}, {"apps"}, {"deployments/status"}), "ops", "sa", "ops", v));
  EXPECT_TRUE(RuleSatisfied(Rule({"get"}, {""}, {"pods/log"}), "ops", "sa", "ops", v));
  EXPECT_FALSE(RuleSatisfied(Rule({"get"}, {""}, {"pods"}), "ops", "sa", "ops", v));
  EXPECT_FALSE(
      RuleSatisfied(Rule({"get", "list"}, {""}, {"pods/log"}), "ops", "sa", "ops", v));  // every verb
  // A RoleBinding grants nothing cluster-wide, nor to another namespace's SA.
  EXPECT_FALSE(RuleSatisfied(Rule({"update"}, {"apps"}, {"deployments/status"}), "ops", "sa", "", v));
  EXPECT_FALSE(RuleSatisfied(Rule({"update"}, {"apps"}, {"deployments/status"}), "dev", "sa", "ops", v));
  // The user name of the service account is a subject too.
  c.cluster_role_bindings.push_back(
      Binding("ClusterRoleBinding", "", "ClusterRole", "wide",
              Json::array({Json{{"kind", "User"}, {"name", "system:serviceaccount:dev:sa"}}})));
  v = c.View();
  EXPECT_TRUE(RuleSatisfied(Rule({"update"}, {"apps"}, {"deployments/status"}), "dev", "sa", "", v));
}

TEST(CsvRequirements, InvalidRulesAndWhatIsNotJudged) {
  Cluster c;
  c.sas["sa"] = Json{{"metadata", {{"name", "sa"}}}};
  Json csv = Csv(
      Json::array(), Json::array(),
      Json::array({Json{{"serviceAccountName", "sa"},
                        {"rules", Json::array({Json{{"verbs", Json::array()}, {"resources", {"pods"}}}})}}}));
  csv["spec"]["minKubeVersion"] = "1.20.0";
  RequirementResult r = CheckRequirements(csv, c.View());
  ASSERT_TRUE(r.invalid.has_value());
  EXPECT_EQ(*r.invalid, "rule invalid: policy rule must have at least one verb");
  EXPECT_EQ(r.unchecked, std::vector<std::string>{"spec.minKubeVersion"});
  // Webhooks are not built: said, not passed over in silence.
  Json hooked = csv;
  hooked["spec"]["webhookdefinitions"] = Json::array({Json{{"type", "ValidatingAdmissionWebhook"}}});
  EXPECT_EQ(CheckRequirements(hooked, c.View()).not_built, std::vector<std::string>{"webhooks"});
  EXPECT_TRUE(r.not_built.empty());
  csv["spec"]["install"]["spec"]["permissions"][0]["rules"][0] =
      Json{{"verbs", {"get"}}, {"resources", {"pods"}}, {"nonResourceURLs", {"/x"}}};
  r = CheckRequirements(csv, c.View());
  ASSERT_TRUE(r.invalid.has_value());
  EXPECT_EQ(*r.invalid, "rule invalid: rule cannot apply to both regular resources and non-resource URLs");
}

}  // namespace
}  // namespace recon::olm
