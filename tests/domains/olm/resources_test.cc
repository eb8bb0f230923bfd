// The olm reducer declares what it watches and writes, with the verbs its
// actions need: an InstallPlan create and delete (the GC),
// Subscription/InstallPlan status writes; the rest watch-only.
#include <gtest/gtest.h>

#include <map>

#include "domains/olm/reducer.h"

namespace recon::olm {
namespace {

TEST(OlmResources, VerbsMatchTheWritesTheReducerEmits) {
  auto r = MakeReducer();
  // The cluster's OLM carries plans out and moves the CSVs.
  ASSERT_TRUE(r->SetOption("executePlans", "false").ok());
  ASSERT_TRUE(r->SetOption("csvLifecycle", "false").ok());
  std::map<std::string, engine::ResourceUse> by_plural;
  for (const auto& u : r->Describe().resources) by_plural[u.type.plural] = u;
  ASSERT_EQ(by_plural.size(), 5u);
  const std::vector<std::string> watch = {"get", "list", "watch"};
  EXPECT_EQ(by_plural["subscriptions"].verbs, watch);
  EXPECT_EQ(by_plural["subscriptions"].status_verbs, std::vector<std::string>{"update"});
  EXPECT_EQ(by_plural["installplans"].verbs,
            (std::vector<std::string>{"get", "list", "watch", "create", "delete"}));
  EXPECT_EQ(by_plural["installplans"].status_verbs, std::vector<std::string>{"update"});
  EXPECT_EQ(by_plural["operatorgroups"].verbs, (std::vector<std::string>{"get", "list", "watch", "update"}));
  EXPECT_EQ(by_plural["operatorgroups"].status_verbs, std::vector<std::string>{"update"});
  EXPECT_EQ(by_plural["catalogsources"].verbs, watch);
  // The OperatorGroup's annotations on its CSVs (olm.operatorGroup, ...).
  EXPECT_EQ(by_plural["clusterserviceversions"].verbs, (std::vector<std::string>{"get", "list", "watch", "update"}));
  for (const char* ro : {"catalogsources", "clusterserviceversions"})
    EXPECT_TRUE(by_plural[ro].status_verbs.empty()) << ro;
  EXPECT_EQ(by_plural["operatorgroups"].type.ApiVersion(), "operators.coreos.com/v1");
  EXPECT_EQ(by_plural["subscriptions"].type.ApiVersion(), "operators.coreos.com/v1alpha1");
  for (const auto& [p, u] : by_plural) EXPECT_TRUE(u.type.namespaced) << p;
}

TEST(OlmResources, ExecutingPlansCreatesAndWatchesWhatPlansInstall) {
  auto r = MakeReducer();  // executePlans is the default
  EXPECT_FALSE(r->SetOption("executePlans", "yes").ok());
  ASSERT_TRUE(r->SetOption("csvLifecycle", "false").ok());  // the catalog operator alone
  std::map<std::string, engine::ResourceUse> by_plural;
  for (const auto& u : r->Describe().resources) by_plural[u.type.plural] = u;
  EXPECT_EQ(by_plural.size(), 14u);
  const std::vector<std::string> create = {"get", "list", "watch", "create"};
  EXPECT_EQ(by_plural["jobs"].verbs, create);  // bundle unpack Jobs
  EXPECT_EQ(by_plural["subscriptions"].verbs, create);  // a dependency's Subscription step
  EXPECT_EQ(by_plural["clusterserviceversions"].verbs,
            (std::vector<std::string>{"get", "list", "watch", "create", "update"}));
  const std::vector<std::string> install = {"get", "list", "watch", "create", "update"};
  for (const char* p : {"customresourcedefinitions", "serviceaccounts", "services", "configmaps", "rolebindings",
                        "clusterrolebindings"})
    EXPECT_EQ(by_plural[p].verbs, install) << p;
  // Roles granting the operator's permissions (Kubernetes' escalation rules).
  const std::vector<std::string> roles = {"get", "list", "watch", "create", "update", "escalate", "bind"};
  for (const char* p : {"roles", "clusterroles"}) EXPECT_EQ(by_plural[p].verbs, roles) << p;
  EXPECT_FALSE(by_plural["customresourcedefinitions"].type.namespaced);
  EXPECT_FALSE(by_plural["clusterroles"].type.namespaced);
  EXPECT_TRUE(by_plural["roles"].type.namespaced);
}

// Both of OLM's operators (olm.csvLifecycle): the olm operator's writes
// too, the CSV phases, the operators' Deployments, a replaced CSV deleted,
// the OperatorConditions, OLMConfig's status, the groups' Namespace labels.
TEST(OlmResources, TheOlmOperatorWritesCsvsDeploymentsAndConditions) {
  auto r = MakeReducer();
  EXPECT_FALSE(r->SetOption("csvLifecycle", "on").ok());
  ASSERT_TRUE(r->SetOption("csvLifecycle", "true").ok());
  std::map<std::string, engine::ResourceUse> by_plural;
  for (const auto& u : r->Describe().resources) by_plural[u.type.plural] = u;
  EXPECT_EQ(by_plural["clusterserviceversions"].verbs,
            (std::vector<std::string>{"get", "list", "watch", "create", "update", "delete"}));
  EXPECT_EQ(by_plural["clusterserviceversions"].status_verbs, std::vector<std::string>{"update"});
  EXPECT_EQ(by_plural["deployments"].verbs,
            (std::vector<std::string>{"get", "list", "watch", "create", "update", "delete"}));
  EXPECT_EQ(by_plural["operatorconditions"].verbs,
            (std::vector<std::string>{"get", "list", "watch", "create", "update"}));
  EXPECT_EQ(by_plural["olmconfigs"].status_verbs, std::vector<std::string>{"update"});
  EXPECT_EQ(by_plural["namespaces"].verbs, (std::vector<std::string>{"get", "list", "watch", "update"}));
  EXPECT_FALSE(by_plural["namespaces"].type.namespaced);
}

}  // namespace
}  // namespace recon::olm
