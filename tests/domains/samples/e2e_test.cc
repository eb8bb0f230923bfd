// End to end: the samples domain against the simulated cluster with the
// real inventory (datasets/samples): converge from an
// empty cluster; Removed while imports are in flight; back to Managed.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli/domains.h"
#include "domains/samples/inventory.h"
#include "domains/samples/names.h"
#include "domains/samples/reducer.h"
#include "engine/engine.h"
#include "engine/replay.h"
#include "store/memory_store.h"

#if __has_include("adapters/sim/runner.h")
#include "adapters/sim/runner.h"
#define RECON_E2E_HAVE_SIM 1
#endif

namespace recon::samples {
namespace {

using engine::Json;

const std::string kRealInventory = RECON_SOURCE_DIR "/datasets/samples/ocp-x86_64";
constexpr int64_t kMinute = 60 * kNsPerSecond;

#ifdef RECON_E2E_HAVE_SIM

struct Run {
  std::unique_ptr<sim::Simulator> sim;
  std::unique_ptr<engine::Engine> engine;
  store::MemoryStore st;
  sim::RunSummary summary;

  const SamplesState& state() const {
    return static_cast<const SamplesReducer&>(*engine->reducers()[0]).state();
  }
  const Json* Get(std::string_view group, std::string_view kind, std::string_view ns,
                  std::string_view name) const {
    return sim->objects().Get(
        engine::ObjectKey{std::string(group), std::string(kind), std::string(ns), std::string(name)});
  }
  // Managed samples of `kind` in `openshift`, as the cluster holds them.
  int Managed(std::string_view group, std::string_view kind) const {
    int n = 0;
    for (const auto& [key, obj] : sim->objects().objects()) {
      if (key.group == group && key.kind == kind && key.ns == kSamplesNs &&
          engine::GetString(obj, {"metadata", "labels", std::string(kManagedLabel)}) == "true")
        ++n;
    }
    return n;
  }
};

std::string Condition(const Json* obj, std::string_view type, std::string_view field = "status") {
  if (obj == nullptr) return "<missing object>";
  const Json& conds = engine::Path(*obj, {"status", "conditions"});
  if (!conds.is_array()) return "<no conditions>";
  for (const Json& c : conds)
    if (engine::GetString(c, {"type"}) == type) return engine::GetString(c, {field});
  return "<no condition>";
}

std::unique_ptr<Run> RunIt(const sim::Scenario& scenario, bool until_converged, int64_t max_time_ns) {
  auto run = std::make_unique<Run>();
  run->sim = std::make_unique<sim::Simulator>(scenario);
  auto engine = cli::MakeEngine("samples", {});
  EXPECT_TRUE(engine.ok()) << engine.status();
  if (!engine.ok()) return nullptr;
  run->engine = std::move(*engine);
  sim::RunOptions opts;
  opts.until_converged = until_converged;
  opts.max_time_ns = max_time_ns;
  opts.options = scenario.options;
  opts.options.emplace_back("samples.inventory", scenario.samples_inventory);
  opts.load_directory = [](const std::string& dir) { return cli::LoadDirectory(dir); };
  auto summary =
      sim::RunScenario(scenario, *run->sim, *run->engine, runtime::RunOnNewLog(*run->engine, run->st), opts);
  EXPECT_TRUE(summary.ok()) << summary.status();
  if (!summary.ok()) return nullptr;
  run->summary = *summary;
  return run;
}

class SamplesE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::is_directory(kRealInventory))
      FAIL() << "real samples inventory not found at " << kRealInventory
                   << " (datasets/ of the repository)";
    auto files = cli::LoadDirectory(kRealInventory);
    ASSERT_TRUE(files.ok()) << files.status();
    auto inv = LoadInventory(*files);
    ASSERT_TRUE(inv.ok()) << inv.status();
    streams_ = int(inv->streams.size());
    templates_ = int(inv->templates.size());
  }

  // The example scenario: Removed at 1m while imports are in flight, the
  // jenkins imports hanging; Managed again at 20m.
  sim::Scenario Inflight() {
    auto s = sim::LoadScenario(RECON_SOURCE_DIR "/examples/scenarios/samples-removed-inflight.json");
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? *s : sim::Scenario{};
  }

  int streams_ = 0, templates_ = 0;
};

TEST_F(SamplesE2E, ConvergesFromEmptyClusterWithRealInventory) {
  sim::Scenario s;
  s.name = "samples-e2e-empty";
  s.facts = Json{{"architecture", "x86_64"}, {"ipv6", false}, {"disconnected", false}, {"version", "4.16.0"}};
  s.samples_inventory = kRealInventory;
  auto run = RunIt(s, /*until_converged=*/true, 3 * 3600 * kNsPerSecond);
  ASSERT_NE(run, nullptr);
  EXPECT_TRUE(run->summary.converged);
  EXPECT_EQ(streams_, 50);
  EXPECT_EQ(templates_, 50);
  EXPECT_EQ(run->Managed(kImageGroup, "ImageStream"), streams_);
  EXPECT_EQ(run->Managed(kTemplateGroup, "Template"), templates_);
  const Json* cfg = run->Get(kSamplesGroup, "Config", "", kConfigName);
  ASSERT_NE(cfg, nullptr);
  EXPECT_EQ(engine::GetString(*cfg, {"status", "managementState"}), "Managed");
  EXPECT_EQ(engine::GetString(*cfg, {"status", "version"}), "4.16.0");
  EXPECT_EQ(Condition(cfg, kSamplesExist), "True");
  EXPECT_EQ(Condition(cfg, kImportImageErrorsExist), "False");
  EXPECT_EQ(Condition(cfg, kRemovePending), "False");
  const Json* co = run->Get(kConfigGroup, "ClusterOperator", "", kClusterOperatorName);
  EXPECT_EQ(Condition(co, "Available"), "True");
  EXPECT_EQ(Condition(co, "Progressing"), "False");
  EXPECT_EQ(Condition(co, "Degraded"), "False");
  EXPECT_NE(run->Get("", "ConfigMap", kOperatorNs, kIstToImageCm), nullptr);
  EXPECT_TRUE(run->state().failing.empty());

  // The recorded log replays to exactly the actions the run recorded.
  auto fresh = cli::MakeEngine("samples", {});
  ASSERT_TRUE(fresh.ok());
  uint64_t replayed = 0;
  ASSERT_TRUE(engine::ReplayStore(
                  **fresh, run->st, store::kEndOfLog, [&](const records::ActionRecord&) { ++replayed; },
                  /*record=*/false)
                  .ok());
  EXPECT_EQ(replayed, run->summary.actions);
}

TEST_F(SamplesE2E, RemovedWhileImportsInFlightWaitsThenGivesUpOnTheHungOnes) {
  sim::Scenario s = Inflight();
  // Stop before the flip back at 20m.
  auto run = RunIt(s, /*until_converged=*/false, 15 * kMinute);
  ASSERT_NE(run, nullptr);
  ASSERT_TRUE(run->state().removal.has_value());
  const RemovalRecord& r = *run->state().removal;
  EXPECT_GE(r.requested_ns - s.start_ns, 1 * kMinute);  // the edit at 1m
  EXPECT_LT(r.requested_ns - s.start_ns, 2 * kMinute);
  EXPECT_NE(r.waiting_since_seq, 0u);
  EXPECT_NE(r.gave_up_seq, 0u);  // the jenkins imports never finished
  EXPECT_EQ(r.abandoned, (std::vector<std::string>{"jenkins", "jenkins-agent-base"}));
  // The limit is 10 minutes from when the wait began (≈1m).
  EXPECT_GE(r.gave_up_ns - r.waiting_since_ns, 10 * kMinute);
  EXPECT_LT(r.gave_up_ns - s.start_ns, 12 * kMinute);
  EXPECT_NE(r.completed_seq, 0u);
  const Json* cfg = run->Get(kSamplesGroup, "Config", "", kConfigName);
  ASSERT_NE(cfg, nullptr);
  EXPECT_EQ(engine::GetString(*cfg, {"status", "managementState"}), "Removed");
  EXPECT_EQ(Condition(cfg, kSamplesExist), "False");
  EXPECT_EQ(Condition(cfg, kRemovePending), "False");  // stage 3 ran
  EXPECT_EQ(run->Managed(kImageGroup, "ImageStream"), 0);
  EXPECT_EQ(run->Managed(kTemplateGroup, "Template"), 0);
  const Json* co = run->Get(kConfigGroup, "ClusterOperator", "", kClusterOperatorName);
  EXPECT_EQ(Condition(co, "Available", "reason"), "CurrentlyRemoved");
  EXPECT_EQ(Condition(co, "Progressing"), "False");
}

TEST_F(SamplesE2E, RemovedThenManagedAgainRecreatesEverything) {
  sim::Scenario s = Inflight();
  auto run = RunIt(s, /*until_converged=*/true, 4 * 3600 * kNsPerSecond);
  ASSERT_NE(run, nullptr);
  EXPECT_TRUE(run->summary.converged);
  EXPECT_FALSE(run->state().removal.has_value());
  ASSERT_EQ(run->state().past_removals.size(), 1u);
  EXPECT_NE(run->state().past_removals[0].completed_seq, 0u);
  EXPECT_EQ(run->Managed(kImageGroup, "ImageStream"), streams_);
  EXPECT_EQ(run->Managed(kTemplateGroup, "Template"), templates_);
  const Json* cfg = run->Get(kSamplesGroup, "Config", "", kConfigName);
  ASSERT_NE(cfg, nullptr);
  EXPECT_EQ(engine::GetString(*cfg, {"spec", "managementState"}), "Managed");
  EXPECT_EQ(engine::GetString(*cfg, {"status", "managementState"}), "Managed");
  EXPECT_EQ(Condition(cfg, kSamplesExist), "True");
  EXPECT_EQ(Condition(cfg, kRemovePending), "False");
  const Json* co = run->Get(kConfigGroup, "ClusterOperator", "", kClusterOperatorName);
  EXPECT_EQ(Condition(co, "Available"), "True");
  EXPECT_EQ(Condition(co, "Progressing"), "False");
  EXPECT_EQ(Condition(co, "Degraded"), "False");
}

#else

TEST(SamplesE2E, NeedsTheSimulatedCluster) { GTEST_SKIP() << "built without adapters/sim"; }

#endif

}  // namespace
}  // namespace recon::samples
