// Dispatch-time substitution in the agent loop: a domain copies a Secret's
// value into an object it writes; the adapter receives the real value, while
// every byte of the store directory (and every event and action read back)
// holds only markers. A marker this process never saw (another store's key)
// is not sent: the action fails with an ActionResult the reducer sees.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/escaping.h"
#include "base/strings.h"
#include "engine/json.h"
#include "gtest/gtest.h"
#include "records/codec.h"
#include "runtime/runtime.h"
#include "store/rocksdb_store.h"
#include "tests/store/test_util.h"

namespace recon::runtime {

using engine::ActionId;
using engine::Emit;
using engine::Engine;
using engine::Event;
using engine::GetString;
using engine::Json;
using engine::Object;
using engine::ParseJson;
using engine::Reducer;
using engine::SnapshotReader;
using engine::SnapshotWriter;
using engine::World;
using records::EventType;
namespace {

constexpr char kPlanted[] = "PLANTED-cert-d15a7c4";

std::string B64(std::string_view s) { return absl::Base64Escape(Av(s)); }

// Copies Secret ns/src's data.cert into a new Secret ns/copy, once; counts
// the failed results it gets.
class CopyDomain : public Reducer {
 public:
  std::string_view Domain() const override { return "copy"; }
  void Reduce(const Event& e, const World& world, Emit& emit) override {
    if (e.type == EventType::kActionResult) {
      if (!e.ok) errors.push_back(std::string(e.error));
      return;
    }
    if (!e.IsObject() || e.kind != "Secret" || e.name != "src" || e.type == EventType::kDeleted) return;
    const Object* src = world.Get("", "Secret", "ns", "src");
    if (src == nullptr || copied_) return;
    copied_ = true;
    emit.Create(Json{{"apiVersion", "v1"},
                     {"kind", "Secret"},
                     {"metadata", {{"name", "copy"}, {"namespace", "ns"}}},
                     {"data", {{"cert", GetString(src->json(), {"data", "cert"})}}}});
  }
  absl::Status Snapshot(SnapshotWriter& w) const override {
    w.WriteJson(Json{{"copied", copied_}});
    return absl::OkStatus();
  }
  absl::Status Restore(SnapshotReader& r) override {
    auto j = r.ReadJson();
    if (!j.ok()) return j.status();
    copied_ = (*j)["copied"].get<bool>();
    return absl::OkStatus();
  }

  std::vector<std::string> errors;

 private:
  bool copied_ = false;
};

class OneSecretAdapter : public ClusterAdapter {
 public:
  OneSecretAdapter(ManualTimeSource& clock, std::string src_body)
      : clock_(clock), body_(std::move(src_body)) {}
  std::string_view Name() const override { return "one-secret"; }
  absl::StatusOr<std::vector<records::EventRecord>> Start(const World&) override {
    records::EventRecord e;
    e.time_ns = clock_.NowNs();
    e.type = records::EventType::kAdded;
    e.object = {"", "v1", "Secret", "ns", "src", "", "1"};
    e.body = body_;
    return std::vector<records::EventRecord>{e};
  }
  void Apply(const records::ActionRecord& a) override {
    applied.push_back(a);
    records::EventRecord r;
    r.time_ns = clock_.NowNs() + 1'000'000;
    r.type = records::EventType::kActionResult;
    r.action_result.action = ActionId(a.cause_seq, a.index);
    r.action_result.ok = true;
    due.push_back(std::move(r));
  }
  std::vector<records::EventRecord> Poll(int64_t now) override {
    std::vector<records::EventRecord> out;
    while (!due.empty() && due.front().time_ns <= now) {
      out.push_back(std::move(due.front()));
      due.erase(due.begin());
    }
    return out;
  }
  std::optional<int64_t> NextDueNs() const override {
    if (due.empty()) return std::nullopt;
    return due.front().time_ns;
  }
  bool HasPendingWork() const override { return !due.empty(); }

  std::vector<records::ActionRecord> applied;
  std::vector<records::EventRecord> due;

 private:
  ManualTimeSource& clock_;
  std::string body_;
};

std::string SrcBody(std::string_view cert_value) {
  return recon::StrCat(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"src","namespace":"ns"},)",
                       R"("data":{"cert":")", cert_value, R"("}})");
}

RuntimeOptions Options(ManualTimeSource& clock) {
  RuntimeOptions o;
  o.until_converged = true;
  o.fast_forward = [&clock](int64_t next) { clock.Set(next); };
  o.backoff.qps = 1e6;
  o.backoff.burst = 1000;
  return o;
}

std::string AllBytes(const std::string& dir) {
  std::string all;
  for (const auto& f : std::filesystem::recursive_directory_iterator(dir)) {
    if (!f.is_regular_file()) continue;
    std::ifstream in(f.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    all += ss.str();
  }
  return all;
}

struct Logged {
  std::vector<records::EventRecord> events;
  std::vector<std::string> action_payloads;
};

Logged ReadBack(store::EventStore& st) {
  Logged out;
  auto events = st.ReadEvents(1, store::kEndOfLog);
  EXPECT_TRUE(events.ok());
  for (; events.ok() && (*events)->Valid(); (*events)->Next()) {
    auto e = records::DecodeEvent((*events)->payload());
    EXPECT_TRUE(e.ok());
    if (e.ok()) out.events.push_back(*e);
  }
  auto actions = st.ReadActions(0, store::kEndOfLog);
  EXPECT_TRUE(actions.ok());
  for (; actions.ok() && (*actions)->Valid(); (*actions)->Next())
    out.action_payloads.emplace_back((*actions)->payload());
  return out;
}

TEST(SecretDispatch, AdapterGetsTheRealValueTheStoreOnlyMarkers) {
  store::testing::TempDir tmp;
  std::string dir = tmp.Sub("store");
  ManualTimeSource clock(1'800'000'000'000'000'000);
  Metrics metrics;
  auto table = std::make_shared<SecretTable>();
  {
    auto st = store::RocksDbStore::Open(dir);
    ASSERT_TRUE(st.ok()) << st.status();
    OneSecretAdapter adapter(clock, SrcBody(B64(kPlanted)));
    std::vector<std::unique_ptr<Reducer>> reducers;
    reducers.push_back(std::make_unique<CopyDomain>());
    auto* domain = static_cast<CopyDomain*>(reducers.back().get());
    Engine engine(std::move(reducers));
    RuntimeOptions o = Options(clock);
    auto redactor = Redactor::ForStore(dir);
    ASSERT_TRUE(redactor.ok());
    o.redactor = std::make_shared<const Redactor>(*redactor);
    o.secret_table = table;
    Runtime rt(adapter, engine, **st, clock, metrics, o);
    ASSERT_TRUE(rt.Run().ok());
    EXPECT_TRUE(rt.status().converged);

    ASSERT_EQ(adapter.applied.size(), 1u);
    const auto& sent = adapter.applied[0];
    EXPECT_EQ(sent.verb, "create");
    auto body = ParseJson(sent.body);
    ASSERT_TRUE(body.ok());
    EXPECT_EQ(GetString(*body, {"data", "cert"}), B64(kPlanted));  // the real value went out
    EXPECT_TRUE(domain->errors.empty());
    EXPECT_EQ(table->sources(), 1u);

    // What the log holds: the create with the marker, the Secret redacted.
    Logged logged = ReadBack(**st);
    ASSERT_EQ(logged.action_payloads.size(), 1u);
    EXPECT_NE(logged.action_payloads[0].find(kRedactedPrefix), std::string::npos);
    for (const auto& e : logged.events) {
      EXPECT_EQ(e.body.find(kPlanted), std::string::npos) << e.body;
      EXPECT_EQ(e.body.find(B64(kPlanted)), std::string::npos) << e.body;
    }
    for (const auto& p : logged.action_payloads) {
      EXPECT_EQ(p.find(kPlanted), std::string::npos);
      EXPECT_EQ(p.find(B64(kPlanted)), std::string::npos);
    }
  }
  // Every byte of the store directory (closed: flushed).
  std::string bytes = AllBytes(dir);
  ASSERT_NE(bytes.find("copy"), std::string::npos);  // the search sees the log
  EXPECT_NE(bytes.find(kRedactedPrefix), std::string::npos);
  EXPECT_EQ(bytes.find(kPlanted), std::string::npos);
  EXPECT_EQ(bytes.find(B64(kPlanted)), std::string::npos);
}

TEST(SecretDispatch, UnknownMarkerIsAFailedResultAndNothingIsSent) {
  store::testing::TempDir tmp;
  std::string dir = tmp.Sub("store");
  ManualTimeSource clock(1'800'000'000'000'000'000);
  Metrics metrics;
  auto st = store::RocksDbStore::Open(dir);
  ASSERT_TRUE(st.ok()) << st.status();
  // The Secret arrives already redacted under another key (as from an
  // imported log): this process never saw its value.
  std::string foreign = Redactor(std::string(32, 'z')).Hash(kPlanted);
  OneSecretAdapter adapter(clock, SrcBody(foreign));
  std::vector<std::unique_ptr<Reducer>> reducers;
  reducers.push_back(std::make_unique<CopyDomain>());
  auto* domain = static_cast<CopyDomain*>(reducers.back().get());
  Engine engine(std::move(reducers));
  Runtime rt(adapter, engine, **st, clock, metrics, Options(clock));
  ASSERT_TRUE(rt.Run().ok());
  EXPECT_TRUE(rt.status().converged);

  EXPECT_TRUE(adapter.applied.empty());  // not sent with the marker
  ASSERT_EQ(domain->errors.size(), 1u);
  EXPECT_EQ(domain->errors[0],
            "create Secret ns/copy: field /data/cert: secret value not available in this process; it is "
            "re-read from the cluster on the next observation");
  EXPECT_EQ(
      metrics.Value("recon_actions_total", {{"domain", "copy"}, {"verb", "create"}, {"result", "error"}}), 1);
  // The failure is in the log, as any other result.
  Logged logged = ReadBack(**st);
  int failed = 0;
  for (const auto& e : logged.events) {
    if (e.type == records::EventType::kActionResult && !e.action_result.ok) {
      ++failed;
      EXPECT_EQ(e.action_result.error, domain->errors[0]);
    }
  }
  EXPECT_EQ(failed, 1);
  EXPECT_EQ(rt.status().pending, 0u);
}

// Copies Secret ns/src into ns/copy when ConfigMap ns/go appears: after a
// restart, when nothing brought the Secret's value into the new process.
class CopyOnGoDomain : public CopyDomain {
 public:
  void Reduce(const Event& e, const World& world, Emit& emit) override {
    if (e.type == EventType::kActionResult && !e.ok) errors.push_back(std::string(e.error));
    if (e.type != EventType::kAdded || e.kind != "ConfigMap" || e.name != "go") return;
    const Object* src = world.Get("", "Secret", "ns", "src");
    if (src == nullptr) return;
    emit.Create(Json{{"apiVersion", "v1"},
                     {"kind", "Secret"},
                     {"metadata", {{"name", "copy"}, {"namespace", "ns"}}},
                     {"data", {{"cert", GetString(src->json(), {"data", "cert"})}}}});
  }
};

// The first run lists Secret ns/src; a restarted run finds it unchanged
// (so no event carries it, as the k8s adapter's relist diff does), hands
// its body to SetSeenUnchanged's callback when the runtime wants Secrets,
// and lists a new ConfigMap ns/go.
class RestartingAdapter : public OneSecretAdapter {
 public:
  using OneSecretAdapter::OneSecretAdapter;
  void SetSeenUnchanged(WantedType wanted, SeenUnchanged seen) override {
    wanted_ = std::move(wanted);
    seen_ = std::move(seen);
  }
  absl::StatusOr<std::vector<records::EventRecord>> Start(const World& last_seen) override {
    auto first = OneSecretAdapter::Start(last_seen);
    if (!first.ok() || last_seen.Get("", "Secret", "ns", "src") == nullptr) return first;
    records::EventRecord go;
    go.time_ns = first->front().time_ns;
    if (wanted_ && wanted_("", "Secret")) seen_(std::move(*first));
    go.type = records::EventType::kAdded;
    go.object = {"", "v1", "ConfigMap", "ns", "go", "", "2"};
    go.body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"go","namespace":"ns"}})";
    return std::vector<records::EventRecord>{go};
  }

 private:
  WantedType wanted_;
  SeenUnchanged seen_;
};

TEST(SecretDispatch, RestartedAgentLearnsUnchangedSecretsValuesFromTheRelist) {
  store::testing::TempDir tmp;
  std::string dir = tmp.Sub("store");
  ManualTimeSource clock(1'800'000'000'000'000'000);
  for (int run = 0; run < 2; ++run) {
    SCOPED_TRACE(run);
    Metrics metrics;
    auto st = store::RocksDbStore::Open(dir);
    ASSERT_TRUE(st.ok()) << st.status();
    RestartingAdapter adapter(clock, SrcBody(B64(kPlanted)));
    std::vector<std::unique_ptr<Reducer>> reducers;
    reducers.push_back(std::make_unique<CopyOnGoDomain>());
    auto* domain = static_cast<CopyOnGoDomain*>(reducers.back().get());
    Engine engine(std::move(reducers));
    RuntimeOptions o = Options(clock);
    auto redactor = Redactor::ForStore(dir);
    ASSERT_TRUE(redactor.ok());
    o.redactor = std::make_shared<const Redactor>(*redactor);
    o.secret_table = std::make_shared<SecretTable>();  // a new process: nothing known
    Runtime rt(adapter, engine, **st, clock, metrics, o);
    ASSERT_TRUE(rt.Run().ok());
    EXPECT_TRUE(rt.status().converged);
    EXPECT_TRUE(domain->errors.empty()) << domain->errors[0];
    if (run == 0) {
      EXPECT_TRUE(adapter.applied.empty());
      continue;
    }
    // The copy went out with the real value, learned from the relist.
    ASSERT_EQ(adapter.applied.size(), 1u);
    auto body = ParseJson(adapter.applied[0].body);
    ASSERT_TRUE(body.ok());
    EXPECT_EQ(GetString(*body, {"data", "cert"}), B64(kPlanted));
    EXPECT_EQ(o.secret_table->sources(), 1u);
    // And the log still holds no value: the unchanged Secret was not appended again.
    int src_events = 0;
    for (const auto& e : ReadBack(**st).events) {
      EXPECT_EQ(e.body.find(B64(kPlanted)), std::string::npos) << e.body;
      src_events += e.object.name == "src";
    }
    EXPECT_EQ(src_events, 1);
  }
}

}  // namespace
}  // namespace recon::runtime
