// Every DisconnectedFriendlyApp write must pass the real CRD (issue 18): the
// example scenario (examples/scenarios/disconnected-dfa.json: drift
// repaired, a Deployment recreated, replicas changed, the operator rolled,
// an instance deleted) through the simulated cluster, and every status
// write checked as a real kube-apiserver takes it: it carries
// metadata.resourceVersion (a real server refuses an update of a custom
// resource without one), only the status fields the CRD declares, and it
// admits against the real CRD (crd::Registry::Builtin) with zero field
// errors.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "adapters/sim/runner.h"
#include "cli/domains.h"
#include "crd/registry.h"
#include "engine/engine.h"
#include "records/codec.h"
#include "store/memory_store.h"

namespace recon::disconnected {
namespace {

using engine::Json;

TEST(DisconnectedCrdWrites, ExampleScenarioWritesOnlyWhatTheRealCrdDeclares) {
  auto scenario = sim::LoadScenario(RECON_SOURCE_DIR "/examples/scenarios/disconnected-dfa.json");
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  sim::Simulator sim(*scenario);
  auto engine = cli::MakeEngine("disconnected", {});
  ASSERT_TRUE(engine.ok()) << engine.status();
  store::MemoryStore st;
  sim::RunOptions opts;
  opts.until_converged = true;
  opts.options = scenario->options;
  auto summary = sim::RunScenario(*scenario, sim, **engine, runtime::RunOnNewLog(**engine, st), opts);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_TRUE(summary->converged);

  auto reg = crd::Registry::Builtin();
  ASSERT_TRUE(reg.ok()) << reg.status();
  const crd::Kind* kind = reg->Find("tools.opdev.io", "v1alpha1", "DisconnectedFriendlyApp");
  ASSERT_NE(kind, nullptr);
  const std::set<std::string> declared = {"observedGeneration", "busyBoxImage", "sleeperImage",
                                          "defaultBusyBoxImage", "defaultSleeperImage"};
  int statuses = 0, refused = 0;
  auto it = st.ReadActions(0, store::kEndOfLog);
  ASSERT_TRUE(it.ok()) << it.status();
  for (; (*it)->Valid(); (*it)->Next()) {
    auto a = records::DecodeAction((*it)->payload());
    ASSERT_TRUE(a.ok()) << a.status();
    if (a->object.kind != "DisconnectedFriendlyApp") continue;
    SCOPED_TRACE(a->body);
    EXPECT_EQ(a->verb, "updateStatus");  // the instance itself is never created or updated
    auto body = engine::ParseJson(a->body);
    ASSERT_TRUE(body.ok());
    ++statuses;
    EXPECT_FALSE(engine::GetString(*body, {"metadata", "resourceVersion"}).empty());
    for (const auto& [k, v] : engine::Path(*body, {"status"}).items())
      EXPECT_TRUE(declared.contains(k)) << "undeclared status field " << k;
    Json object = *body;
    std::vector<crd::FieldError> errors = reg->Admit(*kind, object, nullptr);
    for (const auto& e : errors) ADD_FAILURE() << e.ToString();
  }
  ASSERT_TRUE((*it)->status().ok());
  EXPECT_GT(statuses, 0);
  // No write of the run was refused by the cluster.
  for (const auto& [verb, n] : sim.stats().results_failed) refused += int(n);
  EXPECT_EQ(refused, 0);
}

}  // namespace
}  // namespace recon::disconnected
