// The real CRDs shipped in the binary (crd/data/): every one loads and
// compiles (schemas and CEL rules), and real objects are admitted the way a
// real kube-apiserver admits them.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "crd/registry.h"
#include "engine/json.h"

namespace recon::crd {
namespace {

const Registry& Builtin() {
  static const Registry* r = [] {
    auto b = Registry::Builtin();
    EXPECT_TRUE(b.ok()) << b.status();
    return new Registry(b.ok() ? std::move(*b) : Registry());
  }();
  return *r;
}

std::vector<std::string> Admit(std::string_view group, std::string_view version, std::string_view kind,
                               Json& obj, const Json* old = nullptr) {
  const Kind* k = Builtin().Find(group, version, kind);
  EXPECT_NE(k, nullptr) << kind;
  if (k == nullptr) return {"no kind"};
  std::vector<std::string> out;
  for (const auto& e : Builtin().Admit(*k, obj, old)) out.push_back(e.ToString());
  return out;
}

Json Parse(std::string_view text) {
  auto j = engine::ParseJson(text);
  EXPECT_TRUE(j.ok()) << text;
  return j.ok() ? *j : Json();
}

TEST(CrdBuiltin, EveryRealCrdLoads) {
  std::set<std::string> kinds;
  for (const Kind* k : Builtin().kinds()) kinds.insert(k->kind + "." + k->group + "/" + k->version);
  for (const char* want :
       {"Subscription.operators.coreos.com/v1alpha1", "ClusterServiceVersion.operators.coreos.com/v1alpha1",
        "CatalogSource.operators.coreos.com/v1alpha1", "InstallPlan.operators.coreos.com/v1alpha1",
        "OperatorGroup.operators.coreos.com/v1", "OperatorCondition.operators.coreos.com/v2",
        "ClusterOperator.config.openshift.io/v1", "Image.config.openshift.io/v1",
        "Proxy.config.openshift.io/v1", "Config.samples.operator.openshift.io/v1",
        "Cluster.aro.openshift.io/v1alpha1", "DisconnectedFriendlyApp.tools.opdev.io/v1alpha1"}) {
    EXPECT_TRUE(kinds.count(want)) << want;
  }
  const Kind* co = Builtin().FindByPlural("config.openshift.io", "v1", "clusteroperators");
  ASSERT_NE(co, nullptr);
  EXPECT_FALSE(co->namespaced);
  EXPECT_TRUE(co->status_subresource);
}

TEST(CrdBuiltin, SubscriptionCatalogHealthNeedsLastUpdated) {
  Json sub = Parse(R"({"apiVersion":"operators.coreos.com/v1alpha1","kind":"Subscription",
    "metadata":{"name":"etcd","namespace":"operators"},
    "spec":{"name":"etcd","source":"community","sourceNamespace":"olm","channel":"alpha"},
    "status":{"lastUpdated":"2024-05-01T10:00:00Z","catalogHealth":[
      {"catalogSourceRef":{"kind":"CatalogSource","name":"community","namespace":"olm"},"healthy":true}]}})");
  EXPECT_EQ(Admit("operators.coreos.com", "v1alpha1", "Subscription", sub),
            std::vector<std::string>{"status.catalogHealth[0].lastUpdated: Required value"});
  sub["status"]["catalogHealth"][0]["lastUpdated"] = "2024-05-01T10:00:00Z";
  EXPECT_TRUE(Admit("operators.coreos.com", "v1alpha1", "Subscription", sub).empty());
  sub["status"]["lastUpdated"] = "May 1st";
  EXPECT_EQ(
      Admit("operators.coreos.com", "v1alpha1", "Subscription", sub),
      std::vector<std::string>{"status.lastUpdated: Invalid value: \"May 1st\": status.lastUpdated in body "
                               "must be of type date-time: \"May 1st\""});
}

TEST(CrdBuiltin, ClusterOperatorWithoutSpec) {
  Json co =
      Parse(R"({"apiVersion":"config.openshift.io/v1","kind":"ClusterOperator","metadata":{"name":"x"}})");
  EXPECT_EQ(Admit("config.openshift.io", "v1", "ClusterOperator", co),
            std::vector<std::string>{"spec: Required value"});
}

TEST(CrdBuiltin, ImagesConfigRuleAllowedVersusBlockedRegistries) {
  Json image = Parse(R"({"apiVersion":"config.openshift.io/v1","kind":"Image","metadata":{"name":"cluster"},
    "spec":{"registrySources":{"allowedRegistries":["quay.io"],"blockedRegistries":["docker.io"]}}})");
  EXPECT_EQ(Admit("config.openshift.io", "v1", "Image", image),
            std::vector<std::string>{"spec.registrySources: Invalid value: \"object\": Only one of "
                                     "blockedRegistries or allowedRegistries may be set"});
  image["spec"]["registrySources"].erase("blockedRegistries");
  EXPECT_TRUE(Admit("config.openshift.io", "v1", "Image", image).empty());
  // The item rule (matches) on each registry.
  image["spec"]["registrySources"]["allowedRegistries"] = {"quay.io:443/org", "bad registry"};
  EXPECT_EQ(
      Admit("config.openshift.io", "v1", "Image", image),
      std::vector<std::string>{"spec.registrySources.allowedRegistries[1]: Invalid value: \"string\": each "
                               "registry must be a valid hostname[:port][/path] or wildcard *.hostname "
                               "format without tags or digests"});
}

TEST(CrdBuiltin, PruningDropsAnUndeclaredDisconnectedFriendlyAppStatusField) {
  Json app = Parse(R"({"apiVersion":"tools.opdev.io/v1alpha1","kind":"DisconnectedFriendlyApp",
    "metadata":{"name":"app","namespace":"demo"},"spec":{},
    "status":{"busyBoxImage":"quay.io/b:1","relatedImagesDigest":"sha256:00"}})");
  EXPECT_TRUE(Admit("tools.opdev.io", "v1alpha1", "DisconnectedFriendlyApp", app).empty());
  EXPECT_EQ(app["status"], Parse(R"({"busyBoxImage":"quay.io/b:1"})"));
}

TEST(CrdBuiltin, OperatorGroupSpecDefaults) {
  // operator-framework/api: spec defaults to {upgradeStrategy: Default}.
  Json og = Parse(R"({"apiVersion":"operators.coreos.com/v1","kind":"OperatorGroup",
    "metadata":{"name":"og","namespace":"demo"}})");
  EXPECT_TRUE(Admit("operators.coreos.com", "v1", "OperatorGroup", og).empty());
  EXPECT_EQ(og["spec"], Parse(R"({"upgradeStrategy":"Default"})"));
  og["spec"]["upgradeStrategy"] = "Sometimes";
  EXPECT_EQ(
      Admit("operators.coreos.com", "v1", "OperatorGroup", og),
      std::vector<std::string>{"spec.upgradeStrategy: Unsupported value: \"Sometimes\": supported values: "
                               "\"Default\", \"TechPreviewUnsafeFailForward\""});
}

TEST(CrdBuiltin, CsvReleaseVersionRules) {
  // operator-framework/api CSV spec.release: dot-separated identifiers, no leading zeros.
  Json csv = Parse(R"({"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion",
    "metadata":{"name":"x.v1.0.0","namespace":"demo"},
    "spec":{"displayName":"x","install":{"strategy":"deployment"},"release":"1.02"}})");
  auto errs = Admit("operators.coreos.com", "v1alpha1", "ClusterServiceVersion", csv);
  bool found = false;
  for (const auto& e : errs)
    found =
        found || e == "spec.release: Invalid value: \"string\": numeric identifiers in release version must "
                      "not have leading zeros";
  EXPECT_TRUE(found) << ::testing::PrintToString(errs);
}

}  // namespace
}  // namespace recon::crd
