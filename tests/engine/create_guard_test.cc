// The engine's create guard (engine/create_guard.h): a domain that creates
// a new object on every sync while its writes are refused is held, said so,
// counted, and a replay of the log holds exactly the same creates.
#include "engine/create_guard.h"

#include <map>
#include <sstream>

#include "base/strings.h"
#include "engine/emit.h"
#include "engine/explain.h"
#include "engine/replay.h"
#include "gtest/gtest.h"
#include "runtime/runtime.h"
#include "spdlog/sinks/ostream_sink.h"
#include "spdlog/spdlog.h"
#include "store/memory_store.h"
#include "tests/engine/test_domain.h"

namespace recon::engine {
namespace {

// The last test runs the guard inside the agent runtime.
using runtime::ClusterAdapter;
using runtime::ManualTimeSource;
using runtime::Metrics;
using runtime::Runtime;
using runtime::RuntimeOptions;

constexpr int64_t kT0 = 1'800'000'000'000'000'000;
constexpr int64_t kSec = 1'000'000'000;

std::unique_ptr<Engine> Recreating(int syncs = 20, bool same_name = false) {
  std::vector<std::unique_ptr<Reducer>> reducers;
  reducers.push_back(std::make_unique<testing::RecreatingDomain>(syncs, same_name));
  return std::make_unique<Engine>(std::move(reducers));
}

records::EventRecord Cluster(int64_t t) {
  records::EventRecord e;
  e.time_ns = t;
  e.type = records::EventType::kCluster;
  e.cluster_facts = "{}";
  return e;
}

records::EventRecord Resync(int64_t t) {
  records::EventRecord e;
  e.time_ns = t;
  e.type = records::EventType::kTimer;
  e.timer = "recreate/resync";
  return e;
}

records::EventRecord Result(int64_t t, const std::string& id, std::optional<int32_t> status,
                            std::string error = "") {
  records::EventRecord e;
  e.time_ns = t;
  e.type = records::EventType::kActionResult;
  e.action_result.action = id;
  e.action_result.ok = !status || *status < 300;
  if (status) e.action_result.status = *status;
  e.action_result.error = std::move(error);
  return e;
}

records::EventRecord InstallPlan(int64_t t, records::EventType type, const std::string& name) {
  records::EventRecord e;
  e.time_ns = t;
  e.type = type;
  e.object = {"operators.coreos.com", "v1alpha1", "InstallPlan", "ns", name, "", "1"};
  e.body = recon::StrCat(
      R"({"apiVersion":"operators.coreos.com/v1alpha1","kind":"InstallPlan","metadata":{"name":")", name,
      R"(","namespace":"ns"}})");
  return e;
}

constexpr char kRequired[] =
    "Subscription.operators.coreos.com \"sub\" is invalid: status.catalogHealth[0].lastUpdated: Required "
    "value";

// Steps `engine` through `events` (seq = position + 1 from its last seq)
// and returns, per event, the verbs+names it emitted and the creates held.
struct Stepped {
  std::vector<std::string> actions;  // "create install-2", "updateStatus sub"
  std::vector<HeldCreate> held;
};
Stepped Step(Engine& engine, const records::EventRecord& r) {
  std::vector<records::ActionRecord> out;
  Event e = Event::FromRecord(engine.last_seq() + 1, r);
  EXPECT_TRUE(engine.Step(e, &out).ok());
  Stepped s;
  for (const auto& a : out) {
    if (a.verb == "setTimer") continue;
    s.actions.push_back(recon::StrCat(a.verb, " ", a.object.name, " ", ActionId(a.cause_seq, a.index)));
  }
  s.held = engine.held();
  return s;
}

TEST(CreateGuard, ARefusedStatusWriteHoldsTheDomainsCreatesThereUntilAStatusWriteSucceeds) {
  auto engine = Recreating();
  EXPECT_EQ(Step(*engine, Cluster(kT0)).actions,
            (std::vector<std::string>{"create install-1 1.0", "updateStatus sub 1.1"}));
  Step(*engine, Result(kT0 + 1, "1.0", 201));
  Step(*engine, Result(kT0 + 2, "1.1", 422, kRequired));
  // Every later sync: the status write goes out again, the create is held.
  for (int i = 0; i < 3; ++i) {
    uint64_t seq = engine->last_seq() + 1;
    auto s = Step(*engine, Resync(kT0 + (i + 1) * 10 * kSec));
    EXPECT_EQ(s.actions, (std::vector<std::string>{recon::StrCat("updateStatus sub ", seq, ".1")}));
    ASSERT_EQ(s.held.size(), 1u);
    EXPECT_EQ(s.held[0].domain, "recreate");
    EXPECT_EQ(s.held[0].kind, "InstallPlan");
    EXPECT_EQ(s.held[0].name, recon::StrCat("install-", i + 2));
    EXPECT_NE(s.held[0].reason.find("a status write to Subscription ns/sub was refused (422: "),
              std::string::npos)
        << s.held[0].reason;
    Step(*engine, Result(kT0 + (i + 1) * 10 * kSec + 1, recon::StrCat(seq, ".1"), 422, kRequired));
  }
  // A successful status write to the object resolves.
  uint64_t seq = engine->last_seq() + 1;
  EXPECT_EQ(Step(*engine, Resync(kT0 + 40 * kSec)).held.size(), 1u);
  Step(*engine, Result(kT0 + 40 * kSec + 1, recon::StrCat(seq, ".1"), 200));
  auto s = Step(*engine, Resync(kT0 + 50 * kSec));
  EXPECT_TRUE(s.held.empty());
  EXPECT_EQ(s.actions.front().rfind("create install-6 ", 0), 0u) << s.actions.front();
}

TEST(CreateGuard, ACreateWithoutOutcomeHoldsCreatesOfTheSameObjectUntilItsObjectOrResultComes) {
  auto engine = Recreating(20, /*same_name=*/true);
  Step(*engine, Cluster(kT0));
  auto s = Step(*engine, Resync(kT0 + 10 * kSec));
  ASSERT_EQ(s.held.size(), 1u);
  EXPECT_NE(
      s.held[0].reason.find("waits for the outcome of the create of InstallPlan ns/install (action 1.0)"),
      std::string::npos)
      << s.held[0].reason;
  // Its Added event is its outcome.
  Step(*engine, InstallPlan(kT0 + 11 * kSec, records::EventType::kAdded, "install"));
  s = Step(*engine, Resync(kT0 + 20 * kSec));
  EXPECT_TRUE(s.held.empty());
  ASSERT_FALSE(s.actions.empty());
  EXPECT_EQ(s.actions.front().rfind("create install ", 0), 0u);
  // An answer that never comes expires after five minutes.
  s = Step(*engine, Resync(kT0 + 30 * kSec));
  EXPECT_EQ(s.held.size(), 1u);
  s = Step(*engine, Resync(kT0 + 20 * kSec + CreateGuard::kOpenTimeoutNs));
  EXPECT_TRUE(s.held.empty());
}

TEST(CreateGuard, CreatesOfOtherObjectsWithoutOutcomeAreNoReasonToHold) {
  auto engine = Recreating();
  Step(*engine, Cluster(kT0));
  auto s = Step(*engine, Resync(kT0 + 10 * kSec));
  EXPECT_TRUE(s.held.empty());
  ASSERT_FALSE(s.actions.empty());
  EXPECT_EQ(s.actions.front().rfind("create install-2 ", 0), 0u);
}

TEST(CreateGuard, ARefusedCreateIsTriedAgainOncePerDoublingPeriodOrWhenItsObjectAppears) {
  auto engine = Recreating();
  Step(*engine, Cluster(kT0));
  Step(*engine, Result(kT0, "1.1", 200));
  Step(*engine, Result(kT0, "1.0", 422,
                       "InstallPlan.operators.coreos.com \"install-1\" is invalid: spec: Required value"));
  auto held_at = [&](int64_t t) {
    auto s = Step(*engine, Resync(t));
    uint64_t seq = engine->last_seq();
    Step(*engine, Result(t, recon::StrCat(seq, ".1"), 200));  // its status writes pass
    return s.held.size() == 1;
  };
  EXPECT_TRUE(held_at(kT0 + 5 * kSec));
  EXPECT_FALSE(held_at(kT0 + 10 * kSec));  // the retry, refused again below
  uint64_t retry = engine->last_seq() - 1;
  Step(*engine, Result(kT0 + 10 * kSec, recon::StrCat(retry, ".0"), 422, "spec: Required value"));
  EXPECT_TRUE(held_at(kT0 + 20 * kSec));  // 20 s after the second refusal
  EXPECT_TRUE(held_at(kT0 + 29 * kSec));
  EXPECT_FALSE(held_at(kT0 + 30 * kSec));
  // Someone else creating the refused object resolves it at once.
  uint64_t third = engine->last_seq() - 1;
  Step(*engine, Result(kT0 + 30 * kSec, recon::StrCat(third, ".0"), 422, "spec: Required value"));
  EXPECT_TRUE(held_at(kT0 + 31 * kSec));
  Step(*engine, InstallPlan(kT0 + 32 * kSec, records::EventType::kAdded, "install-6"));
  EXPECT_FALSE(held_at(kT0 + 33 * kSec));
}

TEST(CreateGuard, ItsStateGoesIntoTheSnapshot) {
  auto engine = Recreating();
  Step(*engine, Cluster(kT0));
  Step(*engine, Result(kT0 + 1, "1.0", 201));
  Step(*engine, Result(kT0 + 2, "1.1", 422, kRequired));
  auto snap = engine->Snapshot();
  ASSERT_TRUE(snap.ok());
  auto restored = Recreating();
  ASSERT_TRUE(restored->Restore(*snap).ok());
  auto a = Step(*engine, Resync(kT0 + 10 * kSec));
  auto b = Step(*restored, Resync(kT0 + 10 * kSec));
  EXPECT_EQ(a.actions, b.actions);
  ASSERT_EQ(b.held.size(), 1u);
  EXPECT_EQ(a.held[0].reason, b.held[0].reason);
  EXPECT_EQ(*engine->StateDigest(), *restored->StateDigest());
}

TEST(CreateGuard, ExplainSaysWhatWasHeld) {
  std::vector<records::EventRecord> log = {Cluster(kT0), Result(kT0 + 1, "1.0", 201),
                                           Result(kT0 + 2, "1.1", 422, kRequired), Resync(kT0 + 10 * kSec)};
  auto engine = Recreating();
  auto t = ExplainRecords(*engine, log, "recreate");
  ASSERT_TRUE(t.ok());
  bool found = false;
  for (const auto& e : t->entries()) {
    if (e.seq == 4 && e.kind == "note" && e.subject == "InstallPlan ns/install-2" &&
        e.text.rfind("create held (not sent): a status write to Subscription ns/sub was refused (422: ", 0) ==
            0)
      found = true;
  }
  EXPECT_TRUE(found) << TimelineText(*t);
}

// A cluster that refuses the first `refuse` status writes with 422 and
// accepts everything else; timers fire as Timer events.
class RefusingAdapter : public ClusterAdapter {
 public:
  RefusingAdapter(ManualTimeSource& clock, int refuse) : clock_(clock), refuse_(refuse) {}
  std::string_view Name() const override { return "refusing"; }
  absl::StatusOr<std::vector<records::EventRecord>> Start(const World&) override {
    return std::vector<records::EventRecord>{Cluster(clock_.NowNs())};
  }
  void Apply(const records::ActionRecord& a) override {
    if (a.verb == "setTimer") {
      due_.emplace(a.at_ns, Resync(a.at_ns));
      return;
    }
    if (a.verb == "create") ++creates;
    bool refuse = a.verb == "updateStatus" && refuse_ > 0;
    if (refuse) --refuse_;
    int64_t t = clock_.NowNs() + 1'000'000;
    due_.emplace(t, Result(t, ActionId(a.cause_seq, a.index), refuse ? 422 : 200, refuse ? kRequired : ""));
  }
  std::vector<records::EventRecord> Poll(int64_t now) override {
    std::vector<records::EventRecord> out;
    while (!due_.empty() && due_.begin()->first <= now) {
      out.push_back(std::move(due_.begin()->second));
      due_.erase(due_.begin());
    }
    return out;
  }
  std::optional<int64_t> NextDueNs() const override {
    if (due_.empty()) return std::nullopt;
    return due_.begin()->first;
  }
  bool HasPendingWork() const override { return !due_.empty(); }
  int creates = 0;

 private:
  ManualTimeSource& clock_;
  int refuse_;
  std::multimap<int64_t, records::EventRecord> due_;
};

TEST(CreateGuard, TheAgentDoesNotLoopOnARefusedStatusWriteAndReplayHoldsTheSame) {
  store::MemoryStore st;
  ManualTimeSource clock(kT0);
  Metrics metrics;
  RefusingAdapter adapter(clock, /*refuse=*/12);  // syncs 1..12 refused; 13 onwards accepted
  auto engine = Recreating(20);
  RuntimeOptions o;
  o.until_converged = true;
  o.fast_forward = [&clock](int64_t next) { clock.Set(next); };
  o.write_warning_interval_ns = 30 * kSec;
  o.backoff.base_ns = 1;  // the queue's per-object backoff stays well under a sync period
  std::ostringstream logged;
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(
      std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(logged)));
  absl::Status run;
  {
    Runtime rt(adapter, *engine, st, clock, metrics, o);
    run = rt.Run();
  }
  spdlog::set_default_logger(previous);
  ASSERT_TRUE(run.ok()) << run;
  // Sync 1 creates; syncs 2..13 are held (the refusal of sync 12's status
  // write is unresolved at sync 13, whose status write is the first to
  // pass and resolves it), and syncs 14..20 create again.
  EXPECT_EQ(adapter.creates, 1 + 7);
  EXPECT_EQ(metrics.Value("recon_creates_held_total", {{"domain", "recreate"}, {"kind", "InstallPlan"}}), 12);
  EXPECT_EQ(metrics.Value("recon_write_failures_total",
                          {{"domain", "recreate"}, {"verb", "updateStatus"}, {"code", "422"}}),
            12);
  // Refusals at 0 s, 10 s, ... 110 s: warned at 0, 30, 60, 90 s.
  std::string text = logged.str();
  size_t lines = 0;
  for (size_t p = text.find("write failed: "); p != std::string::npos; p = text.find("write failed: ", p + 1))
    ++lines;
  EXPECT_EQ(lines, 4u) << text;
  EXPECT_NE(
      text.find("[warning] write failed: updateStatus Subscription ns/sub (domain recreate): HTTP 422: " +
                std::string(kRequired)),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("[2 more failures of this object since the last warning]"), std::string::npos) << text;

  // The log replays to exactly the recorded actions: the same creates held.
  auto recorded = RecordedActions(st, store::kEndOfLog);
  ASSERT_TRUE(recorded.ok());
  auto fresh = Recreating(20);
  std::vector<records::ActionRecord> again;
  ASSERT_TRUE(ReplayStore(*fresh, st, store::kEndOfLog, [&](const records::ActionRecord& a) {
                again.push_back(a);
              }).ok());
  EXPECT_TRUE(DiffActions(*recorded, again).empty());
  int creates = 0;
  for (const auto& a : again) creates += a.verb == "create";
  EXPECT_EQ(creates, 8);
}

}  // namespace
}  // namespace recon::engine
