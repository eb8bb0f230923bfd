// A killed agent leaves actions logged but unanswered: FindUnanswered finds
// them; a restarted Runtime asks again for timers and probes (they died
// with the process) and settles writes with an Interrupted result, so the
// reducers decide again. A kill between appending events and recording
// their actions leaves actions nowhere: the restart records and sends them.
#include "engine/unanswered.h"

#include <deque>

#include "base/strings.h"
#include "engine/emit.h"
#include "engine/engine.h"
#include "engine/metrics.h"
#include "engine/replay.h"
#include "engine/runtime.h"
#include "engine/time_source.h"
#include "gtest/gtest.h"
#include "store/codec.h"
#include "store/memory_store.h"
#include "tests/engine/test_domain.h"

namespace recon::engine {
namespace {

store::EventRecord Added(int64_t t, const std::string& name) {
  store::EventRecord e;
  e.time_ns = t;
  e.type = store::EventType::kAdded;
  e.object = {"", "v1", "ConfigMap", "ns", name, "", "1"};
  e.body = recon::StrCat(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")", name,
                         R"(","namespace":"ns","labels":{"watch":"yes"}}})");
  return e;
}

store::EventRecord Result(int64_t t, const std::string& id) {
  store::EventRecord e;
  e.time_ns = t;
  e.type = store::EventType::kActionResult;
  e.action_result.action = id;
  e.action_result.ok = true;
  return e;
}

store::ActionRecord Write(uint32_t index, const std::string& verb, const std::string& kind,
                          const std::string& name) {
  store::ActionRecord a;
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
  std::vector<store::EventRecord> first = {Added(t, "cm0")};
  ASSERT_TRUE(st.Append(first).ok());
  std::vector<store::ActionRecord> actions = {
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
  std::vector<store::EventRecord> second = {Result(t + 1, "1.4")};
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

TEST(Unanswered, AnsweredTimersAndProbesAreNotAskedAgain) {
  store::MemoryStore st;
  int64_t t = 1'800'000'000'000'000'000;
  KilledRun(st, t);
  store::EventRecord timer;
  timer.time_ns = t + 60'000'000'000;
  timer.type = store::EventType::kTimer;
  timer.timer = "test/tick";
  store::EventRecord probe;
  probe.time_ns = t + 2;
  probe.type = store::EventType::kProbe;
  probe.probe.name = "test/ping";
  probe.probe.target = "https://example.test/0";
  probe.probe.ok = true;
  std::vector<store::EventRecord> answers = {probe, timer, Result(t + 3, "1.0"), Result(t + 3, "1.6")};
  ASSERT_TRUE(st.Append(answers).ok());
  auto u = FindUnanswered(st);
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_TRUE(u->writes.empty());
  EXPECT_TRUE(u->rearm.empty());
}

class AnsweringAdapter : public ClusterAdapter {
 public:
  explicit AnsweringAdapter(ManualTimeSource& clock) : clock_(clock) {}
  std::string_view Name() const override { return "answering"; }
  absl::StatusOr<std::vector<store::EventRecord>> Start(const World&) override {
    return std::vector<store::EventRecord>{};
  }
  void Apply(const store::ActionRecord& a) override {
    applied.push_back(a);
    if (a.verb == "setTimer" || a.verb == "probe") return;
    due.push_back(Result(clock_.NowNs() + 1000, ActionId(a.cause_seq, a.index)));
  }
  std::vector<store::EventRecord> Poll(int64_t now) override {
    std::vector<store::EventRecord> out;
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
  std::deque<store::EventRecord> due;
  std::vector<store::ActionRecord> applied;
};

// A restarted agent on `st` (the test domain, run until converged): its
// status and what it handed to the cluster.
struct Restarted {
  RuntimeStatus status;
  std::vector<store::ActionRecord> applied;
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
    auto e = store::DecodeEvent((*it)->payload());
    ASSERT_TRUE(e.ok());
    if (e->type != store::EventType::kActionResult || e->action_result.ok) continue;
    EXPECT_EQ(e->action_result.error, kInterruptedError);
    EXPECT_FALSE(e->action_result.status.has_value());
    settled.push_back(e->action_result.action);
  }
  EXPECT_EQ(settled, (std::vector<std::string>{"1.0", "1.6"}));
  // The timer and the probe were handed to the new adapter as they were.
  bool timer = false, probe = false;
  for (const auto& a : rt.applied) {
    if (a.cause_seq != 1) continue;
    timer |= a.verb == "setTimer" && a.timer == "test/tick" && a.at_ns == t + 60'000'000'000;
    probe |= a.verb == "probe" && a.target == "https://example.test/0";
    EXPECT_TRUE(a.verb == "setTimer" || a.verb == "probe") << "run one's writes are not re-sent: " << a.verb;
  }
  EXPECT_TRUE(timer);
  EXPECT_TRUE(probe);
}

TEST(Unanswered, RestartRecordsAndSendsTheActionsOfEventsAppendedBeforeTheKill) {
  // The kill came after the burst's events were appended and before its
  // actions were recorded.
  store::MemoryStore st;
  int64_t t = 1'800'000'000'000'000'000;
  std::vector<store::EventRecord> burst = {Added(t, "cm0"), Added(t, "cm1")};
  ASSERT_TRUE(st.Append(burst).ok());
  // What those events cause, computed the way replay does.
  std::vector<store::ActionRecord> expected;
  {
    std::vector<std::unique_ptr<Reducer>> reducers;
    reducers.push_back(std::make_unique<testing::TestDomain>());
    Engine e(std::move(reducers));
    ASSERT_TRUE(ReplayStore(e, st, store::kEndOfLog, [&](const store::ActionRecord& a) { expected.push_back(a); })
                    .ok());
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
}  // namespace recon::engine
