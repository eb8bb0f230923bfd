// The scenario runner end to end with a test-only domain, and the property
// that a sim run's log replays to exactly the recorded actions.
#include "adapters/sim/runner.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "engine/jsonl_writer.h"
#include "engine/replay.h"
#include "records/codec.h"
#include "store/memory_store.h"
#include "store/rocksdb_store.h"
#include "tests/adapters/sim/sim_test_util.h"
#include "tests/adapters/sim/test_app_domain.h"

namespace recon::sim {
namespace {

using engine::Json;
using testing::AppDomain;
using testing::kSecond;
using testing::MustParse;

constexpr char kScenario[] = R"({
  "name": "apps",
  "seed": 5,
  "set": {"app.recheck": "20m"},
  "objects": [
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "demo"}},
    {"apiVersion": "demo.example.com/v1", "kind": "App", "metadata": {"name": "web", "namespace": "demo"},
     "spec": {"image": "quay.io/demo/web:1"}},
    {"apiVersion": "demo.example.com/v1", "kind": "App", "metadata": {"name": "bad", "namespace": "demo"},
     "spec": {"image": "registry.redhat.io/ubi8/ruby-27:latest"}}
  ],
  "imports": [{"match": "registry.redhat.io/ubi8/ruby-27", "fail": "unauthorized"}, {"latency": "30s"}],
  "edits": [
    {"at": "2m", "set": {"kind": "App", "namespace": "demo", "name": "web", "path": "spec.image", "value": "quay.io/demo/web:2"}},
    {"at": "5m", "delete": {"kind": "App", "namespace": "demo", "name": "bad"}}
  ]
})";

std::unique_ptr<engine::Engine> NewEngine() {
  std::vector<std::unique_ptr<engine::Reducer>> r;
  r.push_back(std::make_unique<AppDomain>());
  return std::make_unique<engine::Engine>(std::move(r));
}

struct SimRun {
  RunSummary summary;
  std::unique_ptr<Simulator> sim;
  std::unique_ptr<engine::Engine> engine;
};

SimRun RunIt(const Scenario& scenario, store::EventStore& st, bool until_converged = true) {
  SimRun run;
  run.sim = std::make_unique<Simulator>(scenario);
  run.engine = NewEngine();
  RunOptions opts;
  opts.until_converged = until_converged;
  opts.options = scenario.options;
  auto s = RunScenario(scenario, *run.sim, *run.engine, runtime::RunOnNewLog(*run.engine, st), opts);
  EXPECT_TRUE(s.ok()) << s.status();
  if (s.ok()) run.summary = *s;
  return run;
}

const Json* Obj(const Simulator& sim, std::string group, std::string kind, std::string name) {
  return sim.objects().Get(ObjectKey{std::move(group), std::move(kind), "demo", std::move(name)});
}

// `recon replay --check` in process: a fresh engine over the stored log
// must recompute exactly the recorded actions.
void ExpectReplayMatches(store::EventStore& st, const engine::Engine& original) {
  auto engine = NewEngine();
  std::vector<records::ActionRecord> recomputed;
  ASSERT_TRUE(engine::ReplayStore(*engine, st, store::kEndOfLog, [&](const records::ActionRecord& a) {
                recomputed.push_back(a);
              }).ok());
  auto recorded = engine::RecordedActions(st, store::kEndOfLog);
  ASSERT_TRUE(recorded.ok());
  EXPECT_FALSE(recorded->empty());
  auto diffs = engine::DiffActions(*recorded, recomputed);
  EXPECT_TRUE(diffs.empty()) << "first divergence at seq " << diffs.front().seq;
  EXPECT_EQ(*engine->StateDigest(), *original.StateDigest());
}

TEST(RunnerTest, ConvergesAndReachesTheExpectedState) {
  store::MemoryStore st;
  Scenario scenario = MustParse(kScenario);
  SimRun run = RunIt(scenario, st);
  ASSERT_TRUE(run.summary.converged);
  // After the last edit (5m) and its import-free cleanup, before the 20m recheck.
  int64_t took = run.summary.end_ns - run.summary.start_ns;
  EXPECT_GT(took, 5 * 60 * kSecond);
  EXPECT_LT(took, 6 * 60 * kSecond);

  const Json* web = Obj(*run.sim, "demo.example.com", "App", "web");
  ASSERT_NE(web, nullptr);
  EXPECT_EQ((*web)["status"]["conditions"][0]["status"], "True");
  const Json* stream = Obj(*run.sim, "image.openshift.io", "ImageStream", "web");
  ASSERT_NE(stream, nullptr);
  EXPECT_EQ((*stream)["spec"]["tags"][0]["from"]["name"], "quay.io/demo/web:2");
  EXPECT_EQ(Obj(*run.sim, "demo.example.com", "App", "bad"), nullptr) << "finalizer removed, object gone";
  EXPECT_EQ(Obj(*run.sim, "image.openshift.io", "ImageStream", "bad"), nullptr);

  const auto& verbs = run.summary.actions_by_verb;
  for (const char* v : {"create", "update", "updateStatus", "delete", "probe", "setTimer"}) {
    EXPECT_GT(verbs.count(v) ? verbs.at(v) : 0, 0u) << v;
  }
  EXPECT_EQ(run.summary.last_seq, st.LastSeq());
  EXPECT_EQ(run.summary.events, st.LastSeq());
  EXPECT_EQ(run.sim->stats().imports_failed, 1u);

  // The options went into the log: the first Cluster event carries them.
  auto it = st.ReadEvents(1, store::kEndOfLog);
  ASSERT_TRUE(it.ok());
  bool saw = false;
  for (; (*it)->Valid(); (*it)->Next()) {
    uint64_t seq = 0;
    auto e = records::DecodeEvent((*it)->payload(), &seq);
    ASSERT_TRUE(e.ok());
    if (e->type == records::EventType::kCluster) {
      saw = true;
      EXPECT_NE(e->cluster_facts.find("\"app.recheck\":\"20m\""), std::string::npos);
      break;
    }
  }
  EXPECT_TRUE(saw);

  std::string summary = FormatSummary(scenario, run.summary, *run.sim);
  EXPECT_NE(summary.find("converged after 5m"), std::string::npos) << summary;
  EXPECT_NE(summary.find("App demo/web:\n  Ready=True Imported"), std::string::npos) << summary;
}

TEST(RunnerTest, ReplayOfTheLogRecomputesTheRecordedActions) {
  store::MemoryStore st;
  SimRun run = RunIt(MustParse(kScenario), st);
  ExpectReplayMatches(st, *run.engine);
}

TEST(RunnerTest, ReplayMatchesUnderFaultsToo) {
  Scenario scenario = MustParse(kScenario);
  scenario.faults.write_errors = {{409, 0.15}, {500, 0.1}};
  scenario.faults.drop_watch = 0.05;
  scenario.faults.delay_watch = 0.1;
  scenario.faults.delay_ns = 3 * kSecond;
  scenario.faults.resync_ns = 60 * kSecond;
  // The test domain retries a failed write at once: slow answers keep a
  // 409 loop (a create whose Added event was dropped) short.
  scenario.latency.api_ns = kSecond / 2;
  store::MemoryStore st;
  SimRun run = RunIt(scenario, st, /*until_converged=*/false);  // to max-time: relists included
  EXPECT_GT(run.sim->stats().injected_write_errors, 0u);
  ExpectReplayMatches(st, *run.engine);
  // Level-based reconciling gets there despite the faults.
  const Json* web = Obj(*run.sim, "demo.example.com", "App", "web");
  ASSERT_NE(web, nullptr);
  EXPECT_EQ((*web)["status"]["conditions"][0]["status"], "True");
}

std::vector<std::string> LogLines(store::EventStore& st) {
  std::vector<std::string> lines;
  auto it = st.ReadEvents(1, store::kEndOfLog);
  for (; (*it)->Valid(); (*it)->Next()) {
    uint64_t seq = 0;
    auto e = records::DecodeEvent((*it)->payload(), &seq);
    lines.push_back(engine::EventToJsonl(seq, *e));
  }
  auto actions = engine::RecordedActions(st, store::kEndOfLog);
  for (const auto& a : *actions) lines.push_back(engine::ActionToJsonl(a));
  return lines;
}

TEST(RunnerTest, SameSeedSameLog) {
  Scenario scenario = MustParse(kScenario);
  scenario.faults.write_errors = {{409, 0.2}};
  scenario.faults.drop_watch = 0.05;
  store::MemoryStore a, b, c;
  RunIt(scenario, a);
  RunIt(scenario, b);
  EXPECT_EQ(LogLines(a), LogLines(b));
  scenario.seed = 99;
  RunIt(scenario, c);
  EXPECT_NE(LogLines(a), LogLines(c));
}

TEST(RunnerTest, MaxTimeStopsARunThatCannotConverge) {
  Scenario scenario = MustParse(kScenario);
  scenario.edits.push_back(scenario.edits.back());
  scenario.edits.back().at_ns = 3 * 3600 * kSecond;  // beyond the limit
  store::MemoryStore st;
  SimRun run = RunIt(scenario, st);
  EXPECT_FALSE(run.summary.converged);
  EXPECT_LE(run.summary.end_ns - run.summary.start_ns, 3600 * kSecond);
}

TEST(RunnerTest, RefusesANonEmptyStore) {
  store::MemoryStore st;
  RunIt(MustParse(kScenario), st);
  Simulator sim(MustParse(kScenario));
  auto engine = NewEngine();
  auto again =
      RunScenario(MustParse(kScenario), sim, *engine, runtime::RunOnNewLog(*engine, st), RunOptions{});
  EXPECT_FALSE(again.ok());
}

TEST(RunnerTest, RocksDbStoreRunReplaysThroughTheCli) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "recon_sim_cli_test";
  std::filesystem::remove_all(dir);
  std::string scenario = std::string(RECON_SOURCE_DIR) + "/examples/scenarios/smoke.json";
  std::string sim = recon::StrCat(RECON_BINARY, " sim --scenario ", scenario, " --store ", dir.string(),
                                  " --until-converged > ", dir.string(), ".out 2>&1");
  ASSERT_EQ(std::system(sim.c_str()), 0) << sim;
  std::string check = recon::StrCat(RECON_BINARY, " replay --check --store ", dir.string(), " > ",
                                    dir.string(), ".check 2>&1");
  EXPECT_EQ(std::system(check.c_str()), 0) << check;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace recon::sim
