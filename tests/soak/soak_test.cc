// recon soak (soak/): the workload is a pure function of its options,
// the normalization keeps what matters, and the server's duplicate counters
// notice a repeated action. The small end-to-end runs: soak_run_test.cc.
#include "soak/soak.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <vector>

#include "base/strings.h"
#include "cli/domains.h"
#include "domains/olm/resolve/catalog_index.h"
#include "engine/json.h"
#include "soak/aro.h"
#include "soak/normalize.h"

namespace recon::soak {
namespace {

namespace fs = std::filesystem;

const char* kSmallInventory = RECON_SOURCE_DIR "/examples/samples-inventory";
const char* kOlmCatalog = RECON_SOURCE_DIR "/datasets/olm/community-derived";

TEST(SoakWorkload, SameOptionsSameScenarioOtherSeedOtherEdits) {
  WorkloadOptions o;
  o.instances = 10;
  o.edits = 50;
  auto a = BuildSoakScenario(o), b = BuildSoakScenario(o);
  ASSERT_EQ(a.edits.size(), b.edits.size());
  ASSERT_GE(a.edits.size(), 50u);
  for (size_t i = 0; i < a.edits.size(); ++i) {
    EXPECT_EQ(a.edits[i].at_ns, b.edits[i].at_ns);
    EXPECT_EQ(engine::Dump(a.edits[i].object), engine::Dump(b.edits[i].object));
    EXPECT_EQ(engine::Dump(a.edits[i].value), engine::Dump(b.edits[i].value));
  }
  EXPECT_EQ(a.objects.size(), 11u);  // the operator Deployment and 10 instances
  o.seed = 2;
  auto c = BuildSoakScenario(o);
  std::string ea, ec;
  for (const auto& e : a.edits) ea += engine::Dump(e.object);
  for (const auto& e : c.edits) ec += engine::Dump(e.object);
  EXPECT_NE(ea, ec);
}

TEST(SoakWorkload, SamplesFlipsOnlyWithAnInventory) {
  WorkloadOptions o;
  o.instances = 4;
  o.edits = 40;
  o.samples_every = 10;
  auto count = [](const sim::Scenario& s) {
    int n = 0;
    for (const auto& e : s.edits) n += engine::GetString(e.object, {"kind"}) == "Config";
    return n;
  };
  EXPECT_EQ(count(BuildSoakScenario(o)), 0);
  o.samples_inventory = "inv";
  // Removed, Managed, Removed, Managed (it ends Managed), 8 registry edits
  // (no names to skip) and the override removed at the end when one is left.
  int n = count(BuildSoakScenario(o));
  EXPECT_GE(n, 12);
  EXPECT_LE(n, 13);
}

// The samples Config edits of a scenario by path, in the order they apply,
// and the spec they leave.
struct SamplesEdits {
  std::map<std::string, int> during;  // edits inside the workload, by path
  std::map<std::string, engine::Json> last;
  std::vector<std::string> bad;  // skip-list names not in the inventory
};

SamplesEdits SamplesEditsOf(const sim::Scenario& s, const WorkloadOptions& o) {
  SamplesEdits out;
  std::vector<const sim::Edit*> edits;
  for (const auto& e : s.edits)
    if (engine::GetString(e.object, {"kind"}) == "Config") edits.push_back(&e);
  std::stable_sort(edits.begin(), edits.end(), [](auto* a, auto* b) { return a->at_ns < b->at_ns; });
  for (const auto* e : edits) {
    if (e->at_ns <= o.edits * o.spacing_ns) ++out.during[e->path];
    out.last[e->path] = e->value;
    const auto& names = e->path == "spec.skippedImagestreams" ? o.samples_imagestreams : o.samples_templates;
    if (e->path == "spec.skippedImagestreams" || e->path == "spec.skippedTemplates") {
      for (const auto& v : e->value)
        if (std::find(names.begin(), names.end(), v.get<std::string>()) == names.end())
          out.bad.push_back(v.get<std::string>());
    }
  }
  return out;
}

TEST(SoakWorkload, SamplesSpecEditsSkipAndOverrideThenEndAtTheDefaults) {
  WorkloadOptions o;
  o.instances = 4;
  o.edits = 40;
  o.samples_every = 10;
  o.samples_inventory = "inv";
  o.samples_imagestreams = {"httpd", "nodejs", "perl", "ruby"};
  o.samples_templates = {"cakephp-mysql-example", "rails-postgresql-example"};
  std::map<std::string, int> total;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    o.seed = seed;
    auto scenario = BuildSoakScenario(o);
    auto again = BuildSoakScenario(o);  // a pure function of the options
    ASSERT_EQ(scenario.edits.size(), again.edits.size());
    for (size_t i = 0; i < scenario.edits.size(); ++i) {
      EXPECT_EQ(scenario.edits[i].at_ns, again.edits[i].at_ns);
      EXPECT_EQ(scenario.edits[i].path, again.edits[i].path);
      EXPECT_EQ(engine::Dump(scenario.edits[i].value), engine::Dump(again.edits[i].value));
    }
    auto got = SamplesEditsOf(scenario, o);
    // Per 10 edits: a flip at 5, spec edits at 2 and 7.
    EXPECT_EQ(got.during["spec.managementState"], 4) << seed;
    EXPECT_EQ(got.during["spec.skippedImagestreams"] + got.during["spec.skippedTemplates"] +
                  got.during["spec.samplesRegistry"],
              8)
        << seed;
    EXPECT_TRUE(got.bad.empty()) << seed << ": " << got.bad.front();
    // It ends where the state depends on the inventory alone.
    EXPECT_EQ(got.last["spec.managementState"], "Managed") << seed;
    for (const char* list : {"spec.skippedImagestreams", "spec.skippedTemplates"}) {
      if (got.last.contains(list)) {
        EXPECT_EQ(got.last[list], engine::Json::array()) << seed << " " << list;
      }
    }
    if (got.last.contains("spec.samplesRegistry")) {
      EXPECT_EQ(got.last["spec.samplesRegistry"], "") << seed;
    }
    for (const auto& [path, n] : got.during) total[path] += n;
  }
  // Over 20 seeds every kind of edit happens, each often.
  EXPECT_EQ(total["spec.managementState"], 80);
  EXPECT_GE(total["spec.skippedImagestreams"], 30);
  EXPECT_GE(total["spec.skippedTemplates"], 30);
  EXPECT_GE(total["spec.samplesRegistry"], 30);
  EXPECT_EQ(
      total["spec.skippedImagestreams"] + total["spec.skippedTemplates"] + total["spec.samplesRegistry"],
      160);
}

TEST(SoakWorkload, SamplesRunEndingRemovedEndsManaged) {
  WorkloadOptions o;
  o.instances = 4;
  o.edits = 30;  // flips at 5, 15, 25: Removed after the last
  o.samples_every = 10;
  o.samples_inventory = "inv";
  o.samples_imagestreams = {"ruby"};
  o.samples_templates = {"rails-postgresql-example"};
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    o.seed = seed;
    auto got = SamplesEditsOf(BuildSoakScenario(o), o);
    EXPECT_EQ(got.during["spec.managementState"], 3);
    EXPECT_EQ(got.last["spec.managementState"], "Managed") << seed;
  }
}

TEST(SoakWorkload, SamplesEditsLeaveTheOtherEditsAlone) {
  // The samples edits draw from their own random stream: the disconnected
  // edits are the same with or without names to skip.
  WorkloadOptions o;
  o.instances = 10;
  o.edits = 60;
  o.samples_every = 12;
  o.samples_inventory = "inv";
  auto a = BuildSoakScenario(o);
  o.samples_imagestreams = {"ruby", "nodejs"};
  o.samples_templates = {"rails-postgresql-example"};
  auto b = BuildSoakScenario(o);
  auto others = [](const sim::Scenario& s) {
    std::string out;
    for (const auto& e : s.edits)
      if (engine::GetString(e.object, {"kind"}) != "Config")
        out += recon::StrCat(e.at_ns, engine::Dump(e.object), engine::Dump(e.value), "\n");
    return out;
  };
  EXPECT_EQ(others(a), others(b));
}

TEST(SoakWorkload, SamplesNamesComeFromTheInventory) {
  WorkloadOptions o;
  ASSERT_TRUE(LoadSoakSamplesNames(&o, cli::LoadDirectory).ok());  // no inventory: no names
  EXPECT_TRUE(o.samples_imagestreams.empty());
  o.samples_inventory = kSmallInventory;
  ASSERT_TRUE(LoadSoakSamplesNames(&o, cli::LoadDirectory).ok());
  EXPECT_EQ(o.samples_imagestreams, (std::vector<std::string>{"jenkins", "nodejs", "ruby"}));
  EXPECT_EQ(o.samples_templates.size(), 2u);
  EXPECT_TRUE(std::is_sorted(o.samples_templates.begin(), o.samples_templates.end()));
  o.samples_inventory = "/nonexistent/samples-inventory";
  EXPECT_FALSE(LoadSoakSamplesNames(&o, cli::LoadDirectory).ok());
}

TEST(SoakWorkload, OlmSubscriptionEditsOnlyWithPackages) {
  WorkloadOptions o;
  o.instances = 6;
  o.edits = 60;
  o.olm_every = 3;
  auto subs = [](const sim::Scenario& s) {
    std::map<std::string, int> n;  // op → count
    for (const auto& e : s.edits) {
      if (engine::GetString(e.object, {"kind"}) != "Subscription") continue;
      n[e.op == sim::Edit::Op::kCreate ? "create" : e.op == sim::Edit::Op::kDelete ? "delete" : e.path]++;
    }
    return n;
  };
  EXPECT_TRUE(subs(BuildSoakScenario(o)).empty());
  o.olm_packages = {{"a", "stable", "a.v1", "fast"}, {"b", "stable", "b.v1", ""}};
  o.olm_namespaces = 3;
  auto s = BuildSoakScenario(o);
  auto n = subs(s);
  // 20 subscription edits: the first for each slot is a create, later ones
  // a channel switch (to "fast", once per slot), an uninstall and create
  // again (only in olm-soak-1-*, a namespace per package), else a label.
  EXPECT_EQ(n["create"] + n["spec.channel"] + n["metadata.labels.soak-touched"], 20);
  EXPECT_GE(n["create"], 4);
  EXPECT_GT(n["delete"], 0);
  EXPECT_LE(n["spec.channel"], 3);
  int csv_deletes = 0;
  for (const auto& e : s.edits) {
    std::string kind = engine::GetString(e.object, {"kind"});
    std::string ns =
        engine::GetString(e.object, {"metadata", "namespace"}, engine::GetString(e.object, {"namespace"}));
    if (kind == "ClusterServiceVersion") {
      ++csv_deletes;
      EXPECT_TRUE(ns.starts_with("olm-soak-1-")) << ns;
      EXPECT_TRUE(e.object.contains("labelSelector"));
    }
    if (kind != "Subscription") continue;
    if (e.op == sim::Edit::Op::kDelete) EXPECT_TRUE(ns.starts_with("olm-soak-1-")) << ns;
    if (e.op == sim::Edit::Op::kCreate) {
      // The last namespace is the Manual one.
      EXPECT_EQ(engine::GetString(e.object, {"spec", "installPlanApproval"}),
                ns == "olm-soak-2" ? "Manual" : "Automatic");
      EXPECT_EQ(engine::GetString(e.object, {"spec", "sourceNamespace"}), kSoakCatalogNamespace);
    }
    if (e.op == sim::Edit::Op::kSet && e.path == "spec.channel") EXPECT_EQ(e.value, "fast");
  }
  // Twice per uninstall: after the subscription's delete, and again just
  // before the install (a CSV its plan created after the first).
  EXPECT_EQ(csv_deletes, 2 * n["delete"]);
  // The catalog source and an OperatorGroup per namespace.
  int groups = 0, sources = 0;
  for (const auto& obj : s.objects) {
    groups += engine::GetString(obj, {"kind"}) == "OperatorGroup";
    sources += engine::GetString(obj, {"kind"}) == "CatalogSource";
  }
  EXPECT_EQ(groups, 4);  // olm-soak-0, olm-soak-1-0, olm-soak-1-1, olm-soak-2
  EXPECT_EQ(sources, 1);
}

TEST(SoakWorkload, AroObjectsAndEditsOnlyWithAro) {
  WorkloadOptions o;
  o.instances = 4;
  o.edits = 60;
  o.aro_every = 3;
  auto aro = [](const sim::Scenario& s) {
    std::map<std::string, int> n;  // kind → edits
    for (const auto& e : s.edits) {
      std::string kind = engine::GetString(e.object, {"kind"});
      if (kind == "Subnet" || kind == "MachineSet") n[kind]++;
    }
    return n;
  };
  auto plain = BuildSoakScenario(o);
  EXPECT_TRUE(aro(plain).empty());
  o.aro = true;
  auto s = BuildSoakScenario(o);
  auto n = aro(s);
  // One edit every 3 of 60, and the MachineSet scaled at the end.
  EXPECT_EQ(n["Subnet"] + n["MachineSet"], 21);
  EXPECT_GT(n["Subnet"], 0);
  EXPECT_GT(n["MachineSet"], 0);
  const sim::Edit& last = s.edits.back();
  EXPECT_EQ(engine::GetString(last.object, {"kind"}), "MachineSet");
  EXPECT_EQ(last.value, 6);
  std::map<std::string, int> kinds;
  for (const auto& obj : s.objects) kinds[engine::GetString(obj, {"kind"})]++;
  EXPECT_EQ(kinds["Cluster"], 1);
  EXPECT_EQ(kinds["Subnet"], 2);
  EXPECT_EQ(kinds["NetworkSecurityGroup"], 1);
  EXPECT_EQ(kinds["Machine"], 3);
  // A detached subnet keeps its endpoints; one missing storage keeps its NSG.
  for (const auto& e : s.edits) {
    if (engine::GetString(e.object, {"kind"}) != "Subnet") continue;
    const bool nsg = e.object["spec"].contains("networkSecurityGroup");
    const bool storage = e.object["spec"]["serviceEndpoints"].size() == 2;
    EXPECT_NE(nsg, storage) << engine::Dump(e.object);
  }
}

// --aro-arm: the ARM poll interval is short (polls that find nothing are
// not activity), and the secret is rotated once, in the cluster's Secret.
TEST(SoakWorkload, AroArmPollsOftenAndRotatesTheSecretOnce) {
  WorkloadOptions o;
  o.instances = 4;
  o.edits = 60;
  o.aro = true;
  auto interval = [](const sim::Scenario& s) {
    for (const auto& [k, v] : s.options)
      if (k == "aro.subnetsInterval") return v;
    return std::string();
  };
  auto rotations = [](const sim::Scenario& s) {
    std::vector<const sim::Edit*> out;
    for (const auto& e : s.edits)
      if (engine::GetString(e.object, {"kind"}) == "Secret") out.push_back(&e);
    return out;
  };
  auto k8s = BuildSoakScenario(o);
  EXPECT_EQ(interval(k8s), "1m");
  EXPECT_TRUE(rotations(k8s).empty());
  o.aro_arm = true;
  auto arm = BuildSoakScenario(o);
  EXPECT_EQ(interval(arm), kSoakArmPollInterval);
  auto r = rotations(arm);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0]->path, "data.azure_client_secret");
  EXPECT_EQ(r[0]->value, "c2VjcmV0LTI=");     // base64 of kSoakRotatedSecret
  EXPECT_EQ(r[0]->at_ns, 31 * o.spacing_ns);  // edit 30 of 60
}

TEST(SoakOlm, PackagesAndTheOlderCatalogComeFromTheRealOne) {
  if (!fs::is_directory(kOlmCatalog)) FAIL() << kOlmCatalog << " is not there";
  auto c = LoadSoakOlm(kOlmCatalog, cli::LoadDirectory, 6, 1);
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ((*c)->packages.size(), 6u);
  EXPECT_FALSE((*c)->updated.empty());
  for (const auto& p : (*c)->packages) {
    EXPECT_TRUE((*c)->bundles->contains(p.start)) << p.name;
    EXPECT_EQ((*c)->bundles->at(p.start).package, p.name);
  }
  // The older copy lacks what the update brings and still loads.
  auto before = olm::CatalogIndex::Load((*c)->before);
  ASSERT_TRUE(before.ok()) << before.status();
  auto now = olm::CatalogIndex::Load(*cli::LoadDirectory(kOlmCatalog));
  ASSERT_TRUE(now.ok());
  for (const auto& name : (*c)->updated) {
    const auto* p = (*before)->FindPackage(name);
    ASSERT_NE(p, nullptr) << name;
    // The heads the catalog update waits on are the older copy's.
    const auto* ch = (*now)->FindPackage(name)->Find(p->default_channel);
    ASSERT_NE(ch, nullptr);
    const std::string key = name + "/" + p->default_channel;
    ASSERT_TRUE((*c)->heads_before.contains(key)) << key;
    EXPECT_NE((*c)->heads_before.at(key), (*now)->entries()[static_cast<size_t>(ch->order.front())].name)
        << key;
  }
  EXPECT_GE((*c)->heads_before.size(), (*c)->packages.size());
  auto again = LoadSoakOlm(kOlmCatalog, cli::LoadDirectory, 6, 1);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->before, (*c)->before);
  EXPECT_FALSE(LoadSoakOlm("/nonexistent/catalog", cli::LoadDirectory, 6, 1).ok());
}

TEST(SoakNormalize, InstallPlansAreSummarizedIntoTheirSubscriptions) {
  auto state = [](const std::string& plan_name, int gen, const char* phase) {
    std::map<std::string, std::string> s;
    s["operators.coreos.com/InstallPlan/ns/" + plan_name] =
        engine::Dump(engine::Json{{"kind", "InstallPlan"},
                                  {"metadata", {{"name", plan_name}, {"namespace", "ns"}}},
                                  {"spec",
                                   {{"clusterServiceVersionNames", {"a.v3"}},
                                    {"approval", "Automatic"},
                                    {"approved", true},
                                    {"generation", gen}}},
                                  {"status", {{"phase", phase}}}});
    s["operators.coreos.com/InstallPlan/ns/install-old"] = "{}";
    s["operators.coreos.com/Subscription/ns/a"] =
        engine::Dump(engine::Json{{"kind", "Subscription"},
                                  {"metadata", {{"name", "a"}, {"namespace", "ns"}}},
                                  {"status",
                                   {{"currentCSV", "a.v3"},
                                    {"installedCSV", "a.v3"},
                                    {"installPlanGeneration", gen},
                                    {"installPlanRef", {{"name", plan_name}, {"namespace", "ns"}}},
                                    {"lastUpdated", "2026-11-21T10:00:00Z"}}}});
    NormalizeOlmState(&s);
    return s;
  };
  auto a = state("install-abcde", 3, "Complete"), b = state("install-fghij", 7, "Complete");
  EXPECT_EQ(a, b);
  ASSERT_EQ(a.size(), 1u);  // the plans are left out
  EXPECT_NE(a.begin()->second.find("\"installsCurrentCSV\":true"), std::string::npos) << a.begin()->second;
  EXPECT_NE(a, state("install-abcde", 3, "Installing"));
}

// Which plans the InstallPlan GC keeps (the newest five generations of a
// namespace) depends on the order plans were made: for a subscription at
// its installed CSV, a completed plan and a collected one say the same.
TEST(SoakNormalize, ACollectedPlanOfAnInstalledSubscriptionIsNotADifference) {
  auto state = [](const char* state, bool plan_exists) {
    std::map<std::string, std::string> s;
    if (plan_exists) {
      s["operators.coreos.com/InstallPlan/ns/install-abcde"] = engine::Dump(
          engine::Json{{"spec", {{"clusterServiceVersionNames", {"a.v3"}}, {"approval", "Automatic"}}},
                       {"status", {{"phase", "Complete"}}}});
    }
    engine::Json conds =
        engine::Json::array({engine::Json{{"type", "CatalogSourcesUnhealthy"}, {"status", "False"}}});
    if (!plan_exists)
      conds.push_back(engine::Json{
          {"type", "InstallPlanMissing"}, {"status", "True"}, {"reason", "ReferencedInstallPlanNotFound"}});
    s["operators.coreos.com/Subscription/ns/a"] =
        engine::Dump(engine::Json{{"kind", "Subscription"},
                                  {"status",
                                   {{"state", state},
                                    {"currentCSV", "a.v3"},
                                    {"installedCSV", "a.v3"},
                                    {"conditions", conds},
                                    {"installPlanRef", {{"name", "install-abcde"}, {"namespace", "ns"}}}}}});
    NormalizeOlmState(&s);
    return s;
  };
  EXPECT_EQ(state("AtLatestKnown", true), state("AtLatestKnown", false));
  EXPECT_NE(state("AtLatestKnown", true).begin()->second.find("\"done\":true"), std::string::npos);
  // Still on its way to its current CSV: a missing plan is a difference.
  EXPECT_NE(state("UpgradePending", true), state("UpgradePending", false));
}

// A CRD's installed-alongside annotation naming a CSV gone by the end is
// history (left until a plan next updates the CRD); one naming a CSV there
// is state.
TEST(SoakOlm, AlongsideAnnotationsOfCsvsGoneAreNotCompared) {
  auto state = [](const std::vector<std::string>& alongside) {
    std::map<std::string, std::string> s;
    s["operators.coreos.com/ClusterServiceVersion/ns/a.v3"] = "{}";
    engine::Json annotations = engine::Json::object();
    for (const std::string& csv : alongside)
      annotations[recon::StrCat("operatorframework.io/installed-alongside-", csv.size())] = csv;
    s["apiextensions.k8s.io/CustomResourceDefinition//as.example.com"] =
        engine::Dump(engine::Json{{"metadata", {{"name", "as.example.com"}, {"annotations", annotations}}}});
    NormalizeOlmState(&s);
    return s;
  };
  EXPECT_EQ(state({"ns/a.v3"}), state({"ns/a.v3", "ns/a.v2x"}));
  EXPECT_NE(state({"ns/a.v3"}), state({}));
}

TEST(SoakOlm, AnUpgradeIsInFlightUntilItsPlanRuns) {
  auto sub = [](const char* state, const char* plan) {
    engine::Json st = engine::Json::object();
    if (*state) st = {{"state", state}, {"installPlanRef", {{"namespace", "ns"}, {"name", plan}}}};
    return std::make_pair(std::string("operators.coreos.com/Subscription/ns/a"),
                          engine::Dump(engine::Json{{"spec", {{"name", "a"}}}, {"status", st}}));
  };
  auto plan = [](const char* phase, bool approved) {
    return std::make_pair(
        std::string("operators.coreos.com/InstallPlan/ns/install-1"),
        engine::Dump(engine::Json{{"spec", {{"approved", approved}}}, {"status", {{"phase", phase}}}}));
  };
  using Objects = std::vector<std::pair<std::string, std::string>>;
  EXPECT_FALSE(OlmUpgradeInFlight({}));
  EXPECT_TRUE(OlmUpgradeInFlight(Objects{sub("", "")}));  // not resolved yet
  EXPECT_FALSE(OlmUpgradeInFlight(Objects{plan("Complete", true), sub("AtLatestKnown", "install-1")}));
  EXPECT_TRUE(OlmUpgradeInFlight(Objects{plan("Installing", true), sub("UpgradePending", "install-1")}));
  EXPECT_TRUE(OlmUpgradeInFlight(Objects{plan("", true), sub("UpgradePending", "install-1")}));
  // A bare plan no subscription refers to was superseded: never carried out.
  EXPECT_FALSE(OlmUpgradeInFlight(Objects{plan("", true), sub("AtLatestKnown", "install-2")}));
  EXPECT_TRUE(OlmUpgradeInFlight(Objects{plan("", true), sub("AtLatestKnown", "install-1")}));
  EXPECT_TRUE(OlmUpgradeInFlight(Objects{sub("UpgradePending", "install-1")}));  // its plan not there yet
  // Waiting for an approval nobody gives: not on its way.
  EXPECT_FALSE(
      OlmUpgradeInFlight(Objects{plan("RequiresApproval", false), sub("UpgradePending", "install-1")}));
  EXPECT_TRUE(
      OlmUpgradeInFlight(Objects{plan("RequiresApproval", true), sub("UpgradePending", "install-1")}));
  // Its plan done: the agent has still to see the CSV and resolve again.
  EXPECT_TRUE(OlmUpgradeInFlight(Objects{plan("Complete", true), sub("UpgradePending", "install-1")}));
}

// Installed below its channel's head in the catalog served now: the agent
// is about to plan the next step (four-domain soak, seed 1).
TEST(SoakOlm, ASubscriptionBelowItsChannelsHeadIsOnItsWay) {
  auto sub = [](const char* installed) {
    engine::Json j = {{"spec", {{"name", "a"}, {"channel", "stable"}}},
                      {"status", {{"state", "AtLatestKnown"}, {"installedCSV", installed}}}};
    return std::make_pair(std::string("operators.coreos.com/Subscription/ns/a"), engine::Dump(j));
  };
  using Objects = std::vector<std::pair<std::string, std::string>>;
  const std::map<std::string, std::string> heads = {{"a/stable", "a.v2"}};
  EXPECT_TRUE(OlmUpgradeInFlight(Objects{sub("a.v1")}, heads));
  EXPECT_FALSE(OlmUpgradeInFlight(Objects{sub("a.v2")}, heads));
  EXPECT_FALSE(OlmUpgradeInFlight(Objects{sub("a.v1")}, {}));  // a channel whose head is not known
}

TEST(SoakNormalize, KeepsOnlyTheNewestImportOfAnImageStreamTag) {
  // Imported from a mirror, then from the default registry (newest first),
  // or only from the default registry: the same tag state.
  std::string both = NormalizeForSoak(
      R"({"kind":"ImageStream","metadata":{"name":"ruby"},"status":{"tags":[{"tag":"3.3","items":[)"
      R"({"dockerImageReference":"registry.redhat.io/ubi9/ruby-33@sha256:1","image":"sha256:1"},)"
      R"({"dockerImageReference":"mirror.example.com:5000/ubi9/ruby-33@sha256:2","image":"sha256:2"}]}]}})");
  std::string newest = NormalizeForSoak(
      R"({"kind":"ImageStream","metadata":{"name":"ruby"},"status":{"tags":[{"tag":"3.3","items":[)"
      R"({"dockerImageReference":"registry.redhat.io/ubi9/ruby-33@sha256:1","image":"sha256:1"}]}]}})");
  EXPECT_EQ(both, newest);
  // A different current image is a difference.
  std::string other = NormalizeForSoak(
      R"({"kind":"ImageStream","metadata":{"name":"ruby"},"status":{"tags":[{"tag":"3.3","items":[)"
      R"({"dockerImageReference":"mirror.example.com:5000/ubi9/ruby-33@sha256:2","image":"sha256:2"}]}]}})");
  EXPECT_NE(other, newest);
}

// A CSV's requirement names the CRD's uid, which each run's server makes;
// its conditions are its past phases.
TEST(SoakNormalize, DropsACsvsRequirementUidsAndPastPhases) {
  auto csv = [](const char* uid, const char* status) {
    return NormalizeForSoak(recon::StrCat(
        R"({"kind":"ClusterServiceVersion","metadata":{"name":"a.v1"},"status":{"requirementStatus":[)",
        R"({"kind":"CustomResourceDefinition","name":"as.example.com","status":")", status, R"(","uuid":")",
        uid, R"("}]}})"));
  };
  EXPECT_EQ(csv("u1", "Present"), csv("u2", "Present"));
  // Its past phases are history too.
  EXPECT_EQ(NormalizeForSoak(R"({"kind":"ClusterServiceVersion","status":{"phase":"Succeeded","conditions":[)"
                             R"({"phase":"Failed"},{"phase":"Succeeded"}]}})"),
            NormalizeForSoak(R"({"kind":"ClusterServiceVersion","status":{"phase":"Succeeded","conditions":[)"
                             R"({"phase":"Succeeded"}]}})"));
  EXPECT_NE(csv("u1", "Present"), csv("u1", "NotPresent"));
}

TEST(SoakNormalize, DropsWhatRunsMayDifferInAndSortsKeys) {
  std::string a = NormalizeForSoak(
      R"({"kind":"Deployment","metadata":{"name":"x","uid":"1","resourceVersion":"7","generation":3,)"
      R"("ownerReferences":[{"name":"o","uid":"u1"}]},"status":{"conditions":[{"type":"A","lastTransitionTime":"t1"}]}})");
  std::string b = NormalizeForSoak(
      R"({"status":{"conditions":[{"lastTransitionTime":"t2","type":"A"}]},"metadata":{"ownerReferences":)"
      R"([{"uid":"u2","name":"o"}],"resourceVersion":"9","name":"x","uid":"2"},"kind":"Deployment"})");
  EXPECT_EQ(a, b);
  // A real difference stays one.
  std::string c = NormalizeForSoak(R"({"kind":"Deployment","metadata":{"name":"x"},"spec":{"replicas":2}})");
  std::string d = NormalizeForSoak(R"({"kind":"Deployment","metadata":{"name":"x"},"spec":{"replicas":3}})");
  EXPECT_NE(c, d);
  // aro: the NSG reconcile time and ARM's provisioning state are history.
  std::string e = NormalizeForSoak(
      R"({"kind":"Subnet","metadata":{"name":"s","annotations":{"aro.openshift.io/lastSubnetReconcileTimestamp":"t"}},)"
      R"("spec":{"serviceEndpoints":[{"service":"Microsoft.Storage","provisioningState":"Succeeded"}]}})");
  std::string f = NormalizeForSoak(
      R"({"kind":"Subnet","metadata":{"name":"s"},"spec":{"serviceEndpoints":[{"service":"Microsoft.Storage"}]}})");
  EXPECT_EQ(e, f);
}

// A raw HTTP/1.1 request on loopback; returns the status code.
int Request(int port, const std::string& method, const std::string& path, const std::string& body,
            const std::string& action) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return -1;
  }
  std::string req =
      recon::StrCat(method, " ", path, " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n",
                    "Content-Type: application/json\r\nContent-Length: ", body.size(), "\r\n",
                    action.empty() ? "" : recon::StrCat("X-Recon-Action: ", action, "\r\n"), "\r\n", body);
  send(fd, req.data(), req.size(), 0);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = recv(fd, buf, sizeof(buf), 0)) > 0;) out.append(buf, static_cast<size_t>(n));
  close(fd);
  if (out.size() < 12) return -1;
  return std::atoi(out.c_str() + 9);
}

TEST(SoakServerCounters, SameActionTwiceAndCreateOfExistingAreCounted) {
  sim::Scenario s;
  auto server = sim::ApiServer::Start(s, {});
  ASSERT_TRUE(server.ok()) << server.status();
  std::string path = "/api/v1/namespaces/a/configmaps";
  std::string cm = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"a"}})";
  EXPECT_EQ(Request((*server)->port(), "POST", path, cm, "5.0"), 201);
  EXPECT_EQ(Request((*server)->port(), "POST", path, cm, "6.0"), 409);  // AlreadyExists
  std::string upd =
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"a"},"data":{"k":"v"}})";
  EXPECT_EQ(Request((*server)->port(), "PUT", path + "/c", upd, "7.0"), 200);
  EXPECT_EQ(Request((*server)->port(), "PUT", path + "/c", upd, "7.0"), 200);  // the same action again
  EXPECT_EQ(Request((*server)->port(), "PUT", path + "/c", upd, ""), 200);     // not an action: not counted
  auto st = (*server)->Stats();
  EXPECT_EQ(st.already_exists, 1u);
  EXPECT_EQ(st.actions_applied_twice, 1u);
  EXPECT_EQ(st.writes_applied, 4u);
  // An outage answers 503 and counts.
  (*server)->Unavailable(60'000);
  EXPECT_EQ(Request((*server)->port(), "GET", path, "", ""), 503);
  EXPECT_EQ((*server)->Stats().unavailable, 1u);
}

}  // namespace
}  // namespace recon::soak
