// recon explain for samples: the removal story in plain words, read from
// the same scenario logs the replay tests use.
#include "engine/explain.h"

#include <gtest/gtest.h>

#include "base/strings.h"
#include "tests/domains/samples/scenario_util.h"

namespace recon::samples {
namespace {

using testing::SamplesEngine;
using testing::ScenarioEvents;

// The domain's own notes ("state", "wait", "note"), as "seq N kind: text".
std::vector<std::string> Notes(const std::string& scenario, const std::vector<std::string>& sets = {}) {
  auto engine = SamplesEngine(sets);
  if (!engine) return {};
  auto events = ScenarioEvents(scenario);
  auto timeline = engine::ExplainRecords(*engine, events, "samples");
  EXPECT_TRUE(timeline.ok()) << timeline.status();
  std::vector<std::string> out;
  if (!timeline.ok()) return out;
  for (const auto& e : timeline->entries()) {
    if (e.kind == "state" || e.kind == "wait" || e.kind == "note")
      out.push_back(recon::StrCat("seq ", e.seq, " ", e.kind, ": ", e.text));
  }
  return out;
}

bool Has(const std::vector<std::string>& notes, std::string_view needle) {
  for (const auto& n : notes)
    if (n.find(needle) != std::string::npos) return true;
  return false;
}

std::string All(const std::vector<std::string>& notes) {
  std::string s;
  for (const auto& n : notes) s += n + "\n";
  return s;
}

TEST(SamplesExplain, RemovalWaitsThenGivesUp) {
  auto notes = Notes("removal_waits_then_gives_up");
  EXPECT_TRUE(Has(notes, "seq 11 state: spec.managementState Managed -> Removed")) << All(notes);
  EXPECT_TRUE(Has(notes, "seq 11 state: Removed requested (removalImportWait=10m)")) << All(notes);
  EXPECT_TRUE(Has(notes,
                  "seq 12 wait: Removed waiting on 2 in-progress imports (jenkins, nodejs) since seq 12 "
                  "(10:10:01); gives up at 10:20:01 (10m limit)"))
      << All(notes);
  EXPECT_TRUE(Has(notes, "seq 14 wait: still waiting on 1 in-progress import (jenkins) since seq 12"))
      << All(notes);
  EXPECT_TRUE(Has(notes,
                  "seq 16 state: Removed requested at seq 11 (10:10:00) — waited on 2 in-progress imports "
                  "(jenkins, nodejs) since seq 12; gave up at seq 16 (10m limit), abandoned: jenkins; "
                  "samples removed at seq 16"))
      << All(notes);
  EXPECT_TRUE(Has(notes, "seq 16 state: status.managementState Managed -> Removed")) << All(notes);
}

TEST(SamplesExplain, RemovalWaitsForeverHasNoLimit) {
  auto notes = Notes("removal_waits_forever", {"samples.removalImportWait=forever"});
  EXPECT_TRUE(Has(notes, "no limit (removalImportWait=forever)")) << All(notes);
  EXPECT_TRUE(Has(notes,
                  "seq 14 wait: still waiting on 1 in-progress import (jenkins) since seq 12 (10:10:01), "
                  "29m59s so far"))
      << All(notes);
  // Only jenkins finishing (seq 16, 80 minutes later) ends it.
  EXPECT_TRUE(Has(notes, "the imports finished after 1h19m59s; samples removed at seq 16")) << All(notes);
  EXPECT_FALSE(Has(notes, "gave up")) << All(notes);
}

TEST(SamplesExplain, RemovalWaitEndsWhenImportsFinish) {
  auto notes = Notes("removal_wait_imports_finish");
  EXPECT_TRUE(Has(notes, "the imports finished after")) << All(notes);
  EXPECT_FALSE(Has(notes, "gave up")) << All(notes);
}

TEST(SamplesExplain, BootstrapSaysWhy) {
  EXPECT_TRUE(Has(Notes("bootstrap_managed"),
                  "bootstrap: created the default Config as Managed (the samples registry is reachable)"));
  EXPECT_TRUE(Has(Notes("bootstrap_ipv6_removed"), "as Removed (single-stack IPv6 cluster)"));
  auto probe = Notes("bootstrap_probe_unreachable");
  EXPECT_TRUE(Has(probe, "waiting on the probe samples/registry -> registry.redhat.io:443")) << All(probe);
  // Asked again on the 20 s ticks from the first probe, Removed after 5 minutes.
  EXPECT_TRUE(Has(probe,
                  "seq 3 wait: the probe samples/registry -> registry.redhat.io:443 failed (dial tcp: i/o timeout): "
                  "asked again at 2026-11-21T10:00:21Z, bootstrap Removed at 2026-11-21T10:05:01Z if it never "
                  "answers"))
      << All(probe);
  EXPECT_TRUE(Has(probe, "the 5 minutes are up before the next try; bootstrap Removed at 2026-11-21T10:05:01Z"))
      << All(probe);
  EXPECT_TRUE(Has(probe, "as Removed (the registry probe failed for 5 minutes)")) << All(probe);
}

TEST(SamplesExplain, QuickFlipBackIsAWithdrawnRemoval) {
  auto notes = Notes("removed_managed_flip_clears_remove_pending");
  EXPECT_TRUE(Has(notes, "withdrawn before samples were removed")) << All(notes);
}

TEST(SamplesExplain, FailingImportsAreNamed) {
  auto notes = Notes("import_failure_retry_and_report");
  EXPECT_TRUE(Has(notes, "failing imagestream imports: ruby")) << All(notes);
}

TEST(SamplesExplain, ExplainDoesNotChangeWhatReduceDoes) {
  // Explain runs after every Reduce: the actions must be those of a replay.
  auto events = ScenarioEvents("removal_waits_then_gives_up");
  auto a = SamplesEngine();
  auto b = SamplesEngine();
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(engine::ExplainRecords(*a, events, "samples").ok());
  for (uint64_t seq = 1; seq <= events.size(); ++seq) {
    std::vector<records::ActionRecord> out;
    ASSERT_TRUE(b->Step(engine::Event::FromRecord(seq, events[seq - 1]), &out).ok());
  }
  EXPECT_EQ(*a->StateDigest(), *b->StateDigest());
}

}  // namespace
}  // namespace recon::samples
