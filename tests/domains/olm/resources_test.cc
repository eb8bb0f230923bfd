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
  for (const char* ro : {"catalogsources", "clusterserviceversions"}) {
    EXPECT_EQ(by_plural[ro].verbs, watch) << ro;
    EXPECT_TRUE(by_plural[ro].status_verbs.empty()) << ro;
  }
  EXPECT_EQ(by_plural["operatorgroups"].type.ApiVersion(), "operators.coreos.com/v1");
  EXPECT_EQ(by_plural["subscriptions"].type.ApiVersion(), "operators.coreos.com/v1alpha1");
  for (const auto& [p, u] : by_plural) EXPECT_TRUE(u.type.namespaced) << p;
}

}  // namespace
}  // namespace recon::olm
