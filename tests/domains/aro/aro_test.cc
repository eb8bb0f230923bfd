#include <gtest/gtest.h>

#include "domains/aro/cluster_operator.h"
#include "domains/aro/common.h"
#include "domains/aro/conditions.h"
#include "domains/aro/flags.h"
#include "domains/aro/nsg_rules.h"
#include "domains/aro/options.h"
#include "domains/aro/sp_checker.h"
#include "domains/aro/subnet_discovery.h"

namespace recon::aro {
namespace {

Json ClusterWithFlags(Json flags) {
  Json c = {{"spec", Json::object()}};
  if (!flags.is_null()) c["spec"]["operatorflags"] = flags;
  return c;
}

TEST(Flags, TrueInAnyCaseOnly) {
  Flags f = Flags::FromCluster(
      ClusterWithFlags({{"a", "TRUE"}, {"b", "yes"}, {"c", "1"}, {"d", ""}, {"e", "true"}}));
  EXPECT_TRUE(f.Enabled("a"));
  EXPECT_FALSE(f.Enabled("b"));
  EXPECT_FALSE(f.Enabled("c"));
  EXPECT_FALSE(f.Enabled("d"));
  EXPECT_TRUE(f.Enabled("e"));
  EXPECT_FALSE(f.Enabled("missing"));
  EXPECT_EQ(f.GetWithDefault("d", "x"), "");
  EXPECT_EQ(f.GetWithDefault("missing", "x"), "x");
}

TEST(Flags, DefaultsOnlyWhenMapAbsent) {
  EXPECT_TRUE(Flags::FromCluster(ClusterWithFlags(nullptr)).Enabled(kFlagSubnetsEnabled));
  EXPECT_FALSE(Flags::FromCluster(ClusterWithFlags(Json::object())).Enabled(kFlagSubnetsEnabled));
}

TEST(Backoff, DoublesFrom5msCappedAt1000s) {
  EXPECT_EQ(BackoffNs(0), 5'000'000);
  EXPECT_EQ(BackoffNs(1), 10'000'000);
  EXPECT_EQ(BackoffNs(10), 5'120'000'000);
  EXPECT_EQ(BackoffNs(30), 1000 * kSecond);
  EXPECT_EQ(BackoffNs(1000), 1000 * kSecond);
}

TEST(Conditions, CheckerKeepsLttWhileStatusUnchanged) {
  std::vector<Condition> conds;
  EXPECT_TRUE(MergeChecker(conds, {"X", "True", "", "CheckDone", "ok"}, "t1"));
  EXPECT_FALSE(MergeChecker(conds, {"X", "True", "ignored", "CheckDone", "ok"}, "t2"));
  EXPECT_EQ(conds[0].last_transition_time, "t1");
  EXPECT_TRUE(MergeChecker(conds, {"X", "True", "", "CheckDone", "other"}, "t3"));
  EXPECT_EQ(conds[0].last_transition_time, "t1");
  EXPECT_TRUE(MergeChecker(conds, {"X", "False", "", "CheckFailed", "bad"}, "t4"));
  EXPECT_EQ(conds[0].last_transition_time, "t4");
}

TEST(Conditions, PrunesUnknownTypes) {
  std::vector<Condition> conds = {{"InternetReachableFromMaster", "True", "", "", ""},
                                  {"Retired", "True", "", "", ""},
                                  {"FooControllerDegraded", "False", "", "", ""}};
  std::vector<std::string> removed;
  EXPECT_TRUE(PruneUnknown(conds, &removed));
  ASSERT_EQ(conds.size(), 2u);
  EXPECT_EQ(removed, std::vector<std::string>{"Retired"});
}

TEST(Union, AvailableAndProgressing) {
  std::vector<Condition> conds = {{"BControllerAvailable", "False", "t2", "SomeError", "boom"},
                                  {"AControllerAvailable", "True", "t1", "", ""},
                                  {"AControllerProgressing", "False", "t1", "", ""}};
  Condition a = UnionCondition(conds, "Available", "Available", kTrue);
  EXPECT_EQ(a.status, "False");
  EXPECT_EQ(a.reason, "BController_SomeError");
  EXPECT_EQ(a.message, "BControllerAvailable: boom");
  Condition p = UnionCondition(conds, "Progressing", "Progressing", kFalse);
  EXPECT_EQ(p.status, "False");
  EXPECT_EQ(p.reason, "AsExpected");
  EXPECT_EQ(p.message, "All is well");
  Condition none = UnionCondition({}, "Available", "Available", kTrue);
  EXPECT_EQ(none.status, "Unknown");
  EXPECT_EQ(none.reason, "NoData");
}

TEST(Subnets, ExpectedNsgNames) {
  Json spec = {{"clusterResourceGroupId", "/subscriptions/s/resourceGroups/rg"}, {"infraId", "c1"}};
  std::string prefix =
      "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/networkSecurityGroups/";
  EXPECT_EQ(*ExpectedNsgId(spec, true), prefix + "c1-controlplane-nsg");
  EXPECT_EQ(*ExpectedNsgId(spec, false), prefix + "c1-node-nsg");
  spec["architectureVersion"] = 1;
  EXPECT_EQ(*ExpectedNsgId(spec, true), prefix + "c1-nsg");
  spec["architectureVersion"] = 7;
  EXPECT_EQ(ExpectedNsgId(spec, true).status().message(), "unknown architecture version 7");
}

TEST(Subnets, SubscriptionOf) {
  EXPECT_EQ(*SubscriptionOf("/subscriptions/abc/resourceGroups/rg"), "abc");
  EXPECT_FALSE(SubscriptionOf("garbage").ok());
}

// The older upstream check (aro.servicePrincipalCheck=clusterSecret).
TEST(ServicePrincipal, TriState) {
  EXPECT_EQ(ServicePrincipalCondition(true, "", R"({"roles":["User.Read"]})", false).status, "True");
  EXPECT_EQ(ServicePrincipalCondition(false, "x AADSTS7000215 y", "", false).status, "False");
  EXPECT_EQ(ServicePrincipalCondition(false, "AADSTS700016", "", false).reason, "Service Principal invalid");
  Condition other = ServicePrincipalCondition(false, "timeout", "", false);
  EXPECT_EQ(other.status, "Unknown");
  EXPECT_EQ(other.message, "Unable to validate: timeout");
  EXPECT_EQ(
      ServicePrincipalCondition(true, "", R"({"roles":["Application.ReadWrite.OwnedBy"]})", false).status,
      "Unknown");
}

// ARO-RP bf96a7527b's controller: any error is False/CheckFailed with its text.
TEST(ServicePrincipal, DefaultCredentialCheckFailsOnAnyError) {
  Condition ok = ServicePrincipalCondition(true, "", R"({"roles":["User.Read"]})", true);
  EXPECT_EQ(ok.status, "True");
  EXPECT_EQ(ok.reason, "CheckDone");
  EXPECT_EQ(ok.message, "service principal is valid");
  for (std::string_view detail : {"timeout", "x AADSTS7000215 y"}) {
    Condition c = ServicePrincipalCondition(false, detail, "", true);
    EXPECT_EQ(c.status, "False");
    EXPECT_EQ(c.reason, "CheckFailed");
    EXPECT_EQ(c.message, detail);
  }
  Condition owned =
      ServicePrincipalCondition(true, "", R"({"roles":["Application.ReadWrite.OwnedBy"]})", true);
  EXPECT_EQ(owned.status, "False");
  EXPECT_EQ(
      owned.message,
      "400: InvalidServicePrincipalCredentials: properties.servicePrincipalProfile: The provided service "
      "principal must not have the Application.ReadWrite.OwnedBy permission.");
}

TEST(NsgRules, RestoresOnlyApiServerRule) {
  Json nsg = {
      {"spec", {{"securityRules", Json::array({{{"name", "lb"}, {"properties", {{"priority", 500}}}}})}}}};
  std::string drift;
  auto fixed = RestoreDefaultRules(nsg, true, &drift);
  ASSERT_TRUE(fixed.has_value());
  EXPECT_EQ(drift, "apiserver_in missing");
  EXPECT_EQ((*fixed)["spec"]["securityRules"].size(), 2u);
  EXPECT_FALSE(RestoreDefaultRules(*fixed, true, &drift).has_value());
  EXPECT_FALSE(RestoreDefaultRules(nsg, false, &drift).has_value());
}

TEST(Options, Validation) {
  Options o;
  EXPECT_TRUE(o.Set("role", "worker").ok());
  EXPECT_FALSE(o.Set("role", "infra").ok());
  EXPECT_TRUE(o.Set("subnetsInterval", "30m").ok());
  EXPECT_EQ(o.subnets_interval_ns, 30 * 60 * kSecond);
  EXPECT_FALSE(o.Set("subnetsInterval", "0s").ok());
  EXPECT_FALSE(o.Set("restoreDefaultNsgRules", "yes").ok());
  EXPECT_FALSE(o.Set("nope", "1").ok());
}

TEST(Time, Rfc1123) { EXPECT_EQ(FormatRfc1123(0), "Thu, 01 Jan 1970 00:00:00 UTC"); }

}  // namespace
}  // namespace recon::aro
