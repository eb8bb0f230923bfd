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

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string_view>

#include "adapters/sim/olm_stand_in.h"
#include "adapters/sim/simulator.h"
#include "base/strings.h"
#include "cli/domains.h"
#include "crd/registry.h"
#include "domains/olm/reducer.h"
#include "domains/olm/resolve/catalog_index.h"
#include "engine/engine.h"
#include "engine/jsonl_writer.h"
#include "soak/olm.h"

namespace recon::olm {
namespace {

// RECON_OLM_CATALOG overrides (another copy of the catalog).
const std::string kDerived = std::getenv("RECON_OLM_CATALOG") != nullptr
                                 ? std::getenv("RECON_OLM_CATALOG")
                                 : std::string(RECON_SOURCE_DIR) + "/datasets/olm/community-derived";
constexpr std::string_view kNs = "crd-writes";
constexpr std::string_view kGlobalNs = "openshift-marketplace";

struct Write {
  records::ActionRecord action;
  Json body;
  Json stored;  // the object the server held when the write was applied (null if none)
  int64_t at = 0;  // the cluster's time then
};

struct Run {
  std::vector<Write> writes;
  Json subscription;  // as the cluster ends
  uint64_t events = 0;
  std::vector<Json> csvs, deployments;  // of the namespace, as the cluster ends
  std::vector<Json> copies;             // CSVs in other namespaces, as the cluster ends
  std::vector<Json> conditions;         // OperatorConditions of the namespace, as the cluster ends
  std::set<std::string> rbac;           // "Role/<name>", "RoleBinding/<name>" of the namespace, as it ends
  Json olm_config;                      // OLMConfig cluster, as the cluster ends
};

// The simulated cluster and the engine, wired as the agent wires them: every
// event reduced, every action applied, until nothing is left to happen.
// `csv_lifecycle`: recon is OLM's olm operator too (olm.csvLifecycle), and
// the cluster plays only what Kubernetes does (sim/olm_stand_in.h).
// `other_namespaces`: these exist too, and the group targets every
// namespace (its CSVs are copied there) instead of its own.
absl::StatusOr<Run> RunThroughSim(const soak::SoakOlmPackage& pkg,
                                  std::shared_ptr<const soak::SoakOlmCatalog> catalog,
                                  std::string_view subscription_writes = "split", bool csv_lifecycle = false,
                                  const std::vector<std::string>& other_namespaces = {},
                                  const std::function<void(sim::Scenario&)>& customize = {}) {
  const std::string api = std::string(kApiVersion);
  sim::Scenario sc;
  sc.name = "olm-crd-writes";
  sc.start_ns = 1'800'000'000'000'000'000;
  sc.objects.push_back(Json{{"apiVersion", api},
                            {"kind", "CatalogSource"},
                            {"metadata", Json{{"name", "community"}, {"namespace", kGlobalNs}}},
                            {"spec", Json{{"sourceType", "grpc"}}}});
  sc.objects.push_back(Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", Json{{"name", kNs}}}});
  for (const std::string& ns : other_namespaces)
    sc.objects.push_back(Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", Json{{"name", ns}}}});
  sc.objects.push_back(Json{
      {"apiVersion", "operators.coreos.com/v1"},
      {"kind", "OperatorGroup"},
      {"metadata", Json{{"name", "og"}, {"namespace", kNs}}},
      {"spec", other_namespaces.empty() ? Json{{"targetNamespaces", Json::array({kNs})}} : Json::object()}});
  sc.objects.push_back(Json{{"apiVersion", api},
                            {"kind", "Subscription"},
                            {"metadata", Json{{"name", pkg.name}, {"namespace", kNs}}},
                            {"spec", Json{{"name", pkg.name},
                                          {"channel", pkg.channel},
                                          {"source", "community"},
                                          {"sourceNamespace", kGlobalNs},
                                          {"startingCSV", pkg.start}}}});
  if (customize) customize(sc);
  sim::Simulator sim(sc);
  // recon carries the plans out (olm.executePlans, the default); the cluster
  // runs the unpack Jobs and plays OLM's olm operator.
  sim.SetController(csv_lifecycle ? sim::OlmClusterStandIn(catalog->bundles, {.olm_operator = false})
                                  : soak::SoakOlmController(catalog));
  std::vector<std::unique_ptr<engine::Reducer>> reducers;
  reducers.push_back(MakeReducer());
  if (auto s = reducers.back()->SetOption("subscriptionWrites", subscription_writes); !s.ok()) return s;
  if (auto s = reducers.back()->SetOption("csvLifecycle", csv_lifecycle ? "true" : "false"); !s.ok()) return s;
  for (const auto& [key, value] : sc.options)  // "olm.<option>" a test's customize sets
    if (key.starts_with("olm."))
      if (auto s = reducers.back()->SetOption(key.substr(4), value); !s.ok()) return s;
  engine::Engine eng(std::move(reducers));

  Run run;
  uint64_t seq = 0;
  std::vector<records::ActionRecord> actions;
  auto files = cli::LoadDirectory(kDerived);
  if (!files.ok()) return files.status();
  // csvLifecycle: the package's own catalog lines only, so the run's log
  // is small enough to keep as a scenario (RECON_RECORD_SCENARIO=FILE
  // writes it: tests/scenarios/olm/csv_lifecycle.jsonl).
  if (csv_lifecycle) {
    for (auto& [file, text] : *files) {
      std::string kept;
      for (size_t at = 0; at < text.size();) {
        size_t nl = text.find('\n', at);
        std::string_view line(text.data() + at, (nl == std::string::npos ? text.size() : nl) - at);
        at = nl == std::string::npos ? text.size() : nl + 1;
        auto doc = engine::ParseJson(line);
        if (!doc.ok()) continue;
        const bool mine = engine::GetString(*doc, {"package"}) == pkg.name ||
                          (engine::GetString(*doc, {"schema"}) == "olm.package" &&
                           engine::GetString(*doc, {"name"}) == pkg.name);
        if (mine) StrAppend(&kept, line, "\n");
      }
      text = std::move(kept);
    }
  }
  std::string recorded;
  records::EventRecord content;
  content.type = records::EventType::kContent;
  content.time_ns = sc.start_ns;
  content.content_name = recon::StrCat("olm/catalog/", kGlobalNs, "/community");
  content.content_digest = records::ContentDigest(*files);
  content.content_files = std::move(*files);
  auto reduce = [&](const records::EventRecord& r) -> absl::Status {
    recorded +=
        engine::EventToJsonl(seq + 1, r, r.type == records::EventType::kContent ? &r.content_files : nullptr);
    actions.clear();
    if (auto s = eng.Step(engine::Event::FromRecord(++seq, r), &actions); !s.ok()) return s;
    for (const auto& a : actions) {
      Write w{a, engine::ParseJson(a.body).value_or(Json()), Json(), sim.now()};
      if (const Json* o =
              sim.objects().Get(engine::ObjectKey{a.object.group, a.object.kind, a.object.ns, a.object.name}))
        w.stored = *o;
      if (a.verb == "create" || a.verb == "update" || a.verb == "updateStatus") run.writes.push_back(w);
      sim.Apply(a);
    }
    return absl::OkStatus();
  };
  if (auto s = reduce(content); !s.ok()) return s;
  for (const auto& r : sim.Start())
    if (auto s = reduce(r); !s.ok()) return s;
  while (sim.HasPendingWork() && seq < 20000) {
    for (const auto& r : sim.Step())
      if (auto s = reduce(r); !s.ok()) return s;
  }
  run.events = seq;
  if (const char* path = std::getenv("RECON_RECORD_SCENARIO"); path != nullptr && csv_lifecycle) {
    std::ofstream(path) << recorded;
  }
  const Json* sub =
      sim.objects().Get(engine::ObjectKey{std::string(kGroup), "Subscription", std::string(kNs), pkg.name});
  if (sub != nullptr) run.subscription = *sub;
  for (const auto& [key, obj] : sim.objects().objects()) {
    if (key.ns != kNs && key.group == kGroup && key.kind == "ClusterServiceVersion")
      run.copies.push_back(obj);
    if (key.group == kGroup && key.kind == "OLMConfig") run.olm_config = obj;
    if (key.ns != kNs) continue;
    if (key.group == kGroup && key.kind == "ClusterServiceVersion") run.csvs.push_back(obj);
    if (key.group == "apps" && key.kind == "Deployment") run.deployments.push_back(obj);
    if (key.group == kGroup && key.kind == "OperatorCondition") run.conditions.push_back(obj);
    if (key.group == "rbac.authorization.k8s.io") run.rbac.insert(recon::StrCat(key.kind, "/", key.name));
  }
  return run;
}

// The entry `back` steps below the head of the package's channel in the
// real catalog (0: the head).
std::string ChannelHead(const soak::SoakOlmPackage& pkg, size_t back = 0) {
  auto files = cli::LoadDirectory(kDerived);
  if (!files.ok()) return "";
  auto idx = CatalogIndex::Load(*files);
  if (!idx.ok()) return "";
  const CatalogPackage* p = (*idx)->FindPackage(pkg.name);
  const CatalogChannel* ch = p == nullptr ? nullptr : p->Find(pkg.channel);
  if (ch == nullptr || ch->order.size() <= back) return "";
  return (*idx)->entries()[static_cast<size_t>(ch->order[back])].name;
}

void ExpectEveryWriteAdmitted(const Run& run) {
  // The object the server would store after each write, admitted against
  // the real CRD: a create as sent (its .status dropped), an updateStatus as
  // the stored object with the written status.
  auto reg = crd::Registry::Builtin();
  ASSERT_TRUE(reg.ok()) << reg.status();
  for (const Write& w : run.writes) {
    std::string api = engine::GetString(w.body, {"apiVersion"});
    const crd::Kind* kind =
        reg->Find(api.substr(0, api.find('/')), api.substr(api.find('/') + 1), w.action.object.kind);
    if (kind == nullptr) {  // a built-in kind (a step's Role, an unpack Job): no CRD to admit it
      EXPECT_NE(w.action.object.group, kGroup) << api << " " << w.action.object.kind;
      continue;
    }
    Json object = w.body;
    if (w.action.verb == "updateStatus") {
      object = w.stored;
      object["status"] = w.body["status"];
    } else if (w.action.verb == "create") {
      object.erase("status");
    }
    std::vector<crd::FieldError> errors =
        reg->Admit(*kind, object, w.stored.is_object() ? &w.stored : nullptr);
    std::string text;
    for (const auto& e : errors) text += e.ToString() + "\n";
    EXPECT_TRUE(errors.empty()) << w.action.verb << " " << w.action.object.kind << ":\n" << text;
  }
}

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
  auto run = RunThroughSim(pkg, *catalog, "split", /*csv_lifecycle=*/true);
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
  EXPECT_EQ(phases, (std::vector<std::string>{"Pending", "InstallReady", "Installing", "Installing", "Succeeded"}));
  EXPECT_GE(deployment_writes, 2u) << "the Deployment created, then updated by each CSV of the upgrade chain";
  ExpectEveryWriteAdmitted(*run);
}

// A group that targets every namespace: the CSV is copied into each other
// namespace with its status (reason Copied), and the copies of the CSVs the
// upgrade replaced are deleted with them (reference §B.5).
TEST(OlmCsvLifecycle, CopiesFollowTheirCsvIntoEveryTargetAndGoWithIt) {
  if (!std::filesystem::exists(kDerived)) FAIL() << "real catalog data not found at " << kDerived;
  auto catalog = soak::LoadSoakOlm(kDerived, cli::LoadDirectory, 1, 1);
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  soak::SoakOlmPackage pkg = (*catalog)->packages.front();
  pkg.start = ChannelHead(pkg, 2);
  auto run = RunThroughSim(pkg, *catalog, "split", /*csv_lifecycle=*/true, {"team-a", "team-b"});
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
  // Every CSV of the chain was copied, and every replaced one's copies deleted.
  std::set<std::string> copied;
  for (const Write& w : run->writes)
    if (w.action.verb == "create" && w.action.object.kind == "ClusterServiceVersion" &&
        w.action.object.ns != kNs)
      copied.insert(w.action.object.name);
  EXPECT_EQ(copied.size(), 3u);
  ExpectEveryWriteAdmitted(*run);
}

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
  auto run = RunThroughSim(pkg, *catalog, "split", /*csv_lifecycle=*/true, {}, [&](sim::Scenario& sc) {
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
    if (phase == "InstallReady") EXPECT_GE(w.at, start + kRelease) << "installed before the release";
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
  auto run = RunThroughSim(pkg, *catalog, "split", true, {"team-a", "team-b"}, [&](sim::Scenario& sc) {
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
