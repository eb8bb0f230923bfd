// runtime/replay_pipeline.h: the two-stage replay gives the one-thread
// replay's actions and final state, from a store and from records, and an
// error in either stage ends it with the seq named, without a hang.
#include "runtime/replay_pipeline.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "base/strings.h"
#include "engine/jsonl_writer.h"
#include "engine/replay.h"
#include "store/memory_store.h"
#include "tests/engine/test_domain.h"

namespace recon::runtime {
namespace {

using records::EventType;

std::unique_ptr<engine::Engine> MakeEngine() {
  std::vector<std::unique_ptr<engine::Reducer>> reducers;
  reducers.push_back(std::make_unique<testing::TestDomain>());
  return std::make_unique<engine::Engine>(std::move(reducers));
}

// Objects added, changed and deleted over a few namespaces (some watched,
// so the domain reads them), timers, facts, answers and a Content event:
// more events than a few batches hold.
std::vector<records::EventRecord> Log(size_t n) {
  std::vector<records::EventRecord> out;
  for (size_t i = 0; i < n; ++i) {
    records::EventRecord e;
    e.time_ns = 1'700'000'000'000'000'000 + static_cast<int64_t>(i) * 1'000'000;
    const size_t r = (i * 7919) % 23;
    if (i == 5) {
      e.type = EventType::kContent;
      e.content_name = "test/data";
      e.content_files = {{"a.json", "{\"x\":1}"}};
      e.content_digest = records::ContentDigest(e.content_files);
    } else if (r == 0) {
      e.type = EventType::kTimer;
      e.timer = "test/tick";
    } else if (r == 1) {
      e.type = EventType::kCluster;
      e.cluster_facts = StrCat("{\"n\":", i, "}");
    } else if (r == 2) {
      e.type = EventType::kActionResult;
      e.action_result.action = StrCat("a-", i);
      e.action_result.ok = false;
    } else {
      e.type = r == 3 ? EventType::kDeleted : (i % 5 == 0 ? EventType::kAdded : EventType::kModified);
      e.object = {.group = "",
                  .version = "v1",
                  .kind = "ConfigMap",
                  .ns = StrCat("ns-", i % 4),
                  .name = StrCat("cm-", i % 37),
                  .uid = "",
                  .resource_version = StrCat(i)};
      e.body = StrCat(R"({"metadata":{"name":"cm-)", i % 37, R"(","labels":{"watch":")",
                      i % 3 == 0 ? "no" : "yes", R"("}},"data":{"i":")", i, R"("}})");
    }
    out.push_back(std::move(e));
  }
  return out;
}

struct Replayed {
  std::vector<std::string> actions;
  std::string snapshot;
};

engine::StepSink Collect(Replayed* run) {
  return [run](const engine::Event&, std::span<const records::ActionRecord> as) {
    for (const auto& a : as) run->actions.push_back(engine::ActionToJsonl(a));
  };
}

TEST(ReplayPipeline, GivesTheOneThreadReplaysActionsAndStateFromAStoreAndFromRecords) {
  const std::vector<records::EventRecord> log = Log(3000);
  store::MemoryStore st;
  ASSERT_TRUE(st.Append(log).ok());

  Replayed serial, from_store, from_records;
  auto e1 = MakeEngine();
  ASSERT_TRUE(engine::ReplayStoreSteps(*e1, st, store::kEndOfLog, Collect(&serial)).ok());
  serial.snapshot = *e1->Snapshot();
  auto e2 = MakeEngine();
  absl::Status piped = ReplayStorePipelined(*e2, st, store::kEndOfLog, Collect(&from_store));
  ASSERT_TRUE(piped.ok()) << piped;
  from_store.snapshot = *e2->Snapshot();
  auto e3 = MakeEngine();
  ASSERT_TRUE(ReplayRecordsPipelined(*e3, log, store::kEndOfLog, Collect(&from_records)).ok());
  from_records.snapshot = *e3->Snapshot();

  ASSERT_GT(serial.actions.size(), 1000u);
  EXPECT_EQ(from_store.actions, serial.actions);
  EXPECT_EQ(from_records.actions, serial.actions);
  EXPECT_EQ(from_store.snapshot, serial.snapshot);
  EXPECT_EQ(from_records.snapshot, serial.snapshot);
}

TEST(ReplayPipeline, TheWorldKeepsOnlyTheParsesAReducerRead) {
  // ConfigMaps, whose labels the test domain reads, among Services it never
  // reads: the decode stage learns to parse ConfigMaps ahead, and no parse
  // of a Service outlives its Step.
  std::vector<records::EventRecord> log;
  for (size_t i = 0; i < 4000; ++i) {
    records::EventRecord e;
    e.time_ns = 1'700'000'000'000'000'000 + static_cast<int64_t>(i);
    e.type = i < 100 ? EventType::kAdded : EventType::kModified;
    const bool other = i % 2 == 1;
    e.object = {.group = "",
                .version = "v1",
                .kind = other ? "Service" : "ConfigMap",
                .ns = "ns",
                .name = StrCat("o-", i / 2 % 50),
                .uid = "",
                .resource_version = StrCat(i)};
    e.body = StrCat(R"({"metadata":{"name":"o-)", i / 2 % 50, R"(","labels":{"watch":"yes"}},"i":)", i, "}");
    log.push_back(std::move(e));
  }
  Replayed serial, piped;
  auto e1 = MakeEngine();
  ASSERT_TRUE(engine::ReplayRecordSteps(*e1, log, store::kEndOfLog, Collect(&serial)).ok());
  auto e2 = MakeEngine();
  ASSERT_TRUE(ReplayRecordsPipelined(*e2, log, store::kEndOfLog, Collect(&piped)).ok());
  EXPECT_EQ(piped.actions, serial.actions);
  for (int n = 0; n < 50; ++n) {
    const std::string name = StrCat("o-", n);
    for (const auto* w : {&e1->world(), &e2->world()}) {
      const engine::Object* other = w->Get("", "Service", "ns", name);
      const engine::Object* cm = w->Get("", "ConfigMap", "ns", name);
      ASSERT_NE(other, nullptr);
      ASSERT_NE(cm, nullptr);
      EXPECT_FALSE(other->parse_cached()) << name;
      EXPECT_TRUE(cm->parse_cached()) << name;
    }
  }
}

TEST(ReplayPipeline, StopsAtUntilAndContinuesFromTheEnginesLastSeq) {
  const std::vector<records::EventRecord> log = Log(1200);
  Replayed whole, parts;
  auto e1 = MakeEngine();
  ASSERT_TRUE(ReplayRecordsPipelined(*e1, log, store::kEndOfLog, Collect(&whole)).ok());
  auto e2 = MakeEngine();
  ASSERT_TRUE(ReplayRecordsPipelined(*e2, log, 700, Collect(&parts)).ok());
  EXPECT_EQ(e2->last_seq(), 700u);
  ASSERT_TRUE(ReplayRecordsPipelined(*e2, log, store::kEndOfLog, Collect(&parts)).ok());
  EXPECT_EQ(parts.actions, whole.actions);
}

TEST(ReplayPipeline, AnEngineErrorMidLogEndsTheReplayWithItsSeq) {
  // A Content event whose files are nowhere: the engine stage fails at its
  // seq while the decode stage is batches ahead, waiting to hand over more.
  std::vector<records::EventRecord> log = Log(5000);
  records::EventRecord& bad = log[9];
  bad = records::EventRecord{};
  bad.type = EventType::kContent;
  bad.content_name = "test/missing";
  bad.content_digest = "sha256:0000";
  auto e = MakeEngine();
  absl::Status s = ReplayRecordsPipelined(*e, log, store::kEndOfLog, nullptr);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("seq 10"), std::string_view::npos) << s;
  EXPECT_EQ(e->last_seq(), 9u);
}

}  // namespace
}  // namespace recon::runtime
