// End to end: the aro domain against the simulated cluster, on the example
// scenarios (examples/scenarios/aro-*.json): an NSG detached behind the
// operator's back and re-attached; internet probes partly failing then
// recovering; a rejected service-principal secret rotated. Each run's
// final Azure objects and conditions are checked, and a fresh replay of the
// written log must give exactly the actions the run recorded.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "adapters/sim/runner.h"
#include "cli/domains.h"
#include "engine/engine.h"
#include "engine/jsonl_writer.h"
#include "engine/replay.h"
#include "records/codec.h"
#include "store/memory_store.h"

namespace recon::aro {
namespace {

using engine::Json;

constexpr int64_t kSec = 1'000'000'000;
const std::string kVnet =
    "/subscriptions/sub-1/resourceGroups/vnet-rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/";
const std::string kNsg =
    "/subscriptions/sub-1/resourceGroups/aro-infra/providers/Microsoft.Network/networkSecurityGroups/"
    "c1-abcde-nsg";

struct Run {
  std::unique_ptr<sim::Simulator> sim;
  std::unique_ptr<engine::Engine> engine;
  store::MemoryStore st;
  sim::RunSummary summary;

  const Json* Get(std::string_view group, std::string_view kind, std::string_view ns,
                  std::string_view name) const {
    return sim->objects().Get(
        engine::ObjectKey{std::string(group), std::string(kind), std::string(ns), std::string(name)});
  }
  const Json* Cluster() const { return Get("aro.openshift.io", "Cluster", "", "cluster"); }
  std::string SubnetNsg(std::string_view subnet) const {
    const Json* s = Get("network.azure.com", "Subnet", "", kVnet + std::string(subnet));
    return s == nullptr ? "<missing subnet>" : engine::GetString(*s, {"spec", "networkSecurityGroup", "id"});
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

sim::Scenario Load(const std::string& name) {
  auto s = sim::LoadScenario(RECON_SOURCE_DIR "/examples/scenarios/" + name + ".json");
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : sim::Scenario{};
}

std::unique_ptr<Run> RunIt(const sim::Scenario& scenario, bool until_converged, int64_t max_time_ns) {
  auto run = std::make_unique<Run>();
  run->sim = std::make_unique<sim::Simulator>(scenario);
  auto engine = cli::MakeEngine("aro", {});
  EXPECT_TRUE(engine.ok()) << engine.status();
  if (!engine.ok()) return nullptr;
  run->engine = std::move(*engine);
  sim::RunOptions opts;
  opts.until_converged = until_converged;
  opts.max_time_ns = max_time_ns;
  opts.options = scenario.options;
  auto summary =
      sim::RunScenario(scenario, *run->sim, *run->engine, runtime::RunOnNewLog(*run->engine, run->st), opts);
  EXPECT_TRUE(summary.ok()) << summary.status();
  if (!summary.ok()) return nullptr;
  run->summary = *summary;
  return run;
}

// The recorded actions, and a fresh engine's replay of the written log,
// as JSONL lines: they must be identical.
void ExpectReplayIdentical(Run& run) {
  std::vector<std::string> recorded;
  auto it = run.st.ReadActions(0, store::kEndOfLog);
  ASSERT_TRUE(it.ok()) << it.status();
  for (; (*it)->Valid(); (*it)->Next()) {
    auto a = records::DecodeAction((*it)->payload());
    ASSERT_TRUE(a.ok()) << a.status();
    recorded.push_back(engine::ActionToJsonl(*a));
  }
  ASSERT_TRUE((*it)->status().ok());
  auto fresh = cli::MakeEngine("aro", {});
  ASSERT_TRUE(fresh.ok());
  std::vector<std::string> replayed;
  ASSERT_TRUE(engine::ReplayStore(
                  **fresh, run.st, store::kEndOfLog,
                  [&](const records::ActionRecord& a) { replayed.push_back(engine::ActionToJsonl(a)); },
                  /*record=*/false)
                  .ok());
  EXPECT_EQ(recorded.size(), run.summary.actions);
  EXPECT_EQ(replayed, recorded);
}

int Count(const Run& run, std::string_view verb) {
  auto it = run.summary.actions_by_verb.find(std::string(verb));
  return it == run.summary.actions_by_verb.end() ? 0 : int(it->second);
}

TEST(AroE2E, DetachedNsgIsReattachedWhenTheMachineSetChanges) {
  sim::Scenario s = Load("aro-nsg-drift");
  auto run = RunIt(s, /*until_converged=*/true, 3600 * kSec);
  ASSERT_NE(run, nullptr);
  EXPECT_TRUE(run->summary.converged);
  EXPECT_EQ(run->sim->stats().edits_applied, 2u);
  EXPECT_EQ(run->SubnetNsg("master"), kNsg);
  EXPECT_EQ(run->SubnetNsg("worker"), kNsg);
  // Only the NSG changed: the endpoints and prefix were written back as read.
  const Json* master = run->Get("network.azure.com", "Subnet", "", kVnet + "master");
  ASSERT_NE(master, nullptr);
  EXPECT_EQ(engine::GetString(*master, {"spec", "addressPrefix"}), "10.0.0.0/23");
  EXPECT_EQ(engine::Path(*master, {"spec", "serviceEndpoints"}).size(), 2u);
  // Exactly one subnet PUT (the re-attach) and the annotation it stamps.
  EXPECT_EQ(Count(*run, "update"), 2);
  EXPECT_EQ(engine::GetString(*run->Cluster(),
                              {"metadata", "annotations", "aro.openshift.io/lastSubnetReconcileTimestamp"}),
            "Sat, 21 Nov 2026 10:05:30 UTC");
  EXPECT_EQ(Condition(run->Cluster(), "InternetReachableFromMaster"), "True");
  EXPECT_EQ(Condition(run->Cluster(), "ServicePrincipalValid"), "True");
  ExpectReplayIdentical(*run);
}

TEST(AroE2E, DetachedNsgIsReattachedByTheSubnetsTimer) {
  // Without the MachineSet change only the aro/subnets timer can see the
  // drift; --until-converged would stop first (timers count as idle), so
  // this run goes on for a fixed time. The default aro.subnetsInterval
  // (1h) is kept: a --set option is logged after the initial list, so a
  // replay would reduce the first Cluster without it (adapters/sim runner).
  sim::Scenario s = Load("aro-nsg-drift");
  s.edits.pop_back();
  auto run = RunIt(s, /*until_converged=*/false, 70 * 60 * kSec);
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->SubnetNsg("master"), kNsg);
  // Detached at 5m; the hourly round (first run at 10:00:00) re-attaches it.
  EXPECT_EQ(engine::GetString(*run->Cluster(),
                              {"metadata", "annotations", "aro.openshift.io/lastSubnetReconcileTimestamp"}),
            "Sat, 21 Nov 2026 11:00:00 UTC");
  ExpectReplayIdentical(*run);
}

TEST(AroE2E, InternetPartlyFailingThenRecovering) {
  sim::Scenario s = Load("aro-internet-flaky");
  auto run = RunIt(s, /*until_converged=*/true, 3600 * kSec);
  ASSERT_NE(run, nullptr);
  EXPECT_TRUE(run->summary.converged);
  EXPECT_EQ(Condition(run->Cluster(), "InternetReachableFromMaster"), "True");
  EXPECT_EQ(Condition(run->Cluster(), "InternetReachableFromMaster", "message"),
            "Outgoing connection successful");
  EXPECT_EQ(Condition(run->Cluster(), "ServicePrincipalValid"), "True");
  // Three rounds of four URLs (timeout, refused, ok), then one of five after
  // the spec change, which also re-checks the token.
  EXPECT_EQ(Count(*run, "probe"), 3 * 4 + 5 + 2);
  // The subnets controller is off: no Azure write.
  EXPECT_EQ(Count(*run, "update"), 0);
  ExpectReplayIdentical(*run);
}

TEST(AroE2E, RejectedSecretThenRotated) {
  sim::Scenario s = Load("aro-sp-rotated");
  auto run = RunIt(s, /*until_converged=*/true, 3600 * kSec);
  ASSERT_NE(run, nullptr);
  EXPECT_TRUE(run->summary.converged);
  EXPECT_EQ(Condition(run->Cluster(), "ServicePrincipalValid"), "True");
  EXPECT_EQ(Condition(run->Cluster(), "ServicePrincipalValid", "reason"), "CheckDone");  // bf96a7527b
  // False from the first answer until the rotation at 2m.
  EXPECT_EQ(Condition(run->Cluster(), "ServicePrincipalValid", "lastTransitionTime").substr(0, 16),
            "2026-11-21T10:02");
  EXPECT_EQ(Condition(run->Cluster(), "InternetReachableFromMaster"), "True");
  ExpectReplayIdentical(*run);
}

}  // namespace
}  // namespace recon::aro
