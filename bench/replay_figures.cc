#include "bench/replay_figures.h"

#include <simdjson.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <span>

#include "absl/strings/str_format.h"
#include "base/strings.h"
#include "engine/jsonl_writer.h"
#include "engine/replay.h"
#include "records/codec.h"
#include "runtime/replay_pipeline.h"
#include "store/rocksdb_store.h"

namespace recon::bench {
namespace {

double Seconds(std::chrono::steady_clock::time_point a) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
}

std::string Filler(std::mt19937& rng, size_t n) {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789-";
  std::string s;
  s.reserve(n);
  for (size_t i = 0; i < n; ++i) s.push_back(kChars[rng() % (sizeof(kChars) - 1)]);
  return s;
}

}  // namespace

std::vector<records::EventRecord> MakeRealisticLog(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<records::EventRecord> out;
  out.reserve(count);
  const char* kinds[][3] = {{"image.openshift.io", "v1", "ImageStream"},
                            {"", "v1", "ConfigMap"},
                            {"", "v1", "Secret"},
                            {"apps", "v1", "Deployment"}};
  int64_t t = 1'795'000'000'000'000'000;
  for (size_t i = 0; i < count; ++i) {
    auto& k = kinds[rng() % 4];
    records::EventRecord e;
    t += 1'000'000 + rng() % 50'000'000;
    e.time_ns = t;
    e.type = i < 1000 || rng() % 10 == 0 ? records::EventType::kAdded : records::EventType::kModified;
    e.object.group = k[0];
    e.object.version = k[1];
    e.object.kind = k[2];
    e.object.ns = recon::StrCat("project-", rng() % 50);
    e.object.name = recon::StrCat("obj-", rng() % 2000);
    e.object.uid = recon::StrCat("uid-", e.object.ns, "-", e.object.name);
    e.object.resource_version = recon::StrCat(i + 1000);
    std::string api = e.object.group.empty() ? e.object.version : e.object.group + "/" + e.object.version;
    size_t target = 1024 + rng() % 4096;
    std::string body = recon::StrCat(
        R"({"apiVersion":")", api, R"(","kind":")", e.object.kind, R"(","metadata":{"name":")", e.object.name,
        R"(","namespace":")", e.object.ns, R"(","uid":")", e.object.uid, R"(","resourceVersion":")",
        e.object.resource_version, R"(","labels":{"app":")", e.object.name, R"(","tier":"backend"},)",
        R"("annotations":{"openshift.io/display-name":"A realistic object"}},"spec":{"items":[)");
    int n = 0;
    while (body.size() + 80 < target) {
      recon::StrAppend(&body, n ? "," : "", R"({"name":")", Filler(rng, 12), R"(","value":")", Filler(rng, 40),
                       R"(","replicas":)", rng() % 10, "}");
      ++n;
    }
    body += "]}}";
    e.body = std::move(body);
    out.push_back(std::move(e));
  }
  return out;
}

std::string ReplayFigures::ToJson() const {
  return absl::StrFormat(
      "{\"events\":%d,\"object_bytes\":%d,\"actions\":%d,\"replay_events_per_s\":%.0f,\"replay_mb_per_s\":%."
      "1f,"
      "\"raw_simdjson_mb_per_s\":%.1f,\"replay_vs_parse_ratio\":%.3f,\"pipelined_events_per_s\":%.0f,"
      "\"pipelined_speedup\":%.2f,\"pipelined_same_actions\":%s}",
      events, object_bytes, actions, replay_events_per_s, replay_mb_per_s, raw_simdjson_mb_per_s,
      replay_vs_parse_ratio, pipelined_events_per_s, pipelined_speedup,
      pipelined_same_actions ? "true" : "false");
}

absl::StatusOr<ReplayFigures> MeasureReplay(const std::string& dir, size_t count,
                                            const std::function<std::unique_ptr<engine::Engine>()>& make_engine) {
  std::filesystem::remove_all(dir);
  ReplayFigures f;
  f.events = count;
  {
    store::RocksDbOptions o;
    o.durability = store::Durability::kNoSync;
    auto st = store::RocksDbStore::Open(dir, o);
    if (!st.ok()) return st.status();
    // Generate and append in chunks so memory stays bounded at 1M events.
    const size_t chunk = 50'000;
    for (size_t done = 0; done < count; done += chunk) {
      auto log = MakeRealisticLog(std::min(chunk, count - done), static_cast<uint32_t>(done + 1));
      for (const auto& e : log) f.object_bytes += e.body.size();
      if (auto r = (*st)->Append(log); !r.ok()) return r.status();
    }
    if (auto s = (*st)->Flush(); !s.ok()) return s;
  }
  auto st = store::RocksDbStore::Open(dir);
  if (!st.ok()) return st.status();

  // Baseline in the same run: simdjson DOM parsing of the same bodies, read
  // from the same store (so both sides pay the same read cost).
  {
    simdjson::dom::parser parser;
    auto it = (*st)->ReadEvents(1, store::kEndOfLog);
    if (!it.ok()) return it.status();
    uint64_t bytes = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (; (*it)->Valid(); (*it)->Next()) {
      auto view = records::EventView::Parse((*it)->payload());
      if (!view.ok()) return view.status();
      auto body = records::View(view->reader().getBody());
      simdjson::dom::element doc;
      if (parser.parse(body.data(), body.size(), true).get(doc)) return absl::InternalError("bad JSON");
      bytes += body.size();
    }
    f.raw_simdjson_mb_per_s = bytes / 1e6 / Seconds(t0);
  }
  // The action stream's digest, to compare the two replays without keeping both.
  auto digest = [](uint64_t* h, const records::ActionRecord& a) {
    const std::string line = engine::ActionToJsonl(a);
    for (unsigned char ch : line) *h = (*h ^ ch) * 1099511628211ull;  // FNV-1a
  };
  uint64_t serial_digest = 14695981039346656037ull, pipelined_digest = serial_digest, pipelined_actions = 0;
  auto engine = make_engine();
  auto t0 = std::chrono::steady_clock::now();
  auto s = engine::ReplayStore(*engine, **st, store::kEndOfLog, [&](const records::ActionRecord& a) {
    ++f.actions;
    digest(&serial_digest, a);
  });
  if (!s.ok()) return s;
  double secs = Seconds(t0);
  f.replay_events_per_s = count / secs;
  f.replay_mb_per_s = f.object_bytes / 1e6 / secs;
  f.replay_vs_parse_ratio = f.replay_mb_per_s / f.raw_simdjson_mb_per_s;
  engine.reset();
  engine = make_engine();
  t0 = std::chrono::steady_clock::now();
  s = runtime::ReplayStorePipelined(
      *engine, **st, store::kEndOfLog,
      [&](const engine::Event&, std::span<const records::ActionRecord> actions) {
        for (const auto& a : actions) {
          ++pipelined_actions;
          digest(&pipelined_digest, a);
        }
      });
  if (!s.ok()) return s;
  f.pipelined_events_per_s = count / Seconds(t0);
  f.pipelined_speedup = f.pipelined_events_per_s / f.replay_events_per_s;
  f.pipelined_same_actions = pipelined_actions == f.actions && pipelined_digest == serial_digest;
  st->reset();
  std::filesystem::remove_all(dir);
  return f;
}

}  // namespace recon::bench
