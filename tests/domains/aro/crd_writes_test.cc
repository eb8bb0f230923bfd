// Every write of the aro domain passes the real CRDs (issue 18): the
// example scenarios run against the simulated cluster, and every aro
// scenario log, are reduced, and each create/update/updateStatus of a kind
// with a CRD (Cluster aro.openshift.io/v1alpha1, ClusterOperator) is
// admitted against crd::Registry::Builtin() as a real kube-apiserver
// would: no field errors, nothing pruned, no .status on a create/update of
// a kind with a status subresource, a resourceVersion on every update.
#include "tests/domains/crd_writes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "adapters/sim/runner.h"
#include "cli/domains.h"
#include "crd/registry.h"
#include "engine/engine.h"
#include "engine/jsonl_reader.h"
#include "records/codec.h"
#include "store/memory_store.h"

namespace recon::aro {
namespace {

using engine::Json;

constexpr int64_t kSec = 1'000'000'000;

const crd::Registry& Builtin() {
  static const auto* registry = [] {
    auto r = crd::Registry::Builtin();
    EXPECT_TRUE(r.ok()) << r.status();
    return new crd::Registry(r.ok() ? std::move(*r) : crd::Registry());
  }();
  return *registry;
}

// The spec a /status update is validated with (the stored one; `{}` if
// none): see tests/domains/crd_writes.h.
Json SpecOf(const Json* object) {
  const Json& spec = object == nullptr ? Json() : engine::Path(*object, {"spec"});
  return spec.is_null() ? Json::object() : spec;
}

// Runs an example scenario (examples/scenarios/<name>.json) and admits
// every write the run recorded.
recon::testing::CrdWriteReport RunExample(const std::string& name, bool until_converged, int64_t max_ns) {
  recon::testing::CrdWriteReport report;
  auto s = sim::LoadScenario(RECON_SOURCE_DIR "/examples/scenarios/" + name + ".json");
  EXPECT_TRUE(s.ok()) << s.status();
  if (!s.ok()) return report;
  sim::Simulator simulator(*s);
  auto engine = cli::MakeEngine("aro", {});
  EXPECT_TRUE(engine.ok()) << engine.status();
  if (!engine.ok()) return report;
  store::MemoryStore st;
  sim::RunOptions opts;
  opts.until_converged = until_converged;
  opts.max_time_ns = max_ns;
  opts.options = s->options;
  auto summary = sim::RunScenario(*s, simulator, **engine, runtime::RunOnNewLog(**engine, st), opts);
  EXPECT_TRUE(summary.ok()) << summary.status();
  if (!summary.ok()) return report;
  if (until_converged) EXPECT_TRUE(summary->converged) << name;
  std::vector<records::ActionRecord> actions;
  auto it = st.ReadActions(0, store::kEndOfLog);
  EXPECT_TRUE(it.ok()) << it.status();
  if (!it.ok()) return report;
  for (; (*it)->Valid(); (*it)->Next()) {
    auto a = records::DecodeAction((*it)->payload());
    EXPECT_TRUE(a.ok()) << a.status();
    if (a.ok()) actions.push_back(std::move(*a));
  }
  recon::testing::CheckCrdWrites(
      Builtin(), actions,
      [&](const records::ActionRecord& a) {
        return SpecOf(simulator.objects().Get(
            engine::ObjectKey{a.object.group, a.object.kind, a.object.ns, a.object.name}));
      },
      /*require_rv=*/true, &report);
  return report;
}

TEST(AroCrdWrites, NsgDriftRepairedByTheMachineSetChangeAndTheTimer) {
  ASSERT_FALSE(Builtin().kinds().empty());
  auto report = RunExample("aro-nsg-drift", /*until_converged=*/false, 70 * 60 * kSec);
  EXPECT_EQ(report.Problems(), "");
  EXPECT_GE(report.admitted["updateStatus Cluster"], 1);
  EXPECT_GE(report.admitted["update Cluster"], 1);  // the subnet-reconcile annotation
  EXPECT_EQ(report.admitted["create ClusterOperator"], 1);
  EXPECT_GE(report.admitted["updateStatus ClusterOperator"], 1);
}

TEST(AroCrdWrites, InternetChecksFailingThenRecovering) {
  auto report = RunExample("aro-internet-flaky", /*until_converged=*/true, 3600 * kSec);
  EXPECT_EQ(report.Problems(), "");
  EXPECT_GE(report.admitted["updateStatus Cluster"], 2);
  // The internet conditions are not *Available/*Progressing: the CO's
  // status is written once, after its create is observed.
  EXPECT_EQ(report.admitted["create ClusterOperator"], 1);
  EXPECT_EQ(report.admitted["updateStatus ClusterOperator"], 1);
}

TEST(AroCrdWrites, ServicePrincipalRejectedThenRotated) {
  auto report = RunExample("aro-sp-rotated", /*until_converged=*/true, 3600 * kSec);
  EXPECT_EQ(report.Problems(), "");
  EXPECT_GE(report.admitted["updateStatus Cluster"], 2);
}

// The check itself: the writes recon made before issue 18 are caught.
TEST(AroCrdWrites, TheCheckCatchesWhatARealServerRefuses) {
  std::vector<records::ActionRecord> actions(3);
  actions[0].verb = "create";  // status, no spec
  actions[0].body =
      R"({"apiVersion":"config.openshift.io/v1","kind":"ClusterOperator","metadata":{"name":"aro"},)"
      R"("status":{"conditions":[{"type":"Available","status":"False","lastTransitionTime":"2026-11-21T10:00:00Z"}]}})";
  actions[1].verb = "updateStatus";  // no resourceVersion, a condition without its time
  actions[1].body =
      R"({"apiVersion":"config.openshift.io/v1","kind":"ClusterOperator","metadata":{"name":"aro"},)"
      R"("status":{"conditions":[{"type":"Available","status":"False"}]}})";
  actions[2].verb = "updateStatus";  // not a date-time; a field the CRD does not declare
  actions[2].body =
      R"({"apiVersion":"aro.openshift.io/v1alpha1","kind":"Cluster","metadata":{"name":"cluster","resourceVersion":"5"},)"
      R"("status":{"conditions":[{"type":"X","lastTransitionTime":"yesterday"}],"extra":1}})";
  recon::testing::CrdWriteReport report;
  recon::testing::CheckCrdWrites(
      Builtin(), actions, [](const records::ActionRecord&) { return Json::object(); }, /*require_rv=*/true,
      &report);
  const std::string p = report.Problems();
  EXPECT_NE(p.find("create ClusterOperator aro (action 0.0): carries .status"), std::string::npos) << p;
  EXPECT_NE(p.find("create ClusterOperator aro (action 0.0): spec: Required value"), std::string::npos) << p;
  EXPECT_NE(p.find("metadata.resourceVersion: Invalid value: 0x0: must be specified for an update"),
            std::string::npos)
      << p;
  EXPECT_NE(p.find("status.conditions[0].lastTransitionTime: Required value"), std::string::npos) << p;
  EXPECT_NE(p.find("status.conditions[0].lastTransitionTime: Invalid value"), std::string::npos) << p;
  EXPECT_NE(p.find("the server would store"), std::string::npos) << p;  // status.extra pruned
}

// Every aro scenario log: schema validity of every write (the logs' objects
// do not all carry a resourceVersion, so that rule is the sim runs').
TEST(AroCrdWritesScenarios, EveryScenarioLogWritesValidObjects) {
  ASSERT_FALSE(Builtin().kinds().empty());
  const std::string dir = RECON_SOURCE_DIR "/tests/scenarios/aro";
  std::vector<std::string> names;
  for (const auto& f : std::filesystem::directory_iterator(dir))
    if (f.path().extension() == ".jsonl") names.push_back(f.path().stem().string());
  std::sort(names.begin(), names.end());
  ASSERT_GT(names.size(), 40u);
  int admitted = 0;
  for (const auto& name : names) {
    std::vector<std::string> sets;
    std::ifstream args(dir + "/" + name + ".args");
    for (std::string line, prev; std::getline(args, line); prev = line)
      if (prev == "--set") sets.push_back(line);
    auto engine = cli::MakeEngine("aro", sets);
    ASSERT_TRUE(engine.ok()) << name << ": " << engine.status();
    std::ifstream in(dir + "/" + name + ".jsonl");
    std::stringstream text;
    text << in.rdbuf();
    engine::JsonlReader reader;
    auto lines = reader.ParseAll(text.str(), name);
    ASSERT_TRUE(lines.ok()) << lines.status();
    std::vector<records::ActionRecord> actions;
    for (size_t i = 0; i < lines->size(); ++i) {
      engine::Event e = engine::Event::FromRecord(i + 1, (*lines)[i].event);
      ASSERT_TRUE((*engine)->Step(e, &actions).ok()) << name << " line " << i + 1;
    }
    recon::testing::CrdWriteReport report;
    recon::testing::CheckCrdWrites(
        Builtin(), actions,
        [&](const records::ActionRecord& a) {
          const engine::Object* o =
              (*engine)->world().Get(a.object.group, a.object.kind, a.object.ns, a.object.name);
          return SpecOf(o == nullptr ? nullptr : &o->json());
        },
        /*require_rv=*/false, &report);
    EXPECT_EQ(report.Problems(), "") << name;
    for (const auto& [k, n] : report.admitted) admitted += n;
  }
  EXPECT_GT(admitted, 50);
}

}  // namespace
}  // namespace recon::aro
