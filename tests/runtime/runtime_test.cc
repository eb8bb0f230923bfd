// The agent loop against a scripted in-memory adapter: bursts are appended,
// actions dispatched through the queue, results fed back, failures retried
// with backoff, convergence detected, and a restart resumes from the store
// without re-dispatching what was done.
#include "runtime/runtime.h"

#include <deque>
#include <map>

#include "base/strings.h"
#include "engine/json.h"
#include "engine/replay.h"
#include "gtest/gtest.h"
#include "store/etcd_store.h"
#include "store/memory_kv.h"
#include "store/memory_store.h"
#include "tests/engine/test_domain.h"

namespace recon::runtime {

using engine::ActionId;
using engine::Emit;
using engine::Engine;
using engine::Event;
using engine::Json;
using engine::Object;
using engine::RecordedActions;
using engine::Reducer;
using engine::SnapshotReader;
using engine::SnapshotWriter;
using engine::World;
using records::EventType;
namespace {

class FakeAdapter : public ClusterAdapter {
 public:
  explicit FakeAdapter(ManualTimeSource& clock) : clock_(clock) {}
  std::string_view Name() const override { return "fake"; }
  absl::StatusOr<std::vector<records::EventRecord>> Start(const World& last_seen) override {
    seen_at_start = last_seen.ObjectCount();
    std::vector<records::EventRecord> out;
    for (int i = 0; i < 3; ++i) out.push_back(ConfigMap(recon::StrCat("cm", i), i % 2 == 0));
    return out;
  }
  void Apply(const records::ActionRecord& a) override {
    applied.push_back(a);
    records::EventRecord r;
    r.time_ns = clock_.NowNs() + 1'000'000;
    r.type = records::EventType::kActionResult;
    r.action_result.action = recon::StrCat(a.cause_seq, ".", a.index);
    if (fail_first > 0 && a.verb == "update") {
      --fail_first;
      r.action_result.ok = false;
      r.action_result.status = 500;
      r.action_result.error = "InternalError";
    } else {
      r.action_result.ok = true;
    }
    due.push_back(std::move(r));
  }
  std::vector<records::EventRecord> Poll(int64_t now) override {
    std::vector<records::EventRecord> out;
    while (!due.empty() && due.front().time_ns <= now) {
      out.push_back(std::move(due.front()));
      due.pop_front();
    }
    return out;
  }
  std::optional<int64_t> NextDueNs() const override {
    if (due.empty()) return std::nullopt;
    return due.front().time_ns;
  }
  bool HasPendingWork() const override { return !due.empty(); }

  records::EventRecord ConfigMap(const std::string& name, bool watched) {
    records::EventRecord e;
    e.time_ns = clock_.NowNs();
    e.type = records::EventType::kAdded;
    e.object = {"", "v1", "ConfigMap", "ns", name, "", "1"};
    e.body = recon::StrCat(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")", name,
                           R"(","namespace":"ns")", watched ? R"(,"labels":{"watch":"yes"})" : "", "}}");
    return e;
  }

  ManualTimeSource& clock_;
  std::deque<records::EventRecord> due;
  std::vector<records::ActionRecord> applied;
  int fail_first = 0;
  size_t seen_at_start = 0;
};

std::unique_ptr<Engine> MakeEngine() {
  std::vector<std::unique_ptr<Reducer>> reducers;
  reducers.push_back(std::make_unique<testing::TestDomain>());
  return std::make_unique<Engine>(std::move(reducers));
}

RuntimeOptions Options(ManualTimeSource& clock) {
  RuntimeOptions o;
  o.until_converged = true;
  o.fast_forward = [&clock](int64_t next) { clock.Set(next); };
  o.backoff.qps = 1e6;
  o.backoff.burst = 1000;
  return o;
}

TEST(Runtime, ConvergesRetriesAndResumesWithoutReapplying) {
  store::MemoryStore st;
  ManualTimeSource clock(1'800'000'000'000'000'000);
  Metrics metrics;
  size_t first_run_dispatched = 0;
  {
    FakeAdapter adapter(clock);
    adapter.fail_first = 1;  // one transient 500: retried after 5 ms
    auto engine = MakeEngine();
    Runtime rt(adapter, *engine, st, clock, metrics, Options(clock));
    ASSERT_TRUE(rt.Run().ok());
    EXPECT_TRUE(rt.status().converged);
    EXPECT_EQ(adapter.seen_at_start, 0u);
    first_run_dispatched = adapter.applied.size();
    // 3 ConfigMaps → 2 updates (watched) + 3 status writes of the same
    // Namespace, which the queue collapses into the latest; one update is
    // retried after its 500.
    EXPECT_EQ(first_run_dispatched, 4u);
    EXPECT_EQ(metrics.Value("recon_actions_total",
                            {{"domain", "test"}, {"verb", "update"}, {"result", "server_error"}}),
              1);
    EXPECT_EQ(metrics.Value("recon_retries_total"), 1) << metrics.Render();
    EXPECT_GT(st.LastSeq(), 3u);
    auto snap = st.GetSnapshot();
    ASSERT_TRUE(snap.ok() && snap->has_value());
    EXPECT_EQ((*snap)->seq, st.LastSeq());
  }
  uint64_t before_restart = st.LastSeq();
  {
    FakeAdapter adapter(clock);
    auto engine = MakeEngine();
    Runtime rt(adapter, *engine, st, clock, metrics, Options(clock));
    ASSERT_TRUE(rt.Run().ok());
    EXPECT_EQ(rt.status().resumed_from, before_restart);
    EXPECT_EQ(adapter.seen_at_start, 3u);  // the world was restored before Start
    // Only the relist's consequences are dispatched; nothing from run one is replayed.
    for (const auto& a : adapter.applied) EXPECT_GT(a.cause_seq, before_restart);
  }
  std::string text = metrics.Render();
  EXPECT_NE(text.find("recon_events_appended_total{type=\"Added\"} 6"), std::string::npos) << text;
  EXPECT_NE(text.find("recon_reduce_latency_seconds_bucket{domain=\"test\""), std::string::npos);
  // What /metrics serves after a real run is valid Prometheus text.
  if (system("command -v promtool >/dev/null 2>&1") == 0) {
    FILE* p = popen("promtool check metrics > /dev/null 2>&1", "w");
    fwrite(text.data(), 1, text.size(), p);
    EXPECT_EQ(pclose(p), 0) << text;
  }
}

// A domain that decides again on its failed writes (as samples does): each
// watched ConfigMap gets one update, and a failed update is emitted again
// by the domain, as a new action.
class RedecidingDomain : public Reducer {
 public:
  std::string_view Domain() const override { return "redecide"; }
  engine::DomainDescriptor Describe() const override { return {.redecides_failed_writes = true}; }
  void Reduce(const Event& e, const World& world, Emit& emit) override {
    if (e.IsObject() && e.kind == "ConfigMap" && e.type == EventType::kAdded) {
      const Object* o = world.Get("", "ConfigMap", e.ns, e.name);
      if (o == nullptr || o->Label("watch") != "yes") return;
      Json derived = {
          {"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", {{"namespace", std::string(e.ns)}, {"name", recon::StrCat("derived-", e.name)}}}};
      writes_[emit.Update(derived)] = derived;
    } else if (e.type == EventType::kActionResult && !e.ok) {
      auto it = writes_.find(std::string(e.action));
      if (it == writes_.end()) return;
      ++redecided;
      writes_[emit.Update(it->second)] = it->second;
    }
  }
  absl::Status Snapshot(SnapshotWriter& w) const override {
    w.WriteJson(Json::object());
    return absl::OkStatus();
  }
  absl::Status Restore(SnapshotReader& r) override { return r.ReadJson().status(); }

  int redecided = 0;

 private:
  std::map<std::string, Json> writes_;
};

TEST(Runtime, FailedWritesOfADomainThatRedecidesAreNotResent) {
  store::MemoryStore st;
  ManualTimeSource clock(1'800'000'000'000'000'000);
  Metrics metrics;
  FakeAdapter adapter(clock);
  adapter.fail_first = 1;  // the first update answers 500
  std::vector<std::unique_ptr<Reducer>> reducers;
  auto domain = std::make_unique<RedecidingDomain>();
  RedecidingDomain* d = domain.get();
  reducers.push_back(std::move(domain));
  Engine engine(std::move(reducers));
  Runtime rt(adapter, engine, st, clock, metrics, Options(clock));
  ASSERT_TRUE(rt.Run().ok());
  EXPECT_TRUE(rt.status().converged);
  EXPECT_EQ(d->redecided, 1);
  // Two updates, plus the domain's new one for the failed object; the failed
  // action itself is never applied again.
  ASSERT_EQ(adapter.applied.size(), 3u);
  std::map<std::string, int> ids, objects;
  for (const auto& a : adapter.applied) {
    ++ids[ActionId(a.cause_seq, a.index)];
    ++objects[a.object.name];
  }
  for (const auto& [id, n] : ids) EXPECT_EQ(n, 1) << id;
  const std::string failed = adapter.applied.front().object.name;
  EXPECT_EQ(objects[failed], 2);
  EXPECT_EQ(adapter.applied.back().object.name, failed);
  EXPECT_EQ(metrics.Value("recon_actions_total",
                          {{"domain", "redecide"}, {"verb", "update"}, {"result", "server_error"}}),
            1);
}

// recon_store_bytes from the store as it is, and past 70 % of a quota (an
// etcd store's) the warning /readyz and the log carry; without a quota, none.
TEST(Runtime, ReportsTheStoresSizeAndWarnsNearItsQuota) {
  for (uint64_t quota : {uint64_t{1}, uint64_t{1} << 40}) {
    auto kv = std::make_shared<store::MemoryKv>();
    auto st = store::EtcdStore::Open(kv, {.prefix = "agent", .quota_bytes = quota});
    ASSERT_TRUE(st.ok()) << st.status();
    ManualTimeSource clock(1'800'000'000'000'000'000);
    Metrics metrics;
    FakeAdapter adapter(clock);
    auto engine = MakeEngine();
    Runtime rt(adapter, *engine, **st, clock, metrics, Options(clock));
    ASSERT_TRUE(rt.Run().ok());
    auto status = kv->Status();
    ASSERT_TRUE(status.ok());
    EXPECT_GT(metrics.Value("recon_store_bytes"), 0);
    EXPECT_EQ(metrics.Value("recon_store_quota_bytes"), static_cast<double>(quota));
    if (quota == 1) {
      EXPECT_NE(rt.status().store_warning.find("quota; at 100 % etcd refuses every write (NOSPACE)"),
                std::string::npos)
          << rt.status().store_warning;
    } else {
      EXPECT_EQ(rt.status().store_warning, "");
    }
  }
  store::MemoryStore memory;  // no quota: the size alone
  ManualTimeSource clock(1'800'000'000'000'000'000);
  Metrics metrics;
  FakeAdapter adapter(clock);
  auto engine = MakeEngine();
  Runtime rt(adapter, *engine, memory, clock, metrics, Options(clock));
  ASSERT_TRUE(rt.Run().ok());
  EXPECT_GT(metrics.Value("recon_store_bytes"), 0);
  EXPECT_EQ(rt.status().store_warning, "");
  EXPECT_EQ(metrics.Render().find("\nrecon_store_quota_bytes "), std::string::npos);
}

TEST(StoreRoom, WarnsFromSeventyPercentOfAQuotaAndSaysWhenItStartsAndEnds) {
  EXPECT_EQ(StoreRoomWarning({.bytes = 699, .quota = 1000}), "");
  EXPECT_EQ(StoreRoomWarning({.bytes = 1 << 30, .quota = 0}), "");
  EXPECT_EQ(StoreRoomWarning({.bytes = 1503238554, .quota = uint64_t{2} << 30}),
            "store: the database holds 1433.6 MiB, 70 % of its 2048.0 MiB quota; at 100 % etcd refuses every "
            "write (NOSPACE): compact and defragment it, or raise its --quota-backend-bytes and recon's "
            "--etcd-quota-bytes");
  StoreRoom room;
  EXPECT_EQ(room.Update({.bytes = 10, .quota = 100}), StoreRoom::Change::kNone);
  EXPECT_EQ(room.Update({.bytes = 70, .quota = 100}), StoreRoom::Change::kStarted);
  EXPECT_EQ(room.Update({.bytes = 90, .quota = 100}), StoreRoom::Change::kNone);
  EXPECT_NE(room.warning().find("90 %"), std::string::npos) << room.warning();
  EXPECT_EQ(room.Update({.bytes = 20, .quota = 100}), StoreRoom::Change::kEnded);
  EXPECT_EQ(room.warning(), "");
}

}  // namespace
}  // namespace recon::runtime

namespace recon::runtime {
namespace {

// Shadow mode (issue 21): the writes are computed and recorded, never sent;
// a restart does not settle them as interrupted (nothing was sent).
TEST(Runtime, ShadowRecordsWritesButSendsNone) {
  store::MemoryStore st;
  ManualTimeSource clock(1'800'000'000'000'000'000);
  Metrics metrics;
  for (int run = 0; run < 2; ++run) {
    FakeAdapter adapter(clock);
    auto engine = MakeEngine();
    RuntimeOptions o = Options(clock);
    o.shadow = true;
    uint64_t reduced = 0, seen = 0;
    o.on_reduced = [&](const Event& e, std::span<const records::ActionRecord> actions) {
      ++reduced;
      seen += actions.size();
      for (const auto& a : actions) EXPECT_EQ(a.cause_seq, e.seq);
    };
    Runtime rt(adapter, *engine, st, clock, metrics, o);
    ASSERT_TRUE(rt.Run().ok());
    for (const auto& a : adapter.applied) EXPECT_TRUE(a.verb == "setTimer" || a.verb == "probe") << a.verb;
    EXPECT_EQ(reduced, 3u);  // the (re)list, and no result ever comes back
    EXPECT_GT(seen, 0u);
    // 2 updates + 3 status writes of one Namespace, which the queue
    // collapses into the latest, as when acting.
    EXPECT_EQ(seen, 5u);
    EXPECT_EQ(rt.status().withheld, 3u);
    EXPECT_EQ(rt.status().dispatched, 0u);
    EXPECT_EQ(rt.status().interrupted, 0u);
  }
  auto recorded = RecordedActions(st, store::kEndOfLog);
  ASSERT_TRUE(recorded.ok());
  EXPECT_FALSE(recorded->empty());
  for (uint64_t seq = 1; seq <= st.LastSeq(); ++seq) {
    auto e = store::ReadEvent(st, seq);
    ASSERT_TRUE(e.ok());
    EXPECT_NE(e->type, records::EventType::kActionResult) << "seq " << seq;
  }
}

// Timers are the runtime's (issue 20): a domain's setTimer never reaches the
// adapter, and each fires on the runtime's clock at the time it was set for.
TEST(Runtime, TimersFireOnTheRuntimesClockAndNeverReachTheAdapter) {
  store::MemoryStore st;
  const int64_t t0 = 1'800'000'000'000'000'000;
  ManualTimeSource clock(t0);
  Metrics metrics;
  FakeAdapter adapter(clock);
  records::EventRecord first;  // the test domain re-arms test/tick every 60 s from its first firing
  first.time_ns = t0;
  first.type = records::EventType::kTimer;
  first.timer = "test/tick";
  adapter.due.push_back(first);
  auto engine = MakeEngine();
  RuntimeOptions o = Options(clock);
  o.until_converged = false;
  o.max_time_ns = 250'000'000'000;
  Runtime rt(adapter, *engine, st, clock, metrics, o);
  ASSERT_TRUE(rt.Run().ok());
  for (const auto& a : adapter.applied) EXPECT_NE(a.verb, "setTimer");
  std::vector<int64_t> fired;
  for (uint64_t seq = 1; seq <= st.LastSeq(); ++seq) {
    auto e = store::ReadEvent(st, seq);
    ASSERT_TRUE(e.ok());
    if (e->type == records::EventType::kTimer) fired.push_back(e->time_ns - t0);
  }
  const int64_t s = 1'000'000'000;
  EXPECT_EQ(fired, (std::vector<int64_t>{0, 60 * s, 120 * s, 180 * s, 240 * s}));
}

}  // namespace
}  // namespace recon::runtime
