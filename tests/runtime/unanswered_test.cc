// A killed agent leaves actions logged but unanswered: FindUnanswered finds
// them; a restarted Runtime asks again for timers and probes (they died
// with the process) and settles writes with an Interrupted result, so the
// reducers decide again. A kill between appending events and recording
// their actions leaves actions nowhere: the restart records and sends them.
#include "runtime/unanswered.h"

#include <deque>

#include "base/splitmix.h"
#include "base/strings.h"
#include "engine/emit.h"
#include "engine/engine.h"
#include "engine/replay.h"
#include "gtest/gtest.h"
#include "records/codec.h"
#include "runtime/metrics.h"
#include "runtime/runtime.h"
#include "runtime/time_source.h"
#include "store/memory_store.h"
#include "tests/engine/test_domain.h"

namespace recon::runtime {

using engine::ActionId;
using engine::Engine;
using engine::RecordedActions;
using engine::Reducer;
using engine::ReplayStore;
using engine::World;
namespace {

records::EventRecord Added(int64_t t, const std::string& name) {
  records::EventRecord e;
  e.time_ns = t;
  e.type = records::EventType::kAdded;
  e.object = {"", "v1", "ConfigMap", "ns", name, "", "1"};
  e.body = recon::StrCat(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")", name,
                         R"(","namespace":"ns","labels":{"watch":"yes"}}})");
  return e;
}

records::EventRecord Result(int64_t t, const std::string& id) {
  records::EventRecord e;
  e.time_ns = t;
  e.type = records::EventType::kActionResult;
  e.action_result.action = id;
  e.action_result.ok = true;
  return e;
}

records::ActionRecord Write(uint32_t index, const std::string& verb, const std::string& kind,
                            const std::string& name) {
  records::ActionRecord a;
  a.cause_seq = 1;
  a.index = index;
  a.domain = "test";
  a.verb = verb;
  a.object = {"", "v1", kind, kind == "Namespace" ? "" : "ns", name, "", ""};
  a.body = recon::StrCat(R"({"apiVersion":"v1","kind":")", kind, R"(","metadata":{"name":")", name, R"("}})");
  return a;
}

// The log a kill leaves: event 1 caused seven actions; only 1.4 was
// answered (which also settles 1.1, the same Namespace's superseded
// write); the timer never fired and the probe never came back.
void KilledRun(store::MemoryStore& st, int64_t t) {
  std::vector<records::EventRecord> first = {Added(t, "cm0")};
  ASSERT_TRUE(st.Append(first).ok());
  std::vector<records::ActionRecord> actions = {
      Write(0, "update", "Secret", "derived-cm0"),     // never answered
      Write(1, "updateStatus", "Namespace", "ns"),     // superseded by 1.4
      {},                                              // setTimer, below
      {},                                              // probe, below
      Write(4, "updateStatus", "Namespace", "ns"),     // answered
      Write(5, "updateStatus", "Namespace", "other"),  // superseded by 1.6
      Write(6, "updateStatus", "Namespace", "other"),  // never answered
  };
  actions[2].cause_seq = 1;
  actions[2].index = 2;
  actions[2].domain = "test";
  actions[2].verb = "setTimer";
  actions[2].timer = "test/tick";
  actions[2].at_ns = t + 60'000'000'000;
  actions[3].cause_seq = 1;
  actions[3].index = 3;
  actions[3].domain = "test";
  actions[3].verb = "probe";
  actions[3].probe = "test/ping";
  actions[3].target = "https://example.test/0";
  ASSERT_TRUE(st.AppendActions(actions).ok());
  std::vector<records::EventRecord> second = {Result(t + 1, "1.4")};
  ASSERT_TRUE(st.Append(second).ok());
}

TEST(Unanswered, FindsWritesTimersAndProbesLeftHanging) {
  store::MemoryStore st;
  KilledRun(st, 1'800'000'000'000'000'000);
  auto u = FindUnanswered(st);
  ASSERT_TRUE(u.ok()) << u.status();
  ASSERT_EQ(u->writes.size(), 2u);
  EXPECT_EQ(ActionId(u->writes[0].cause_seq, u->writes[0].index), "1.0");
  EXPECT_EQ(ActionId(u->writes[1].cause_seq, u->writes[1].index), "1.6");
  ASSERT_EQ(u->rearm.size(), 2u);
  EXPECT_EQ(u->rearm[0].verb, "setTimer");
  EXPECT_EQ(u->rearm[1].verb, "probe");
}

TEST(Unanswered, AWriteAnsweredOnlyWith5xxOr429IsStillUnanswered) {
  // The runtime sends such a write again; a kill before the retry's answer
  // lost it with the dead process's queue (the olm soak: an InstallPlan
  // create answered 500, never retried after the restart, referenced by its
  // subscription for ever).
  store::MemoryStore st;
  const int64_t t = 1'800'000'000'000'000'000;
  KilledRun(st, t);
  auto failed = [&](const std::string& id, int32_t status) {
    records::EventRecord e = Result(t + 2, id);
    e.action_result.ok = false;
    e.action_result.status = status;
    e.action_result.error = "injected";
    std::vector<records::EventRecord> v = {e};
    ASSERT_TRUE(st.Append(v).ok());
  };
  failed("1.0", 500);
  failed("1.6", 429);
  auto u = FindUnanswered(st);
  ASSERT_TRUE(u.ok()) << u.status();
  ASSERT_EQ(u->writes.size(), 2u);
  EXPECT_EQ(ActionId(u->writes[0].cause_seq, u->writes[0].index), "1.0");
  EXPECT_EQ(ActionId(u->writes[1].cause_seq, u->writes[1].index), "1.6");
  // A refusal (4xx) is an answer.
  failed("1.0", 422);
  u = FindUnanswered(st);
  ASSERT_TRUE(u.ok()) << u.status();
  ASSERT_EQ(u->writes.size(), 1u);
  EXPECT_EQ(ActionId(u->writes[0].cause_seq, u->writes[0].index), "1.6");
}

TEST(Unanswered, AnsweredTimersAndProbesAreNotAskedAgain) {
  store::MemoryStore st;
  int64_t t = 1'800'000'000'000'000'000;
  KilledRun(st, t);
  records::EventRecord timer;
  timer.time_ns = t + 60'000'000'000;
  timer.type = records::EventType::kTimer;
  timer.timer = "test/tick";
  records::EventRecord probe;
  probe.time_ns = t + 2;
  probe.type = records::EventType::kProbe;
  probe.probe.name = "test/ping";
  probe.probe.target = "https://example.test/0";
  probe.probe.ok = true;
  std::vector<records::EventRecord> answers = {probe, timer, Result(t + 3, "1.0"), Result(t + 3, "1.6")};
  ASSERT_TRUE(st.Append(answers).ok());
  auto u = FindUnanswered(st);
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_TRUE(u->writes.empty());
  EXPECT_TRUE(u->rearm.empty());
}

// A seeded log of many causes: writes to a few work keys (so answers also
// settle superseded writes), timers and probes, answered at random later.
void RandomLog(store::MemoryStore& st, uint64_t seed, int causes) {
  SplitMix64 rng(seed);
  int64_t t = 1'800'000'000'000'000'000;
  std::vector<records::ActionRecord> open;
  for (int c = 0; c < causes; ++c) {
    std::vector<records::EventRecord> burst = {Added(t + c, recon::StrCat("cm", c))};
    // Answers to some earlier actions arrive with this cause's event.
    for (size_t i = 0; i < open.size();) {
      if (rng.Uniform() < 0.15) {
        const auto& a = open[i];
        records::EventRecord e;
        e.time_ns = t + c;
        if (a.verb == "setTimer") {
          e.type = records::EventType::kTimer;
          e.timer = a.timer;
        } else if (a.verb == "probe") {
          e.type = records::EventType::kProbe;
          e.probe.name = a.probe;
          e.probe.target = a.target;
          e.probe.ok = true;
        } else {
          e = Result(t + c, ActionId(a.cause_seq, a.index));
        }
        burst.push_back(e);
        open.erase(open.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        ++i;
      }
    }
    auto first = st.Append(burst);
    ASSERT_TRUE(first.ok());
    const uint64_t cause = *first;  // the Added event
    std::vector<records::ActionRecord> actions;
    for (uint32_t i = 0, n = static_cast<uint32_t>(rng.Between(0, 4)); i < n; ++i) {
      records::ActionRecord a;
      double kind = rng.Uniform();
      if (kind < 0.15) {
        a.domain = "test";
        a.verb = "setTimer";
        a.timer = recon::StrCat("test/t", rng.Between(0, 3));
        a.at_ns = t + c + 1000;
      } else if (kind < 0.3) {
        a.domain = "test";
        a.verb = "probe";
        a.probe = "test/ping";
        a.target = recon::StrCat("https://example.test/", rng.Between(0, 3));
      } else {
        a = Write(i, "updateStatus", "Namespace", recon::StrCat("ns", rng.Between(0, 6)));
      }
      a.cause_seq = cause;
      a.index = i;
      actions.push_back(a);
      open.push_back(a);
    }
    ASSERT_TRUE(st.AppendActions(actions).ok());
  }
}

std::vector<std::string> Ids(const std::vector<records::ActionRecord>& v) {
  std::vector<std::string> out;
  for (const auto& a : v) out.push_back(recon::StrCat(a.verb, " ", ActionId(a.cause_seq, a.index)));
  return out;
}

// A restart reads the stored checkpoint and only what follows it; wherever
// the checkpoint was taken, the answer is the whole log's.
TEST(Unanswered, CheckpointGivesTheWholeLogsAnswer) {
  int with_writes = 0, with_rearm = 0;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    store::MemoryStore st;
    RandomLog(st, seed, 120);
    auto full = FindUnanswered(st);
    ASSERT_TRUE(full.ok()) << full.status();
    with_writes += !full->writes.empty();
    with_rearm += !full->rearm.empty();
    for (uint64_t at : {uint64_t{1}, st.LastSeq() / 3, st.LastSeq() / 2, st.LastSeq() - 1, st.LastSeq()}) {
      UnansweredScan partial;
      ASSERT_TRUE(partial.Advance(st, at).ok());
      ASSERT_EQ(partial.through(), at);
      ASSERT_TRUE(st.PutAux(kUnansweredAux, partial.Encode()).ok());
      bool from_checkpoint = false;
      auto scan = ScanUnanswered(st, &from_checkpoint);
      ASSERT_TRUE(scan.ok()) << scan.status();
      EXPECT_TRUE(from_checkpoint);
      Unanswered u = scan->Result();
      EXPECT_EQ(Ids(u.writes), Ids(full->writes)) << "seed " << seed << ", checkpoint at " << at;
      EXPECT_EQ(Ids(u.rearm), Ids(full->rearm)) << "seed " << seed << ", checkpoint at " << at;
      EXPECT_EQ(u.last_cause, full->last_cause);
    }
  }
  // The logs do leave things open (or the comparison proves little).
  EXPECT_GE(with_writes, 3);
  EXPECT_GE(with_rearm, 3);
}

// The checkpoint is a cache: damaged, from a longer log or behind a
// compaction, it is ignored and the whole log is read.
TEST(Unanswered, UnusableCheckpointFallsBackToTheWholeLog) {
  store::MemoryStore st;
  RandomLog(st, 7, 60);
  auto full = FindUnanswered(st);
  ASSERT_TRUE(full.ok());
  UnansweredScan partial;
  ASSERT_TRUE(partial.Advance(st, st.LastSeq() / 2).ok());
  std::string good = partial.Encode();
  // (A RocksDbStore's aux records are framed and checksummed like every
  // other record; these are what a framed record could still hold.)
  std::vector<std::string> bad = {"", "recon-unanswered-1\n", good.substr(0, good.size() - 3), "junk"};
  for (const auto& b : bad) {
    ASSERT_TRUE(st.PutAux(kUnansweredAux, b).ok());
    bool from_checkpoint = true;
    auto scan = ScanUnanswered(st, &from_checkpoint);
    ASSERT_TRUE(scan.ok()) << scan.status();
    Unanswered u = scan->Result();
    EXPECT_EQ(Ids(u.writes), Ids(full->writes));
    EXPECT_EQ(Ids(u.rearm), Ids(full->rearm));
    EXPECT_FALSE(from_checkpoint);
  }
  // From a longer log than this one.
  store::MemoryStore longer;
  RandomLog(longer, 7, 90);
  UnansweredScan ahead;
  ASSERT_TRUE(ahead.Advance(longer, longer.LastSeq()).ok());
  ASSERT_TRUE(st.PutAux(kUnansweredAux, ahead.Encode()).ok());
  bool from_checkpoint = true;
  ASSERT_TRUE(ScanUnanswered(st, &from_checkpoint).ok());
  EXPECT_FALSE(from_checkpoint);
  // Behind a compaction: what it would need to read is gone.
  UnansweredScan early;
  ASSERT_TRUE(early.Advance(st, 5).ok());
  ASSERT_TRUE(st.PutAux(kUnansweredAux, early.Encode()).ok());
  ASSERT_TRUE(st.PutSnapshot(20, "s").ok());
  ASSERT_TRUE(st.CompactPrefix(21).ok());
  ASSERT_TRUE(ScanUnanswered(st, &from_checkpoint).ok());
  EXPECT_FALSE(from_checkpoint);
}

class AnsweringAdapter : public ClusterAdapter {
 public:
  explicit AnsweringAdapter(ManualTimeSource& clock) : clock_(clock) {}
  std::string_view Name() const override { return "answering"; }
  absl::StatusOr<std::vector<records::EventRecord>> Start(const World&) override {
    return std::vector<records::EventRecord>{};
  }
  void Apply(const records::ActionRecord& a) override {
    applied.push_back(a);
    if (a.verb == "setTimer" || a.verb == "probe") return;
    due.push_back(Result(clock_.NowNs() + 1000, ActionId(a.cause_seq, a.index)));
  }
  std::vector<records::EventRecord> Poll(int64_t now) override {
    std::vector<records::EventRecord> out;
    while (!due.empty() && due.front().time_ns <= now) {
      out.push_back(due.front());
      due.pop_front();
    }
    return out;
  }
  std::optional<int64_t> NextDueNs() const override {
    if (due.empty()) return std::nullopt;
    return due.front().time_ns;
  }
  bool HasPendingWork() const override { return !due.empty(); }

  ManualTimeSource& clock_;
  std::deque<records::EventRecord> due;
  std::vector<records::ActionRecord> applied;
};

// A restarted agent on `st` (the test domain, run until converged): its
// status and what it handed to the cluster.
struct Restarted {
  RuntimeStatus status;
  std::vector<records::ActionRecord> applied;
};
Restarted RunRestarted(store::MemoryStore& st, int64_t now) {
  ManualTimeSource clock(now);
  AnsweringAdapter adapter(clock);
  std::vector<std::unique_ptr<Reducer>> reducers;
  reducers.push_back(std::make_unique<testing::TestDomain>());
  Engine engine(std::move(reducers));
  Metrics metrics;
  RuntimeOptions o;
  o.until_converged = true;
  // The test domain's tick re-arms itself every 60 s and probes: never
  // quiet, so the run ends at this much of the runtime's clock.
  o.max_time_ns = 90'000'000'000;
  o.fast_forward = [&clock](int64_t next) { clock.Set(next); };
  Runtime rt(adapter, engine, st, clock, metrics, o);
  EXPECT_TRUE(rt.Run().ok());
  return {rt.status(), adapter.applied};
}

TEST(Unanswered, RestartRearmsTimersAndProbesAndSettlesWrites) {
  store::MemoryStore st;
  int64_t t = 1'800'000'000'000'000'000;
  KilledRun(st, t);
  uint64_t before = st.LastSeq();
  Restarted rt = RunRestarted(st, t + 1'000'000'000);
  EXPECT_EQ(rt.status.interrupted, 2u);
  EXPECT_EQ(rt.status.rearmed, 2u);
  // Each unanswered write (and nothing else) got an Interrupted result.
  std::vector<std::string> settled;
  auto it = st.ReadEvents(before + 1, st.LastSeq());
  ASSERT_TRUE(it.ok());
  for (; (*it)->Valid(); (*it)->Next()) {
    auto e = records::DecodeEvent((*it)->payload());
    ASSERT_TRUE(e.ok());
    if (e->type != records::EventType::kActionResult || e->action_result.ok) continue;
    EXPECT_EQ(e->action_result.error, kInterruptedError);
    EXPECT_FALSE(e->action_result.status.has_value());
    settled.push_back(e->action_result.action);
  }
  EXPECT_EQ(settled, (std::vector<std::string>{"1.0", "1.6"}));
  // The probe was handed to the new adapter as it was; the timer was armed
  // again in the new runtime (timers are the runtime's) and fired when due.
  bool probe = false;
  for (const auto& a : rt.applied) {
    EXPECT_NE(a.verb, "setTimer") << "timers never reach the adapter";
    if (a.cause_seq != 1) continue;
    probe |= a.verb == "probe" && a.target == "https://example.test/0";
    EXPECT_EQ(a.verb, "probe") << "run one's writes are not re-sent: " << a.verb;
  }
  EXPECT_TRUE(probe);
  std::vector<int64_t> fired;
  auto ev = st.ReadEvents(before + 1, st.LastSeq());
  ASSERT_TRUE(ev.ok());
  for (; (*ev)->Valid(); (*ev)->Next()) {
    auto e = records::DecodeEvent((*ev)->payload());
    ASSERT_TRUE(e.ok());
    if (e->type == records::EventType::kTimer && e->timer == "test/tick") fired.push_back(e->time_ns - t);
  }
  EXPECT_EQ(fired, (std::vector<int64_t>{60'000'000'000})) << "at the time run one set it for";
}

// The runtime stores the checkpoint with its snapshots (here the one a
// graceful stop writes); the next start reads the log from there.
TEST(Unanswered, ARestartReadsFromTheCheckpointTheLastRunStored) {
  store::MemoryStore st;
  int64_t t = 1'800'000'000'000'000'000;
  KilledRun(st, t);
  Restarted first = RunRestarted(st, t + 1'000'000'000);
  EXPECT_EQ(first.status.unanswered_from, 0u);  // the killed run wrote none
  EXPECT_EQ(first.status.interrupted, 2u);
  auto saved = st.GetAux(kUnansweredAux);
  ASSERT_TRUE(saved.ok() && saved->has_value());
  const uint64_t end_of_first = st.LastSeq();
  Restarted second = RunRestarted(st, t + 2'000'000'000);
  EXPECT_EQ(second.status.unanswered_from, end_of_first);
  EXPECT_EQ(second.status.interrupted, 0u);
  auto full = FindUnanswered(st);
  ASSERT_TRUE(full.ok());
  auto scan = ScanUnanswered(st);
  ASSERT_TRUE(scan.ok());
  EXPECT_EQ(Ids(scan->Result().writes), Ids(full->writes));
  EXPECT_EQ(Ids(scan->Result().rearm), Ids(full->rearm));
}

TEST(Unanswered, RestartRecordsAndSendsTheActionsOfEventsAppendedBeforeTheKill) {
  // The kill came after the burst's events were appended and before its
  // actions were recorded.
  store::MemoryStore st;
  int64_t t = 1'800'000'000'000'000'000;
  std::vector<records::EventRecord> burst = {Added(t, "cm0"), Added(t, "cm1")};
  ASSERT_TRUE(st.Append(burst).ok());
  // What those events cause, computed the way replay does.
  std::vector<records::ActionRecord> expected;
  {
    std::vector<std::unique_ptr<Reducer>> reducers;
    reducers.push_back(std::make_unique<testing::TestDomain>());
    Engine e(std::move(reducers));
    ASSERT_TRUE(ReplayStore(e, st, store::kEndOfLog, [&](const records::ActionRecord& a) {
                  expected.push_back(a);
                }).ok());
  }
  ASSERT_FALSE(expected.empty());

  Restarted rt = RunRestarted(st, t + 1'000'000'000);
  EXPECT_EQ(rt.status.recovered, expected.size());
  // Recorded under their causes, as the killed run would have...
  auto recorded = RecordedActions(st, 2);
  ASSERT_TRUE(recorded.ok());
  ASSERT_EQ(recorded->size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(ActionId((*recorded)[i].cause_seq, (*recorded)[i].index),
              ActionId(expected[i].cause_seq, expected[i].index));
    EXPECT_EQ((*recorded)[i].body, expected[i].body);
  }
  // ...and sent.
  size_t sent = 0;
  for (const auto& a : rt.applied) sent += a.cause_seq <= 2;
  EXPECT_GT(sent, 0u);
}

}  // namespace
}  // namespace recon::runtime
