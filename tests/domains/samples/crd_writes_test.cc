// Every write of the samples domain passes the real CRDs (issue 18): real
// runs against the simulated cluster with the real inventory, and every
// samples scenario log, are reduced, and each create/update/updateStatus of
// a kind with a CRD (Config, ClusterOperator) is admitted against
// crd::Registry::Builtin() as a real kube-apiserver would: no field
// errors, nothing pruned, no .status on a create/update of a kind with a
// status subresource, a resourceVersion on every update.
#include "tests/domains/crd_writes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "adapters/sim/runner.h"
#include "cli/domains.h"
#include "crd/registry.h"
#include "domains/samples/names.h"
#include "engine/engine.h"
#include "records/codec.h"
#include "store/memory_store.h"
#include "tests/domains/samples/scenario_util.h"

namespace recon::samples {
namespace {

using engine::Json;

// datasets/ of the repository; RECON_SHARED_DATA names another copy
// (a worktree).
const std::string kRealInventory = [] {
  const char* dir = std::getenv("RECON_SHARED_DATA");
  return std::string(dir && *dir ? dir : RECON_SOURCE_DIR "/datasets") + "/samples/ocp-x86_64";
}();

const crd::Registry& Builtin() {
  static const auto* registry = [] {
    auto r = crd::Registry::Builtin();
    EXPECT_TRUE(r.ok()) << r.status();
    return new crd::Registry(r.ok() ? std::move(*r) : crd::Registry());
  }();
  return *registry;
}

struct SimRun {
  std::unique_ptr<sim::Simulator> sim;
  store::MemoryStore st;
  std::vector<records::ActionRecord> actions;
  bool converged = false;
};

std::unique_ptr<SimRun> RunSim(const sim::Scenario& scenario, int64_t max_time_ns) {
  auto run = std::make_unique<SimRun>();
  run->sim = std::make_unique<sim::Simulator>(scenario);
  auto engine = cli::MakeEngine("samples", {});
  EXPECT_TRUE(engine.ok()) << engine.status();
  if (!engine.ok()) return nullptr;
  sim::RunOptions opts;
  opts.until_converged = true;
  opts.max_time_ns = max_time_ns;
  opts.options = scenario.options;
  opts.options.emplace_back("samples.inventory", scenario.samples_inventory);
  opts.load_directory = [](const std::string& dir) { return cli::LoadDirectory(dir); };
  auto summary =
      sim::RunScenario(scenario, *run->sim, **engine, runtime::RunOnNewLog(**engine, run->st), opts);
  EXPECT_TRUE(summary.ok()) << summary.status();
  if (!summary.ok()) return nullptr;
  run->converged = summary->converged;
  auto it = run->st.ReadActions(0, store::kEndOfLog);
  EXPECT_TRUE(it.ok()) << it.status();
  if (!it.ok()) return nullptr;
  for (; (*it)->Valid(); (*it)->Next()) {
    auto a = records::DecodeAction((*it)->payload());
    EXPECT_TRUE(a.ok()) << a.status();
    if (a.ok()) run->actions.push_back(std::move(*a));
  }
  return run;
}

// The spec a /status update is validated with: the cluster's at the run's
// end (any spec the server held was admitted when it was written; a
// create's own spec is checked with the create), `{}` if none.
Json SpecOf(const Json* object) {
  const Json& spec = object == nullptr ? Json() : engine::Path(*object, {"spec"});
  return spec.is_null() ? Json::object() : spec;
}

recon::testing::StoredSpec SimSpec(const sim::Simulator& sim) {
  return [&sim](const records::ActionRecord& a) {
    return SpecOf(
        sim.objects().Get(engine::ObjectKey{a.object.group, a.object.kind, a.object.ns, a.object.name}));
  };
}

class SamplesCrdWrites : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::is_directory(kRealInventory))
      FAIL() << "real samples inventory not found at " << kRealInventory;
    ASSERT_FALSE(Builtin().kinds().empty());
  }
  // The ClusterOperator's condition `type` at the end of the last run.
  std::string CoCondition(std::string_view type) const {
    const Json* co =
        last_ ? last_->sim->objects().Get(engine::ObjectKey{std::string(kConfigGroup), "ClusterOperator", "",
                                                            std::string(kClusterOperatorName)})
              : nullptr;
    if (co == nullptr) return "<missing>";
    for (const Json& c : engine::Path(*co, {"status", "conditions"}))
      if (engine::GetString(c, {"type"}) == type) return engine::GetString(c, {"status"});
    return "<no condition>";
  }
  std::unique_ptr<SimRun> last_;
  // Runs `scenario` and admits every write; returns the report.
  recon::testing::CrdWriteReport Check(const sim::Scenario& scenario) {
    auto run = RunSim(scenario, 4 * 3600 * kNsPerSecond);
    recon::testing::CrdWriteReport report;
    if (run == nullptr) return report;
    EXPECT_TRUE(run->converged) << scenario.name;
    recon::testing::CheckCrdWrites(Builtin(), run->actions, SimSpec(*run->sim), /*require_rv=*/true, &report);
    last_ = std::move(run);
    return report;
  }
};

sim::Scenario Parse(const std::string& text) {
  auto s = sim::ParseScenario(text, "crd_writes_test", RECON_SOURCE_DIR "/examples/scenarios");
  EXPECT_TRUE(s.ok()) << s.status();
  sim::Scenario out = s.ok() ? *s : sim::Scenario{};
  out.samples_inventory = kRealInventory;
  return out;
}

TEST_F(SamplesCrdWrites, ConvergingFromAnEmptyClusterWithTheRealInventory) {
  auto report = Check(Parse(R"({"name": "crd-empty", "start": "2026-11-21T10:00:00Z",
    "facts": {"architecture": "x86_64", "ipv6": false, "disconnected": false, "version": "4.16.0"},
    "imports": [{"latency": "30s"}]})"));
  EXPECT_EQ(report.Problems(), "");
  // The ClusterOperator: created once (spec, no status), then /status.
  EXPECT_EQ(report.admitted["create ClusterOperator"], 1);
  EXPECT_GE(report.admitted["updateStatus ClusterOperator"], 1);
  EXPECT_EQ(report.admitted["create Config"], 1);
  EXPECT_GE(report.admitted["updateStatus Config"], 2);
  // The status written through /status is the one the cluster holds.
  EXPECT_EQ(CoCondition("Available"), "True");
  EXPECT_EQ(CoCondition("Progressing"), "False");
  EXPECT_EQ(CoCondition("Degraded"), "False");
}

TEST_F(SamplesCrdWrites, RemovedWhileImportsAreInFlightThenManagedAgain) {
  auto s = sim::LoadScenario(RECON_SOURCE_DIR "/examples/scenarios/samples-removed-inflight.json");
  ASSERT_TRUE(s.ok()) << s.status();
  s->samples_inventory = kRealInventory;
  auto report = Check(*s);
  EXPECT_EQ(report.Problems(), "");
  EXPECT_GE(report.admitted["updateStatus Config"], 6);
  EXPECT_GE(report.admitted["updateStatus ClusterOperator"], 3);
}

TEST_F(SamplesCrdWrites, InvalidArchitectureUnmanagedAndConfigDeletion) {
  // ConfigurationValid False and back, Unmanaged, Managed, then the Config
  // deleted: deletion mode on the CO, cleanup, the finalizer update, and a
  // new default Config.
  auto report = Check(Parse(R"({"name": "crd-edits", "start": "2026-11-21T10:00:00Z",
    "facts": {"architecture": "x86_64", "ipv6": false, "disconnected": false, "version": "4.16.0"},
    "imports": [{"latency": "30s"}],
    "edits": [
      {"at": "10m", "set": {"kind": "Config", "name": "cluster", "path": "spec.architectures", "value": ["sparc"]}},
      {"at": "12m", "set": {"kind": "Config", "name": "cluster", "path": "spec.architectures", "value": ["x86_64"]}},
      {"at": "14m", "set": {"kind": "Config", "name": "cluster", "path": "spec.managementState", "value": "Unmanaged"}},
      {"at": "16m", "set": {"kind": "Config", "name": "cluster", "path": "spec.managementState", "value": "Managed"}},
      {"at": "20m", "delete": {"kind": "Config", "name": "cluster"}}
    ]})"));
  EXPECT_EQ(report.Problems(), "");
  EXPECT_EQ(report.admitted["update Config"], 1);  // the finalizer removed
  EXPECT_EQ(report.admitted["create Config"], 2);  // the default, and again after the delete
  EXPECT_GE(report.admitted["updateStatus Config"], 6);
}

// Every samples scenario log: schema validity of every write (the logs'
// objects do not all carry a resourceVersion, so that rule is the sim
// runs' to check).
TEST(SamplesCrdWritesScenarios, EveryScenarioLogWritesValidObjects) {
  ASSERT_FALSE(Builtin().kinds().empty());
  const std::string dir = RECON_SOURCE_DIR "/tests/scenarios/samples";
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
    auto engine = testing::SamplesEngine(sets);
    ASSERT_NE(engine, nullptr) << name;
    std::vector<records::ActionRecord> actions;
    uint64_t seq = 0;
    for (auto& r : testing::ScenarioEvents(name)) {
      engine::Event e = engine::Event::FromRecord(++seq, r);
      ASSERT_TRUE(engine->Step(e, &actions).ok()) << name << " line " << seq;
    }
    recon::testing::CrdWriteReport report;
    recon::testing::CheckCrdWrites(
        Builtin(), actions,
        [&](const records::ActionRecord& a) {
          const engine::Object* o =
              engine->world().Get(a.object.group, a.object.kind, a.object.ns, a.object.name);
          return SpecOf(o == nullptr ? nullptr : &o->json());
        },
        /*require_rv=*/false, &report);
    EXPECT_EQ(report.Problems(), "") << name;
    for (const auto& [k, n] : report.admitted) admitted += n;
  }
  EXPECT_GT(admitted, 100);
}

}  // namespace
}  // namespace recon::samples
