#include "bench/olm_figures.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <utility>

#include "absl/strings/str_format.h"
#include "base/strings.h"
#include "bench/heap_figures.h"
#include "bench/olm_cluster.h"
#include "domains/olm/reducer.h"
#include "engine/engine.h"
#include "engine/json.h"
#include "engine/jsonl_writer.h"
#include "runtime/timer_table.h"
#include "soak/olm_bundles.h"

namespace recon::bench {
namespace {

using engine::Json;
using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

double StatusMb(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) return std::stod(line.substr(std::string(key).size())) / 1024.0;
  }
  return 0;
}

std::string CountsJson(const std::map<std::string, uint64_t>& m) {
  Json out = Json::object();
  for (const auto& [k, n] : m) out[k] = n;
  return engine::Dump(out);
}

using Target = OlmTarget;
constexpr std::string_view kCatalog = kOlmCatalog, kGlobal = kOlmCatalogNamespace;
std::string NsOf(uint64_t i) { return OlmNamespace(i); }

// 1. The resolver alone: every subscription's first upgrade from its start.
// Best of 5 rounds: one round at 1,000 subscriptions is ~15 ms, which a
// shared machine's noise swamped (47k-81k/s between identical runs).
double ResolutionsPerSecond(const std::shared_ptr<const olm::CatalogIndex>& index,
                            const std::vector<Target>& pool,
                            const std::map<std::string, const olm::Entry*>& by_name, uint64_t subscriptions) {
  double best_ms = 0;
  for (int round = 0; round < 5; ++round) {
    auto t1 = Clock::now();
    uint64_t ok = 0;
    for (uint64_t i = 0; i < subscriptions; ++i) {
      const Target& t = pool[i % pool.size()];
      olm::ResolveInput in;
      in.ns = NsOf(i);
      in.catalogs.push_back({std::string(kCatalog), std::string(kGlobal), 0, index});
      in.subscriptions.push_back(
          {"sub", t.package, t.channel, std::string(kCatalog), std::string(kGlobal), "", t.start});
      olm::ExistingCsv x;
      const olm::Entry* e = by_name.at(t.start);
      x.entry.name = e->name;
      x.entry.package = e->package;
      x.entry.version = e->version;
      x.entry.provides = e->provides;
      x.subscription = "sub";
      in.existing.push_back(std::move(x));
      ok += olm::Resolve(in).ok();
    }
    double ms = Ms(t1, Clock::now());
    if (round == 0 || ms < best_ms) best_ms = ms;
    (void)ok;
  }
  return best_ms > 0 ? subscriptions / (best_ms / 1000.0) : 0;
}

// What the engine starts from: the option that makes recon carry out its
// plans (recorded as a Cluster event, so `recon replay` of the bench's log
// runs as the bench did), the catalog, its CatalogSource, and per
// subscription a namespace with an OperatorGroup and the Subscription.
void InitialEvents(const records::ContentFiles& files, const std::vector<Target>& pool,
                   uint64_t subscriptions, int64_t now, const std::string& subscription_writes,
                   std::deque<records::EventRecord>* queue, OlmBenchCluster* cluster) {
  const std::string api = std::string(olm::kApiVersion);
  records::EventRecord opts;
  opts.time_ns = now;
  opts.type = records::EventType::kCluster;
  opts.cluster_facts = engine::Dump(Json{{"options", Json{{"olm.executePlans", "true"},
                                                          {"olm.csvLifecycle", "true"},
                                                          {"olm.subscriptionWrites", subscription_writes}}}});
  queue->push_back(std::move(opts));
  records::EventRecord c;
  c.time_ns = now;
  c.type = records::EventType::kContent;
  c.content_name = StrCat("olm/catalog/", kGlobal, "/", kCatalog);
  c.content_files = files;
  c.content_digest = records::ContentDigest(c.content_files);
  queue->push_back(std::move(c));
  OlmBenchCluster& cl = *cluster;
  cl.Seed(Json{{"apiVersion", api},
               {"kind", "CatalogSource"},
               {"metadata", Json{{"name", kCatalog}, {"namespace", kGlobal}}},
               {"spec", Json{{"sourceType", "grpc"}}}},
          now);
  for (uint64_t i = 0; i < subscriptions; ++i) {
    const Target& t = pool[i % pool.size()];
    std::string ns = NsOf(i);
    cl.Seed(Json{{"apiVersion", "operators.coreos.com/v1"},
                 {"kind", "OperatorGroup"},
                 {"metadata", Json{{"name", "og"}, {"namespace", ns}}},
                 {"spec", Json{{"targetNamespaces", Json::array({ns})}}}},
            now);
    cl.Seed(Json{{"apiVersion", api},
                 {"kind", "Subscription"},
                 {"metadata", Json{{"name", t.package}, {"namespace", ns}}},
                 {"spec", Json{{"name", t.package},
                               {"channel", t.channel},
                               {"source", kCatalog},
                               {"sourceNamespace", kGlobal},
                               {"startingCSV", t.start}}}},
            now);
  }
}

// After convergence: who reached the head, who failed and why.
void Tally(const engine::Engine& eng, const std::vector<Target>& pool, uint64_t subscriptions,
           OlmFigures* f) {
  for (uint64_t i = 0; i < subscriptions; ++i) {
    const Target& t = pool[i % pool.size()];
    const engine::Object* o = eng.world().Get(olm::kGroup, "Subscription", NsOf(i), t.package);
    if (o == nullptr) continue;
    const Json& st = engine::Path(o->json(), {"status"});
    const std::string installed_csv = engine::GetString(st, {"installedCSV"});
    if (installed_csv == t.head) ++f->at_head;
    bool failed = false;
    const Json& cs = engine::Path(st, {"conditions"});
    if (cs.is_array()) {
      for (const Json& c : cs) {
        if (engine::GetString(c, {"type"}) != "ResolutionFailed") continue;
        ++f->resolution_failed;
        failed = true;
        // The innermost failed constraint says why ("bundle X requires ...").
        std::string msg = engine::GetString(c, {"message"});
        size_t at = msg.rfind(", bundle ");
        ++f->failed_by[StrCat(engine::GetString(c, {"reason"}), ": ",
                              at == std::string::npos ? msg : msg.substr(at + 2))];
      }
    }
    if (!failed && installed_csv != t.head) ++f->below_head[StrCat(t.package, " at ", installed_csv)];
  }
}

// One step's events and actions, for RECON_BENCH_DEBUG=<namespace>.
void DebugStep(uint64_t seq, const records::EventRecord& r,
               const std::vector<records::ActionRecord>& actions) {
  const char* dbg = std::getenv("RECON_BENCH_DEBUG");
  if (!dbg || r.object.ns != dbg) return;
  std::fprintf(stderr, "EV %llu %s %s/%s %s\n", (unsigned long long)seq,
               std::string(records::EventTypeName(r.type)).c_str(), r.object.kind.c_str(),
               r.object.name.c_str(), r.body.substr(0, 600).c_str());
  for (const auto& a : actions)
    std::fprintf(stderr, "   ACT %s %s %s\n", a.verb.c_str(), a.object.kind.c_str(),
                 a.body.substr(0, 700).c_str());
}

// Heap by component (bench/heap_figures.h): the bench's own loop, the
// simulated cluster, the engine's World, the domain's state.
enum HeapPart : size_t { kBenchHeap, kClusterHeap, kWorldHeap, kDomainHeap };

std::unique_ptr<HeapSplit> SplitHeap(engine::Engine* eng) {
  std::unique_ptr<HeapSplit> heap = HeapSplit::Start({"bench", "cluster", "world", "domain"});
  if (heap) {
    eng->set_phase_observer([h = heap.get()](engine::Engine::StepPhase p) {
      h->Enter(p == engine::Engine::StepPhase::kWorld    ? kWorldHeap
               : p == engine::Engine::StepPhase::kReduce ? kDomainHeap
                                                         : kBenchHeap);
    });
  }
  return heap;
}

// The engine's events as a JSONL log: at `path`, else $RECON_BENCH_LOG, else none.
std::FILE* OpenLog(const std::string& path) {
  if (!path.empty()) return std::fopen(path.c_str(), "w");
  if (const char* env = std::getenv("RECON_BENCH_LOG")) return std::fopen(env, "w");
  return nullptr;
}

}  // namespace

absl::StatusOr<records::ContentFiles> ReadCatalogDir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return absl::NotFoundError(StrCat(dir, ": not a directory"));
  records::ContentFiles files;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    std::ifstream in(it->path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    files.emplace_back(fs::relative(it->path(), dir).generic_string(), ss.str());
  }
  if (ec) return absl::UnavailableError(StrCat(dir, ": ", ec.message()));
  std::sort(files.begin(), files.end());
  return files;
}

std::string OlmNamespace(uint64_t i) { return absl::StrFormat("bench-%05d", i); }

// Packages with dependencies are included: the generated subscriptions and
// multi-operator plans are what resolution is for.
std::vector<OlmTarget> OlmTargets(const olm::CatalogIndex& idx) {
  std::vector<OlmTarget> pool;
  const auto& es = idx.entries();
  for (const auto& p : idx.packages()) {
    const olm::CatalogChannel* ch = p.Find(p.default_channel);
    if (ch == nullptr || ch->order.size() < 2) continue;
    pool.push_back({p.name, ch->name, es[ch->order.back()].name, es[ch->order.front()].name});
  }
  return pool;
}

std::string OlmFigures::ToJson() const {
  std::string out = absl::StrFormat(
      R"({"subscriptions":%d,"packages":%d,"bundles":%d,"catalog_load_ms":%.1f,"resolutions_per_s":%.0f,)",
      subscriptions, packages, bundles, catalog_load_ms, resolutions_per_s);
  absl::StrAppendFormat(&out, R"("events":%d,"actions":%d,"install_plans":%d,"engine_resolutions":%d,)",
                        events, actions, install_plans, engine_resolutions);
  absl::StrAppendFormat(&out,
                        R"("engine_resolutions_computed":%d,"engine_syncs":%d,"engine_syncs_skipped":%d,)",
                        engine_resolutions_computed, engine_syncs, engine_syncs_skipped);
  absl::StrAppendFormat(&out,
                        R"("engine_resolutions_per_s":%.0f,"events_per_s":%.0f,"engine_ms_to_converge":%.1f,)"
                        R"("engine_step_ms":%.1f,)",
                        engine_resolutions_per_s, events_per_s, engine_ms_to_converge, engine_step_ms);
  absl::StrAppendFormat(&out, R"("at_head":%d,"resolution_failed":%d,"peak_rss_mb":%.1f,"heap_peak":%s,)",
                        at_head, resolution_failed, peak_rss_mb, HeapPeaksJson(heap));
  absl::StrAppendFormat(&out, R"("resolution_failed_by":%s,"below_head_without_failure":%s,"writes":%s})",
                        CountsJson(failed_by), CountsJson(below_head), CountsJson(writes));
  return out;
}

absl::StatusOr<OlmFigures> MeasureOlm(const std::string& catalog_dir, uint64_t subscriptions,
                                      const std::string& log_path,
                                      const std::function<void(uint64_t events)>& progress,
                                      const std::string& subscription_writes, bool heap_split) {
  OlmFigures f;
  auto files = ReadCatalogDir(catalog_dir);
  if (!files.ok()) return files.status();
  auto t0 = Clock::now();
  auto index = olm::CatalogIndex::Load(*files);
  if (!index.ok()) return index.status();
  f.catalog_load_ms = Ms(t0, Clock::now());
  f.bundles = (*index)->entries().size();
  std::map<std::string, const olm::Entry*> by_name;
  for (const auto& e : (*index)->entries()) by_name.emplace(e.name, &e);
  const std::vector<Target> pool = OlmTargets(**index);
  if (pool.empty()) return absl::FailedPreconditionError("no package has a default channel with 2+ entries");
  f.packages = pool.size();
  f.subscriptions = subscriptions;
  f.resolutions_per_s = ResolutionsPerSecond(*index, pool, by_name, subscriptions);

  // 2. The engine driven to convergence.
  std::vector<std::unique_ptr<engine::Reducer>> reducers;
  reducers.push_back(olm::MakeReducer());
  auto* reducer = static_cast<olm::OlmReducer*>(reducers.back().get());
  engine::Engine eng(std::move(reducers));
  std::unique_ptr<HeapSplit> heap = heap_split ? SplitHeap(&eng) : nullptr;
  auto enter = [&](HeapPart p) {
    if (heap) heap->Enter(p);
  };
  int64_t now = 1'800'000'000'000'000'000LL;
  std::deque<records::EventRecord> queue;
  enter(kClusterHeap);
  OlmBenchCluster cluster(soak::OlmBundlesOf(**index), &queue);
  InitialEvents(*files, pool, subscriptions, now, subscription_writes, &queue, &cluster);
  enter(kBenchHeap);
  uint64_t seq = 0;
  std::vector<records::ActionRecord> actions;
  std::FILE* log = OpenLog(log_path);
  auto t2 = Clock::now();
  const uint64_t max_events = 20000 * subscriptions + 1000;  // a runaway loop is reported, not waited on
  // The domain's timers (a plan's or a CSV's requeue), fired as the agent's
  // runtime fires them: a due one before the next queued event; with the
  // queue empty, the next one at its time. Converged once the queue is
  // empty and every pending timer has fired since without a write.
  runtime::TimerTable timers;
  size_t quiet_timers = 0;  // timers fired since the queue emptied, none writing
  while (seq < max_events) {
    std::vector<records::EventRecord> due = timers.TakeDue(now + 1'000'000);
    if (due.empty() && queue.empty()) {
      std::optional<int64_t> next = timers.NextDueNs();
      if (!next || quiet_timers > timers.size()) break;
      now = std::max(now, *next - 1'000'000);
      due = timers.TakeDue(now + 1'000'000);
    }
    for (auto t = due.rbegin(); t != due.rend(); ++t) queue.push_front(std::move(*t));
    const bool timer = !queue.empty() && queue.front().type == records::EventType::kTimer;
    records::EventRecord r = std::move(queue.front());
    queue.pop_front();
    now += 1'000'000;
    r.time_ns = now;
    actions.clear();
    if (log) {
      std::string line = engine::EventToJsonl(
          seq + 1, r, r.type == records::EventType::kContent ? &r.content_files : nullptr);
      std::fwrite(line.data(), 1, line.size(), log);
    }
    auto s0 = Clock::now();
    if (auto s = eng.Step(engine::Event::FromRecord(++seq, r), &actions); !s.ok()) return s;
    f.engine_step_ms += Ms(s0, Clock::now());
    f.actions += actions.size();
    bool wrote = false;
    for (const auto& a : actions) {
      ++f.writes[StrCat(a.verb, " ", a.object.kind)];
      if (a.verb == "setTimer") {
        timers.Set(a.timer, a.at_ns);
      } else {
        wrote = true;
      }
    }
    quiet_timers = timer && !wrote ? quiet_timers + 1 : 0;
    DebugStep(seq, r, actions);
    enter(kClusterHeap);
    cluster.Apply(actions, now);
    enter(kBenchHeap);
    if (seq % 1000 == 0) {
      if (heap) heap->Sample();
      if (progress) progress(seq);
    }
  }
  if (heap) {
    heap->Sample();
    f.heap = heap->peaks();
  }
  f.engine_ms_to_converge = Ms(t2, Clock::now());
  if (log) std::fclose(log);
  f.events = seq;
  f.install_plans = cluster.install_plans_created();
  f.engine_resolutions = reducer->resolutions();
  f.engine_resolutions_computed = reducer->resolutions_computed();
  f.engine_syncs = reducer->syncs();
  f.engine_syncs_skipped = reducer->syncs_skipped();
  f.events_per_s = f.engine_ms_to_converge > 0 ? seq / (f.engine_ms_to_converge / 1000.0) : 0;
  f.engine_resolutions_per_s =
      f.engine_ms_to_converge > 0 ? f.engine_resolutions / (f.engine_ms_to_converge / 1000.0) : 0;
  Tally(eng, pool, subscriptions, &f);
  f.peak_rss_mb = StatusMb("VmHWM:");
  return f;
}

}  // namespace recon::bench
