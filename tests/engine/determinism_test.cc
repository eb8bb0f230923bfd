// Determinism, proven: generated logs replayed twice, from snapshots at
// random points, through MemoryStore and RocksDbStore, must give identical
// action bytes and identical state digests.
#include <filesystem>
#include <random>

#include "base/strings.h"
#include "engine/engine.h"
#include "engine/jsonl_writer.h"
#include "engine/replay.h"
#include "gtest/gtest.h"
#include "store/memory_store.h"
#include "store/rocksdb_store.h"
#include "tests/engine/test_domain.h"

namespace recon {
namespace {

using records::EventRecord;
using records::EventType;

std::vector<EventRecord> Generate(uint32_t seed, size_t n) {
  std::mt19937 rng(seed);
  auto pick = [&](int k) { return static_cast<int>(rng() % k); };
  std::vector<EventRecord> out;
  int64_t t = 1'800'000'000'000'000'000;
  int rv = 1;
  for (size_t i = 0; i < n; ++i) {
    t += (1 + pick(5000)) * 1'000'000LL;
    EventRecord e;
    e.time_ns = t;
    int what = pick(20);
    if (what < 14) {
      e.type = what < 4 ? EventType::kAdded : what < 12 ? EventType::kModified : EventType::kDeleted;
      e.object.version = "v1";
      e.object.kind = "ConfigMap";
      e.object.ns = recon::StrCat("ns", pick(3));
      e.object.name = recon::StrCat("cm", pick(12));
      e.object.resource_version = recon::StrCat(rv++);
      std::string labels = pick(2) ? R"("labels":{"watch":"yes"},)" : "";
      e.body = recon::StrCat(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{)", labels, R"("name":")",
                             e.object.name, R"(","namespace":")", e.object.ns, R"(","resourceVersion":")",
                             e.object.resource_version, R"("},"data":{"k":")", pick(1000), R"("}})");
    } else if (what < 16) {
      e.type = EventType::kTimer;
      e.timer = pick(4) ? "test/tick" : "other/timer";
    } else if (what < 17) {
      e.type = EventType::kProbe;
      e.probe.name = "test/ping";
      e.probe.target = "https://example.test/1";
      e.probe.ok = pick(2);
    } else if (what < 19) {
      e.type = EventType::kActionResult;
      e.action_result.action = recon::StrCat(pick(i + 1), ".", pick(3));
      e.action_result.ok = pick(3) == 0;
      e.action_result.status = 409;
    } else {
      e.type = EventType::kCluster;
      e.cluster_facts = recon::StrCat(R"({"architecture":")", pick(2) ? "x86_64" : "arm64", R"(","ipv6":)",
                                      pick(2) ? "true" : "false", "}");
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::unique_ptr<engine::Engine> MakeEngine(bool read_clock = false) {
  std::vector<std::unique_ptr<engine::Reducer>> reducers;
  auto d = std::make_unique<testing::TestDomain>();
  d->set_read_clock(read_clock);
  reducers.push_back(std::move(d));
  return std::make_unique<engine::Engine>(std::move(reducers));
}

struct ReplayRun {
  std::string actions;  // JSONL bytes
  std::string digest;
};

ReplayRun FromRecords(const std::vector<EventRecord>& events, bool read_clock = false) {
  auto e = MakeEngine(read_clock);
  ReplayRun r;
  EXPECT_TRUE(engine::ReplayRecords(*e, events, store::kEndOfLog, [&](const records::ActionRecord& a) {
                r.actions += engine::ActionToJsonl(a);
              }).ok());
  r.digest = *e->StateDigest();
  return r;
}

ReplayRun FromStore(store::EventStore& st) {
  auto e = MakeEngine();
  ReplayRun r;
  auto s = engine::ReplayStore(*e, st, store::kEndOfLog, [&](const records::ActionRecord& a) {
    r.actions += engine::ActionToJsonl(a);
  });
  EXPECT_TRUE(s.ok()) << s;
  r.digest = *e->StateDigest();
  return r;
}

// Actions of the events after `k`, from a snapshot taken at k.
ReplayRun FromSnapshot(const std::vector<EventRecord>& events, uint64_t k, std::string* tail_of_full) {
  auto first = MakeEngine();
  EXPECT_TRUE(engine::ReplayRecords(*first, events, k, nullptr).ok());
  auto snap = first->Snapshot();
  EXPECT_TRUE(snap.ok());
  auto second = MakeEngine();
  EXPECT_TRUE(second->Restore(*snap).ok());
  EXPECT_EQ(second->last_seq(), k);
  EXPECT_EQ(*second->StateDigest(), *first->StateDigest());
  ReplayRun r;
  EXPECT_TRUE(engine::ReplayRecords(*second, events, store::kEndOfLog, [&](const records::ActionRecord& a) {
                r.actions += engine::ActionToJsonl(a);
              }).ok());
  r.digest = *second->StateDigest();
  auto full = MakeEngine();
  EXPECT_TRUE(engine::ReplayRecords(*full, events, store::kEndOfLog, [&](const records::ActionRecord& a) {
                if (a.cause_seq > k) *tail_of_full += engine::ActionToJsonl(a);
              }).ok());
  return r;
}

class DeterminismTest : public ::testing::TestWithParam<uint32_t> {};

TEST_P(DeterminismTest, ReplayTwiceFromSnapshotsAndThroughBothStores) {
  const uint32_t seed = GetParam();
  auto events = Generate(seed, 400);
  ReplayRun a = FromRecords(events);
  ReplayRun b = FromRecords(events);
  ASSERT_FALSE(a.actions.empty());
  EXPECT_EQ(a.actions, b.actions);
  EXPECT_EQ(a.digest, b.digest);

  store::MemoryStore mem;
  ASSERT_TRUE(mem.Append(events).ok());
  ReplayRun m = FromStore(mem);
  EXPECT_EQ(a.actions, m.actions);
  EXPECT_EQ(a.digest, m.digest);

  auto dir = std::filesystem::temp_directory_path() / recon::StrCat("recon-determinism-", seed, "-", getpid());
  std::filesystem::remove_all(dir);
  {
    store::RocksDbOptions o;
    o.durability = store::Durability::kNoSync;
    auto rocks = store::RocksDbStore::Open(dir.string(), o);
    ASSERT_TRUE(rocks.ok()) << rocks.status();
    // Several appends of uneven size, as an agent would.
    std::mt19937 rng(seed);
    for (size_t i = 0; i < events.size();) {
      size_t n = std::min<size_t>(1 + rng() % 40, events.size() - i);
      ASSERT_TRUE((*rocks)->Append(std::span<const EventRecord>(events.data() + i, n)).ok());
      i += n;
    }
    ReplayRun r = FromStore(**rocks);
    EXPECT_EQ(a.actions, r.actions);
    EXPECT_EQ(a.digest, r.digest);

    // A snapshot stored mid-log, then a restore + tail through the store.
    uint64_t k = 1 + rng() % events.size();
    auto e = MakeEngine();
    ASSERT_TRUE(engine::ReplayStore(*e, **rocks, k, nullptr).ok());
    ASSERT_TRUE((*rocks)->PutSnapshot(k, *e->Snapshot()).ok());
    auto resumed = MakeEngine();
    auto restored = engine::RestoreFromStore(*resumed, **rocks, store::kEndOfLog);
    ASSERT_TRUE(restored.ok());
    EXPECT_EQ(*restored, k);
    std::string tail;
    ASSERT_TRUE(engine::ReplayStore(*resumed, **rocks, store::kEndOfLog, [&](const records::ActionRecord& a) {
                  tail += engine::ActionToJsonl(a);
                }).ok());
    EXPECT_EQ(*resumed->StateDigest(), a.digest);
    std::string expected_tail;
    for (size_t pos = 0; pos < a.actions.size();) {
      size_t end = a.actions.find('\n', pos) + 1;
      std::string line = a.actions.substr(pos, end - pos);
      uint64_t cause = std::stoull(line.substr(9));
      if (cause > k) expected_tail += line;
      pos = end;
    }
    EXPECT_EQ(tail, expected_tail);
  }
  std::filesystem::remove_all(dir);

  // Snapshots at several random points of the in-memory replay.
  std::mt19937 rng(seed * 7919);
  for (int i = 0; i < 4; ++i) {
    uint64_t k = rng() % (events.size() + 1);
    std::string full_tail;
    ReplayRun s = FromSnapshot(events, k, &full_tail);
    EXPECT_EQ(s.actions, full_tail) << "snapshot at seq " << k;
    EXPECT_EQ(s.digest, a.digest) << "snapshot at seq " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, DeterminismTest, ::testing::Range(1u, 26u));

// The harness really catches an impure reducer: one that reads the clock
// produces different bytes on two replays of the same log.
TEST(DeterminismHarness, CatchesAReducerThatReadsTheClock) {
  auto events = Generate(99, 50);
  ReplayRun a = FromRecords(events, /*read_clock=*/true);
  ReplayRun b = FromRecords(events, /*read_clock=*/true);
  EXPECT_NE(a.actions, b.actions);
}

TEST(Engine, OptionsAreValidatedByTheDomain) {
  auto e = MakeEngine();
  EXPECT_TRUE(e->SetOption("test.interval", "5m", true).ok());
  auto bad = e->SetOption("test.interval", "soon", true);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.message()).find("expected a duration"), std::string::npos) << bad;
  auto unknown = e->SetOption("test.nope", "1", true);
  EXPECT_FALSE(unknown.ok());
  EXPECT_NE(std::string(unknown.message()).find("unknown option test.nope (known: test.interval)"), std::string::npos)
      << unknown;
  EXPECT_FALSE(e->SetOption("nodot", "1", true).ok());
}

TEST(Engine, OptionsRecordedInTheLogApplyUnlessOverridden) {
  std::vector<EventRecord> events(2);
  events[0].type = EventType::kCluster;
  events[0].cluster_facts = R"({"options":{"test.interval":"10s"}})";
  events[1].type = EventType::kTimer;
  events[1].timer = "test/tick";
  events[1].time_ns = 1'000'000'000;
  auto run = [&](bool override_it) {
    auto e = MakeEngine();
    if (override_it) EXPECT_TRUE(e->SetOption("test.interval", "1m", true).ok());
    std::string out;
    EXPECT_TRUE(engine::ReplayRecords(*e, events, store::kEndOfLog, [&](const records::ActionRecord& a) {
                  out += engine::ActionToJsonl(a);
                }).ok());
    return out;
  };
  EXPECT_NE(run(false).find("\"at\":\"1970-01-01T00:00:11Z\""), std::string::npos) << run(false);
  EXPECT_NE(run(true).find("\"at\":\"1970-01-01T00:01:01Z\""), std::string::npos) << run(true);

  events[0].cluster_facts = R"({"options":{"test.interval":"often"}})";
  auto e = MakeEngine();
  auto s = engine::ReplayRecords(*e, events, store::kEndOfLog, nullptr);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("seq 1"), std::string::npos) << s;
}

TEST(Engine, ActionsCarryTheirCauseAndUniqueIndexes) {
  auto events = Generate(3, 100);
  auto e = MakeEngine();
  std::map<uint64_t, uint32_t> next;
  ASSERT_TRUE(engine::ReplayRecords(*e, events, store::kEndOfLog, [&](const records::ActionRecord& a) {
                EXPECT_EQ(a.index, next[a.cause_seq]++);
                EXPECT_GE(a.cause_seq, 1u);
                EXPECT_LE(a.cause_seq, events.size());
              }).ok());
}

}  // namespace
}  // namespace recon
