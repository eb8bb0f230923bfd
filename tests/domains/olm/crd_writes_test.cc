// Every write of the olm reducer must pass the real CRDs (issue 18): a real
// subscription of the real community-derived catalog, installed at its
// oldest entry and upgraded to the head, through the simulated cluster with
// OLM's install step (cli/soak_olm.h). Each create/update/updateStatus the
// reducer emits is checked as a real kube-apiserver would take it: an update
// of a custom resource carries metadata.resourceVersion, a create carries no
// .status (it would be dropped), and the object the server would store
// admits against the real CRD (crd::Registry::Builtin) with zero field
// errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "domains/olm/reducer.h"
#include "tests/domains/olm/sim_run.h"

namespace recon::olm {
namespace {

using namespace olm_sim;  // NOLINT: the harness of this folder

TEST(OlmCrdWrites, InstallAndUpgradeOfARealPackageWritesWhatTheRealCrdsAdmit) {
  if (!std::filesystem::exists(kDerived)) FAIL() << "real catalog data not found at " << kDerived;
  auto catalog = soak::LoadSoakOlm(kDerived, cli::LoadDirectory, 1, 1);
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  ASSERT_FALSE((*catalog)->packages.empty());
  const soak::SoakOlmPackage& pkg = (*catalog)->packages.front();
  auto run = RunThroughSim(pkg, *catalog);
  ASSERT_TRUE(run.ok()) << run.status();

  // Installed at the oldest entry and upgraded: more than one plan, each
  // installing other CSVs (a step planned twice would repeat a list).
  std::set<std::string> plans;
  size_t creates = 0, plan_statuses = 0, sub_statuses = 0, step_creates = 0;
  for (const Write& w : run->writes) {
    SCOPED_TRACE(recon::StrCat(w.action.verb, " ", w.action.object.kind, " ", w.action.body.substr(0, 400)));
    const Json& meta = engine::Path(w.body, {"metadata"});
    if (w.action.verb == "create") {
      // A real server drops .status on a create: none is sent.
      EXPECT_FALSE(w.body.contains("status"));
      if (w.action.object.kind != "InstallPlan") {  // a step's object or a bundle's unpacking
        ++step_creates;
        continue;
      }
      ++creates;
      EXPECT_TRUE(
          plans.insert(engine::Dump(engine::Path(w.body, {"spec", "clusterServiceVersionNames"}))).second)
          << "the same step planned twice";
      continue;
    }
    // Every update of a CRD kind carries the resourceVersion it read.
    EXPECT_FALSE(engine::GetString(meta, {"resourceVersion"}).empty());
    ASSERT_TRUE(w.stored.is_object()) << "an update of an object the cluster does not hold";
    const Json& st = engine::Path(w.body, {"status"});
    if (w.action.object.kind == "Subscription") {
      ++sub_statuses;
      EXPECT_TRUE(st.contains("lastUpdated"));
      for (const Json& h : engine::Path(st, {"catalogHealth"}))
        for (const char* f : {"catalogSourceRef", "healthy", "lastUpdated"}) EXPECT_TRUE(h.contains(f)) << f;
      for (const Json& c : engine::Path(st, {"conditions"}))
        for (const char* f : {"type", "status"}) EXPECT_TRUE(c.contains(f)) << f;
    } else if (w.action.object.kind == "InstallPlan") {
      ++plan_statuses;
      EXPECT_TRUE(st.contains("phase"));
      EXPECT_TRUE(st.contains("catalogSources"));
      for (const Json& step : engine::Path(st, {"plan"}))
        for (const char* f : {"group", "version", "kind", "name", "sourceName", "sourceNamespace"})
          EXPECT_TRUE(engine::Path(step, {"resource"}).contains(f)) << f;
    }
  }
  EXPECT_GE(creates, 2u) << "expected an install and at least one upgrade of " << pkg.name;
  EXPECT_GE(plan_statuses, creates) << "every plan gets its status written";
  EXPECT_GE(step_creates, creates) << "every plan creates at least its CSV";
  EXPECT_GT(sub_statuses, 0u);
  // Converged at the head of the package's default channel.
  const std::string head = ChannelHead(pkg);
  EXPECT_EQ(engine::GetString(run->subscription, {"status", "installedCSV"}), head)
      << engine::Dump(run->subscription);
  EXPECT_EQ(engine::GetString(run->subscription, {"status", "state"}), "AtLatestKnown");
  ExpectEveryWriteAdmitted(*run);
}

// What a Subscription status write changed (times aside): the fields of
// upstream's namespace resolver (the CSV state, the plan reference,
// ResolutionFailed) and those of its subscription syncer (catalog health,
// the plan's conditions, deprecations).
struct Changed {
  bool resolver = false, syncer = false;
};
Changed WhatChanged(const Json& before, const Json& after) {
  Changed c;
  for (const char* f : {"state", "currentCSV", "installedCSV", "installPlanRef", "installPlanGeneration"})
    c.resolver |= engine::Path(before, {f}) != engine::Path(after, {f});
  c.syncer |= engine::Path(before, {"catalogHealth"}).size() != engine::Path(after, {"catalogHealth"}).size();
  auto conditions = [](const Json& st) {
    std::map<std::string, std::string> m;
    for (const Json& x : engine::Path(st, {"conditions"}))
      m[engine::GetString(x, {"type"})] = recon::StrCat(engine::GetString(x, {"status"}), "/",
                                                        engine::GetString(x, {"reason"}), "/",
                                                        engine::GetString(x, {"message"}));
    return m;
  };
  auto a = conditions(before), b = conditions(after);
  for (const auto* m : {&a, &b})
    for (const auto& [type, v] : *m) {
      if ((a.contains(type) ? a[type] : "") == (b.contains(type) ? b[type] : "")) continue;
      (type == "ResolutionFailed" ? c.resolver : c.syncer) = true;
    }
  return c;
}

// subscriptionWrites=split (the default): as upstream, a status write is its
// subscription syncer's or its namespace resolver's, never both at once
// (issue 49: the combined writes carried states OLM never writes). The
// combined mode's writes show the check can tell.
TEST(OlmCrdWrites, EachSubscriptionStatusWriteIsTheSyncersOrTheResolversAlone) {
  if (!std::filesystem::exists(kDerived)) FAIL() << "real catalog data not found at " << kDerived;
  auto catalog = soak::LoadSoakOlm(kDerived, cli::LoadDirectory, 1, 1);
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  ASSERT_FALSE((*catalog)->packages.empty());
  const soak::SoakOlmPackage& pkg = (*catalog)->packages.front();
  for (std::string_view mode : {"split", "combined"}) {
    SCOPED_TRACE(mode);
    auto run = RunThroughSim(pkg, *catalog, mode);
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_EQ(engine::GetString(run->subscription, {"status", "state"}), "AtLatestKnown");
    size_t syncer = 0, resolver = 0, both = 0;
    for (const Write& w : run->writes) {
      if (w.action.object.kind != "Subscription" || w.action.verb != "updateStatus") continue;
      Changed c = WhatChanged(engine::Path(w.stored, {"status"}), engine::Path(w.body, {"status"}));
      if (c.syncer && c.resolver) {
        ++both;
        if (mode == "split") ADD_FAILURE() << "one write of both writers' fields: " << w.action.body.substr(0, 600);
      } else {
        syncer += c.syncer;
        resolver += c.resolver;
      }
    }
    if (mode == "split") {
      EXPECT_GE(syncer, 2u) << "the catalog health and the plans' conditions";
      EXPECT_GE(resolver, 2u) << "an install and at least one upgrade";
    } else {
      EXPECT_GT(both, 0u);
    }
  }
}

}  // namespace
}  // namespace recon::olm
