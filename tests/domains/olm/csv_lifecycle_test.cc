// recon as OLM's olm operator too (olm.csvLifecycle): a real package of the
// real catalog installed and upgraded through the strict simulated cluster,
// which plays only what Kubernetes does (CRDs Established, Deployments
// rolled out, unpack Jobs, garbage collection): the CSV phases, copies,
// OperatorConditions and OLMConfig, the generated ClusterRoles and the
// groups' Namespace labels, each write admitted by the real CRDs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "base/strings.h"
#include "domains/olm/csv/cluster_roles.h"
#include "domains/olm/csv/component_labels.h"
#include "domains/olm/reducer.h"
#include "tests/domains/olm/sim_run.h"

namespace recon::olm {
namespace {

using namespace olm_sim;  // NOLINT: the harness of this folder

// recon alone installs and upgrades a real package (olm.csvLifecycle): the
// cluster runs only what Kubernetes runs (CRDs Established, Deployments
// rolled out, unpack Jobs); every CSV moves through its phases by recon's
// writes, its Deployment created by recon, each replaced CSV deleted.
TEST(OlmCsvLifecycle, ReconAloneInstallsAndUpgradesARealPackage) {
  if (!std::filesystem::exists(kDerived)) FAIL() << "real catalog data not found at " << kDerived;
  auto catalog = soak::LoadSoakOlm(kDerived, cli::LoadDirectory, 1, 1);
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  // Two upgrades: installed two entries below the head.
  soak::SoakOlmPackage pkg = (*catalog)->packages.front();
  pkg.start = ChannelHead(pkg, 2);
  ASSERT_FALSE(pkg.start.empty());
  auto run = RunThroughSim(pkg, *catalog, "split");
  ASSERT_TRUE(run.ok()) << run.status();
  const std::string head = ChannelHead(pkg);
  EXPECT_EQ(engine::GetString(run->subscription, {"status", "installedCSV"}), head)
      << engine::Dump(run->subscription);
  EXPECT_EQ(engine::GetString(run->subscription, {"status", "state"}), "AtLatestKnown");
  // Only the head's CSV is left, Succeeded, with recon's Deployment.
  ASSERT_EQ(run->csvs.size(), 1u);
  const Json& csv = run->csvs[0];
  EXPECT_EQ(engine::GetString(csv, {"metadata", "name"}), head);
  EXPECT_EQ(engine::GetString(csv, {"status", "phase"}), "Succeeded") << engine::Dump(csv["status"]);
  EXPECT_EQ(engine::GetString(csv, {"status", "reason"}), "InstallSucceeded");
  ASSERT_EQ(run->deployments.size(), 1u);
  const Json& d = run->deployments[0];
  EXPECT_EQ(engine::GetString(d, {"metadata", "labels", "olm.owner"}), head);
  ASSERT_EQ(engine::Path(d, {"metadata", "ownerReferences"}).size(), 1u);
  EXPECT_EQ(engine::GetString(d["metadata"]["ownerReferences"][0], {"name"}), head);
  // The phases recon wrote, in order, for the head's CSV (its CRDs
  // Established already; the second Installing waits for the Deployment's
  // rollout to be observed).
  std::vector<std::string> phases;
  size_t deployment_writes = 0;
  for (const Write& w : run->writes) {
    if (w.action.object.kind == "Deployment") ++deployment_writes;
    if (w.action.object.kind != "ClusterServiceVersion" || w.action.verb != "updateStatus" ||
        w.action.object.name != head)
      continue;
    phases.push_back(engine::GetString(w.body, {"status", "phase"}));
  }
  EXPECT_EQ(phases,
            (std::vector<std::string>{"Pending", "InstallReady", "Installing", "Installing", "Succeeded"}));
  EXPECT_GE(deployment_writes, 2u) << "the Deployment created, then updated by each CSV of the upgrade chain";
  // §B.1.6: the namespace the group targets carries the group's uid label.
  size_t uid_labels = 0;
  for (const auto& [key, value] :
       engine::Path(run->namespaces[std::string(kNs)], {"metadata", "labels"}).items())
    uid_labels += key.starts_with("olm.operatorgroup.uid/") ? 1 : 0;
  EXPECT_EQ(uid_labels, 1u) << engine::Dump(run->namespaces[std::string(kNs)]);
  // The Operator API's label (OLM's adoption controller): on the
  // Subscription, its CSV and latest plan only, the CSV's Deployment,
  // OperatorCondition and owned CRDs.
  const std::string component = recon::StrCat("operators.coreos.com/", pkg.name, ".", kNs);
  EXPECT_TRUE(HasLabel(run->subscription, component));
  EXPECT_TRUE(HasLabel(csv, component));
  EXPECT_TRUE(HasLabel(d, component));
  ASSERT_EQ(run->conditions.size(), 1u);
  EXPECT_TRUE(HasLabel(run->conditions[0], component));
  const std::string latest = engine::GetString(run->subscription, {"status", "installPlanRef", "name"});
  ASSERT_GE(run->plans.size(), 2u);
  for (const Json& ip : run->plans)
    EXPECT_EQ(HasLabel(ip, component), engine::GetString(ip, {"metadata", "name"}) == latest)
        << engine::GetString(ip, {"metadata", "name"});
  for (const Json& owned : engine::Path(csv, {"spec", "customresourcedefinitions", "owned"}))
    EXPECT_TRUE(HasLabel(run->crds[engine::GetString(owned, {"name"})], component)) << engine::Dump(owned);
  // §B.1.5: the group's roles aggregate the head's APIs; each of its owned
  // CRDs has its four per-API roles.
  const std::set<std::string> apis = CsvProvidedApis(csv);
  ASSERT_FALSE(apis.empty());
  for (const char* suffix : {"admin", "edit", "view"}) {
    const std::string name = recon::StrCat("og-", suffix);
    ASSERT_TRUE(run->cluster_roles.contains(name)) << name;
    EXPECT_EQ(engine::GetString(run->cluster_roles[name], {"metadata", "labels", "olm.owner.kind"}),
              "OperatorGroup");
    EXPECT_EQ(engine::Path(run->cluster_roles[name], {"aggregationRule", "clusterRoleSelectors"}).size(),
              apis.size());
  }
  for (const Json& d : engine::Path(csv, {"spec", "customresourcedefinitions", "owned"}))
    for (const char* suffix : {"admin", "edit", "view", "crdview"})
      EXPECT_TRUE(run->cluster_roles.contains(
          recon::StrCat(engine::GetString(d, {"name"}), "-", engine::GetString(d, {"version"}), "-", suffix)))
          << engine::GetString(d, {"name"}) << " " << suffix;
  ExpectEveryWriteAdmitted(*run);
}

// A group that targets every namespace: the CSV is copied into each other
// namespace with its status (reason Copied), and the copies of the CSVs the
// upgrade replaced are deleted with them (reference §B.5).
// With `late_answers` every write's answer comes after its watch event, as
// a real kube-apiserver may deliver them (session 31: beside one, a plan's
// CSV stayed without a phase, a group's new targets never reached its CSV,
// and a copy of a replaced CSV stayed, each sync having skipped the object
// at the echo while our write to it was on its way).
void CheckCopies(bool late_answers) {
  if (!std::filesystem::exists(kDerived)) FAIL() << "real catalog data not found at " << kDerived;
  auto catalog = soak::LoadSoakOlm(kDerived, cli::LoadDirectory, 1, 1);
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  soak::SoakOlmPackage pkg = (*catalog)->packages.front();
  pkg.start = ChannelHead(pkg, 2);
  auto run = RunThroughSim(pkg, *catalog, "split", {"team-a", "team-b"}, [&](sim::Scenario& sc) {
    if (!late_answers) return;
    sc.latency.watch_ns = 1'000'000;
    sc.latency.api_ns = 3'000'000;
  });
  ASSERT_TRUE(run.ok()) << run.status();
  const std::string head = ChannelHead(pkg);
  ASSERT_EQ(run->csvs.size(), 1u);
  EXPECT_EQ(engine::GetString(run->csvs[0], {"status", "phase"}), "Succeeded")
      << engine::Dump(run->csvs[0]["status"]);
  std::vector<std::string> where;
  for (const Json& copy : run->copies) {
    where.push_back(engine::GetString(copy, {"metadata", "namespace"}));
    EXPECT_EQ(engine::GetString(copy, {"metadata", "name"}), head);
    EXPECT_EQ(engine::GetString(copy, {"metadata", "labels", "olm.copiedFrom"}), kNs);
    EXPECT_EQ(engine::GetString(copy, {"status", "phase"}), "Succeeded");
    EXPECT_EQ(engine::GetString(copy, {"status", "reason"}), "Copied");
    EXPECT_EQ(engine::GetString(copy, {"status", "message"}),
              recon::StrCat("The operator is running in ", kNs, " but is managing this namespace"));
    EXPECT_FALSE(engine::Path(copy, {"metadata", "annotations", "olm.targetNamespaces"}).is_string());
  }
  EXPECT_EQ(where, (std::vector<std::string>{"team-a", "team-b"}));
  // An all-namespaces group labels no namespace (§B.1.6).
  for (const auto& [name, ns] : run->namespaces)
    EXPECT_FALSE(engine::Dump(ns).find("olm.operatorgroup.uid/") != std::string::npos) << name;
  // Every CSV of the chain was copied, and every replaced one's copies deleted.
  std::set<std::string> copied;
  for (const Write& w : run->writes)
    if (w.action.verb == "create" && w.action.object.kind == "ClusterServiceVersion" &&
        w.action.object.ns != kNs)
      copied.insert(w.action.object.name);
  EXPECT_EQ(copied.size(), 3u);
  // The operator's Role and RoleBinding grant only in its namespace: each
  // is lifted to a ClusterRole (reading namespaces too) and a
  // ClusterRoleBinding (§B.1.5), which go with their CSV (§B.7): what is
  // left is the head's.
  size_t lifted = 0;
  for (const Write& w : run->writes)
    lifted += w.action.verb == "create" && w.action.object.kind == "ClusterRoleBinding";
  EXPECT_GE(lifted, 2u) << "the head's, and an older CSV's before it was replaced";
  std::set<std::string> owners;
  for (const auto& [name, crb] : run->cluster_role_bindings) {
    owners.insert(engine::GetString(crb, {"metadata", "labels", "olm.owner"}));
    const Json* cr = run->cluster_roles.contains(name) ? &run->cluster_roles.at(name) : nullptr;
    ASSERT_NE(cr, nullptr) << name;
    EXPECT_EQ(engine::Dump(engine::Path(*cr, {"rules"}).back()),
              R"({"verbs":["get","list","watch"],"apiGroups":[""],"resources":["namespaces"]})");
  }
  EXPECT_EQ(owners, std::set<std::string>{head});
  ExpectEveryWriteAdmitted(*run);
}

TEST(OlmCsvLifecycle, CopiesFollowTheirCsvIntoEveryTargetAndGoWithIt) { CheckCopies(false); }

// A group of the operator's namespace that targets another one
// (SingleNamespace): the CSV is copied there, and since its permissions
// are not granted there, its Role and RoleBinding are copied too, owned by
// the copy (tenant RBAC, §B.1.5); the replaced CSVs' go with their copies.
TEST(OlmCsvLifecycle, ATargetNamespaceGetsTheOperatorsRbacOwnedByTheCopy) {
  if (!std::filesystem::exists(kDerived)) FAIL() << "real catalog data not found at " << kDerived;
  auto catalog = soak::LoadSoakOlm(kDerived, cli::LoadDirectory, 1, 1);
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  soak::SoakOlmPackage pkg = (*catalog)->packages.front();
  pkg.start = ChannelHead(pkg, 1);
  auto run = RunThroughSim(pkg, *catalog, "split", {"team-a"}, [&](sim::Scenario& sc) {
    for (Json& o : sc.objects)
      if (engine::GetString(o, {"kind"}) == "OperatorGroup")
        o["spec"] = Json{{"targetNamespaces", {"team-a"}}};
  });
  ASSERT_TRUE(run.ok()) << run.status();
  const std::string head = ChannelHead(pkg);
  ASSERT_EQ(run->csvs.size(), 1u);
  EXPECT_EQ(engine::GetString(run->csvs[0], {"status", "phase"}), "Succeeded")
      << engine::Dump(run->csvs[0]["status"]);
  ASSERT_EQ(run->copies.size(), 1u);
  const Json& copy = run->copies[0];
  EXPECT_EQ(engine::GetString(copy, {"metadata", "namespace"}), "team-a");
  std::set<std::string> kinds;
  for (const auto& [key, obj] : run->other_rbac) {
    if (!key.starts_with("team-a/")) continue;
    kinds.insert(engine::GetString(obj, {"kind"}));
    EXPECT_EQ(engine::GetString(obj, {"metadata", "labels", "olm.copiedFrom"}), kNs) << key;
    EXPECT_EQ(engine::GetString(obj, {"metadata", "labels", "olm.owner"}), head) << key;
    EXPECT_EQ(engine::GetString(obj, {"metadata", "labels", "olm.owner.namespace"}), "team-a") << key;
    const Json& refs = engine::Path(obj, {"metadata", "ownerReferences"});
    ASSERT_EQ(refs.size(), 1u) << key;
    EXPECT_EQ(engine::GetString(refs[0], {"uid"}), engine::GetString(copy, {"metadata", "uid"})) << key;
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"Role", "RoleBinding"}));
  ExpectEveryWriteAdmitted(*run);
}

TEST(OlmCsvLifecycle, CopiesFollowTheirCsvAndGoWithItWhenAnswersComeAfterTheirEchoes) { CheckCopies(true); }

// §B.6: the installed CSV's OperatorCondition says Upgradeable=False. The
// plan completes and the next CSV is created, but it is held Pending
// (OperatorConditionNotUpgradeable, upstream's message) until the operator
// reports Upgradeable=True an hour later; then the upgrade goes on. Each
// CSV gets its OperatorCondition, Role and RoleBinding from recon; the
// replaced one's go with it (Kubernetes' garbage collector, the cluster's).
TEST(OlmCsvLifecycle, AnOperatorConditionHoldsTheUpgradeUntilItSaysUpgradeable) {
  if (!std::filesystem::exists(kDerived)) FAIL() << "real catalog data not found at " << kDerived;
  auto catalog = soak::LoadSoakOlm(kDerived, cli::LoadDirectory, 1, 1);
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  soak::SoakOlmPackage pkg = (*catalog)->packages.front();
  pkg.start = ChannelHead(pkg, 1);
  const std::string head = ChannelHead(pkg);
  ASSERT_FALSE(pkg.start.empty());
  constexpr int64_t kRelease = 3600'000'000'000;  // from the start
  auto upgradeable = [](std::string_view status, std::string_view message) {
    return Json::array({Json{{"type", "Upgradeable"},
                             {"status", status},
                             {"reason", status == "True" ? "Ready" : "Migrating"},
                             {"message", message},
                             {"lastTransitionTime", "2027-01-15T08:00:00Z"}}});
  };
  auto run = RunThroughSim(pkg, *catalog, "split", {}, [&](sim::Scenario& sc) {
    // The operator's condition, set before its CSV exists (the generator
    // then makes the CSV its owner).
    sc.objects.push_back(Json{{"apiVersion", "operators.coreos.com/v2"},
                              {"kind", "OperatorCondition"},
                              {"metadata", {{"name", pkg.start}, {"namespace", kNs}}},
                              {"spec", {{"conditions", upgradeable("False", "migrating data")}}}});
    sim::Edit release;
    release.at_ns = kRelease;
    release.op = sim::Edit::Op::kSet;
    release.object = Json{{"apiVersion", "operators.coreos.com/v2"},
                          {"kind", "OperatorCondition"},
                          {"namespace", kNs},
                          {"name", pkg.start}};
    release.path = "spec.conditions";
    release.value = upgradeable("True", "done");
    sc.edits.push_back(std::move(release));
  });
  ASSERT_TRUE(run.ok()) << run.status();
  const int64_t start = 1'800'000'000'000'000'000;
  bool held = false;
  std::vector<std::string> head_phases;
  for (const Write& w : run->writes) {
    if (w.action.object.kind != "ClusterServiceVersion" || w.action.verb != "updateStatus" ||
        w.action.object.name != head)
      continue;
    const std::string phase = engine::GetString(w.body, {"status", "phase"});
    head_phases.push_back(phase);
    if (engine::GetString(w.body, {"status", "reason"}) == "OperatorConditionNotUpgradeable") {
      // At the release the condition is outdated until recon's reconciler
      // writes its status for the new generation (upstream's gate reads it
      // the same way).
      if (w.at < start + kRelease) {
        held = true;
        EXPECT_EQ(engine::GetString(w.body, {"status", "message"}),
                  "operator is not upgradeable: the operator is not upgradeable: migrating data");
      } else {
        EXPECT_EQ(
            engine::GetString(w.body, {"status", "message"}),
            R"(operator is not upgradeable: the operatorcondition status "Upgradeable"="False" is outdated)");
      }
    }
    if (phase == "InstallReady") {
      EXPECT_GE(w.at, start + kRelease) << "installed before the release";
    }
  }
  EXPECT_TRUE(held) << "the head's CSV was never held";
  EXPECT_EQ(head_phases.back(), "Succeeded");
  EXPECT_EQ(engine::GetString(run->subscription, {"status", "installedCSV"}), head);
  ASSERT_EQ(run->csvs.size(), 1u);
  // One OperatorCondition left, the head's, controlled by its CSV.
  ASSERT_EQ(run->conditions.size(), 1u);
  const Json& oc = run->conditions[0];
  EXPECT_EQ(engine::GetString(oc, {"metadata", "name"}), head);
  ASSERT_EQ(engine::Path(oc, {"metadata", "ownerReferences"}).size(), 1u);
  EXPECT_EQ(engine::GetString(oc["metadata"]["ownerReferences"][0], {"name"}), head);
  EXPECT_EQ(engine::GetString(oc["metadata"]["ownerReferences"][0], {"uid"}),
            engine::GetString(run->csvs[0], {"metadata", "uid"}));
  EXPECT_TRUE(run->rbac.contains("Role/" + head));
  EXPECT_TRUE(run->rbac.contains("RoleBinding/" + head));
  EXPECT_FALSE(run->rbac.contains("Role/" + pkg.start));
  // The first CSV's status conditions followed its spec each generation:
  // as created, after the generator made the CSV its owner, after the release.
  size_t condition_statuses = 0;
  for (const Write& w : run->writes)
    if (w.action.object.kind == "OperatorCondition" && w.action.verb == "updateStatus" &&
        w.action.object.name == pkg.start)
      ++condition_statuses;
  EXPECT_EQ(condition_statuses, 3u);
  ExpectEveryWriteAdmitted(*run);
}

// §B.5.3: OLMConfig cluster disables copied CSVs, team-a is protected: the
// all-namespaces operator's CSV is copied into team-a only, and the
// OLMConfig's condition says no unexpected copy was found. Enabled again an
// hour later: the copy comes into team-b too, and the condition turns.
TEST(OlmCsvLifecycle, OlmConfigDisablesCopiesButInProtectedNamespaces) {
  if (!std::filesystem::exists(kDerived)) FAIL() << "real catalog data not found at " << kDerived;
  auto catalog = soak::LoadSoakOlm(kDerived, cli::LoadDirectory, 1, 1);
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  soak::SoakOlmPackage pkg = (*catalog)->packages.front();
  pkg.start = ChannelHead(pkg);
  constexpr int64_t kEnable = 3600'000'000'000;  // from the start
  const Json cfg = {{"apiVersion", "operators.coreos.com/v1"}, {"kind", "OLMConfig"}, {"name", "cluster"}};
  auto run = RunThroughSim(pkg, *catalog, "split", {"team-a", "team-b"}, [&](sim::Scenario& sc) {
    sc.options.emplace_back("olm.protectedCopiedCSVNamespaces", "team-a");
    sc.objects.push_back(Json{{"apiVersion", "operators.coreos.com/v1"},
                              {"kind", "OLMConfig"},
                              {"metadata", {{"name", "cluster"}}},
                              {"spec", {{"features", {{"disableCopiedCSVs", true}}}}}});
    sc.edits.push_back(
        sim::Edit{kEnable, sim::Edit::Op::kSet, cfg, "spec.features.disableCopiedCSVs", false});
  });
  ASSERT_TRUE(run.ok()) << run.status();
  const int64_t start = 1'800'000'000'000'000'000;
  std::vector<std::string> copied, conditions;
  for (const Write& w : run->writes) {
    if (w.action.verb == "create" && w.action.object.kind == "ClusterServiceVersion" &&
        w.action.object.ns != kNs)
      copied.push_back(recon::StrCat(w.action.object.ns, w.at < start + kEnable ? " disabled" : " enabled"));
    if (w.action.object.kind == "OLMConfig")
      conditions.push_back(recon::StrCat(engine::GetString(w.body["status"]["conditions"][0], {"status"}),
                                         "/",
                                         engine::GetString(w.body["status"]["conditions"][0], {"reason"}),
                                         w.at < start + kEnable ? " disabled" : " enabled"));
  }
  EXPECT_EQ(copied, (std::vector<std::string>{"team-a disabled", "team-b enabled"}));
  ASSERT_FALSE(conditions.empty());
  EXPECT_EQ(conditions.back(), "False/CopiedCSVsEnabled enabled");
  EXPECT_NE(std::find(conditions.begin(), conditions.end(), "True/CopiedCSVsDisabled disabled"),
            conditions.end());
  EXPECT_EQ(engine::GetString(run->olm_config["status"]["conditions"][0], {"message"}),
            "Copied CSVs are enabled and present across the cluster");
  EXPECT_EQ(run->copies.size(), 2u);
  ExpectEveryWriteAdmitted(*run);
}

}  // namespace
}  // namespace recon::olm
