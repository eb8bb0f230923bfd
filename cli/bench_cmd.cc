// recon bench <what>: throughput figures as one JSON object.
#include <time.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <future>
#include <optional>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "adapters/azure/arm_client.h"
#include "adapters/http/io_loop.h"
#include "adapters/sim/api_server.h"
#include "adapters/sim/arm_server.h"
#include "bench/catalog_figures.h"
#include "bench/etcd_store_figures.h"
#include "bench/olm_figures.h"
#include "bench/olm_peer_figures.h"
#include "bench/replay_figures.h"
#include "bench/samples_figures.h"
#include "bench/sim_figures.h"
#include "bench/store_figures.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/data_dir.h"
#include "cli/domains.h"
#include "cli/io.h"
#include "cli/store_open.h"

namespace recon::cli {
namespace {

constexpr char kBenchUsage[] =
    "usage: recon bench <what> [options]\n"
    "  store [--json] [--events N] [--batch B] [--bytes S] [--rounds R] [--dir DIR]\n"
    "      RocksDbStore appends (sync, batches of B) against raw RocksDB WriteBatches of the\n"
    "      same keys and bytes in the same run; scans; MemoryStore appends. With --store\n"
    "      etcd://HOST:PORT[,...]/PREFIX: EtcdStore appends against raw etcd transactions of the\n"
    "      same bytes through the same client, its reads against RocksDB's, a 13 MB blob\n"
    "  replay [--json] [--events N] [--domains a,b] [--dir DIR]\n"
    "      full replay of a log of realistic 1-5 KiB objects from RocksDbStore, against\n"
    "      simdjson DOM parsing of the same bytes in the same run\n"
    "  catalog [--json] DIR [--rounds R] [--scale N] [--scale-dir DIR2]\n"
    "      OLM catalog load/validate/graph times and peak RSS for DIR, baselines (1 thread, no\n"
    "      payload cut, libyaml events alone), validate+graph of DIR2 (default DIR) replicated N x\n"
    "  samples [--json] [DIR] [--scale N] [--rounds R]\n"
    "      samples reconcile from an empty simulated cluster to converged on the inventory DIR\n"
    "      (default datasets/samples/ocp-x86_64 of the repository) and on N renamed copies of it (default "
    "100)\n"
    "  olm [--json] [--quiet] [DIR] [--subscriptions N] [--heap] [--peer PATH [--race-only]]\n"
    "      N subscriptions (default 1000, one per namespace) over the packages of the FBC catalog\n"
    "      DIR (default the repository's datasets/olm/community-derived), from their oldest entries to the\n"
    "      channel heads through the engine as both of OLM's operators: it carries out its InstallPlans\n"
    "      and moves the CSVs through their phases (the cluster runs the bundle unpack Jobs, establishes\n"
    "      CRDs and rolls Deployments out); plus the resolver alone. On a terminal a\n"
    "      progress line (events, events/s) on stderr unless --quiet\n"
    "      --peer PATH: first race a peer resolver (OLM v0.24.0's, built by\n"
    "      bench/peers/olm-resolver/build.sh) against recon's on the same catalog and the same\n"
    "      subscriptions' installs: both rates, their ratio, and whether the answers agree;\n"
    "      --race-only: the race alone, without the engine's run\n"
    "      --heap: also the peak heap of the simulated cluster, the engine's World and the domain's\n"
    "      state apart (jemalloc arenas with the thread cache off: the times run ~1.8x slower)\n"
    "  sim [--json] [--objects N] [--rounds R]\n"
    "      the simulated API server's writes with admission against the real CRDs, against the\n"
    "      same writes with validation off, in the same run (N objects of each kind, R rounds)\n"
    "  arm [--json] [--subnets N] [--rounds R] [--in-flight K]\n"
    "      ARM polls (GET of each of N subnets, default 1000, R rounds, K requests in flight) by the\n"
    "      azure adapter's client against the simulated ARM in this process: polls/s and the\n"
    "      client thread's CPU per poll\n";

// `bench store --store etcd://…`: the store on a real cluster (issue 51).
int BenchEtcdStore(const Args& args) {
  const std::string where = *args.Get("store");
  if (!IsEtcdStore(where)) return UsageError("bench store", "--store: expected etcd://HOST:PORT[,...]/PREFIX");
  auto events = args.GetUint("events", 16384);
  auto batch = args.GetUint("batch", 256);
  auto bytes = args.GetUint("bytes", 1024);
  auto rounds = args.GetUint("rounds", 3);
  for (auto* s : {&events, &batch, &bytes, &rounds}) {
    if (!s->ok()) return UsageError("bench store", s->status().message());
  }
  if (*batch == 0 || *rounds == 0 || *events == 0)
    return UsageError("bench store", "--events, --batch and --rounds must be > 0");
  auto target = ConnectEtcd(where, StoreFlagsFrom(args));
  if (!target.ok()) return Fail("bench store", target.status().message());
  std::string dir = args.GetOr("dir", (std::filesystem::temp_directory_path() / "recon-bench-etcd").string());
  auto f = bench::MeasureEtcdStore(target->kv, target->prefix, dir, *events, *batch, *bytes, static_cast<int>(*rounds));
  if (!f.ok()) return Fail("bench store", f.status().message());
  if (args.Has("json")) {
    std::printf("%s\n", f->ToJson().c_str());
    return 0;
  }
  std::printf("events %llu x %llu B, batches of %llu, on %s\n", static_cast<unsigned long long>(f->events),
              static_cast<unsigned long long>(f->event_bytes), static_cast<unsigned long long>(f->batch),
              where.c_str());
  std::printf("  EtcdStore append      %12.0f events/s\n", f->append_events_per_s);
  std::printf("  raw etcd txns         %12.0f events/s\n", f->raw_txn_events_per_s);
  std::printf("  ratio                 %12.3f\n", f->append_vs_raw_ratio);
  std::printf("  EtcdStore read        %12.0f events/s\n", f->read_events_per_s);
  std::printf("  RocksDbStore read     %12.0f events/s\n", f->rocksdb_read_events_per_s);
  std::printf("  ratio                 %12.3f\n", f->read_vs_rocksdb_ratio);
  std::printf("  %.1f MB blob: written in %.2f s (%llu transactions), read in %.2f s\n", f->blob_bytes / 1e6,
              f->blob_write_s, static_cast<unsigned long long>(f->blob_txns), f->blob_read_s);
  return 0;
}

int BenchStore(int argc, char** argv) {
  int code = 0;
  auto args = ParseCommand("bench store", kBenchUsage, argc, argv,
                           {"events", "batch", "bytes", "rounds", "dir", "store"}, {"json"}, &code);
  if (!args) return code;
  if (args->Has("store")) return BenchEtcdStore(*args);
  auto events = args->GetUint("events", 65536);
  auto batch = args->GetUint("batch", 256);
  auto bytes = args->GetUint("bytes", 1024);
  auto rounds = args->GetUint("rounds", 3);
  for (auto* s : {&events, &batch, &bytes, &rounds}) {
    if (!s->ok()) return UsageError("bench store", s->status().message());
  }
  if (*batch == 0 || *rounds == 0 || *events == 0)
    return UsageError("bench store", "--events, --batch and --rounds must be > 0");
  std::string dir =
      args->GetOr("dir", (std::filesystem::temp_directory_path() / "recon-bench-store").string());
  auto f = bench::MeasureStore(dir, *events, *batch, *bytes, static_cast<int>(*rounds));
  if (!f.ok()) return Fail("bench store", f.status().message());
  if (args->Has("json")) {
    std::printf("%s\n", f->ToJson().c_str());
  } else {
    std::printf("events %llu x %llu B, batches of %llu, sync\n", static_cast<unsigned long long>(f->events),
                static_cast<unsigned long long>(f->event_bytes), static_cast<unsigned long long>(f->batch));
    std::printf("  RocksDbStore append   %12.0f events/s\n", f->append_events_per_s);
    std::printf("  raw RocksDB batch     %12.0f events/s\n", f->raw_rocksdb_batch_events_per_s);
    std::printf("  ratio                 %12.3f\n", f->append_vs_raw_ratio);
    std::printf("  scan (verified)       %12.0f events/s\n", f->scan_events_per_s);
    std::printf("  scan + decode         %12.0f events/s\n", f->scan_decode_events_per_s);
    std::printf("  MemoryStore append    %12.0f events/s\n", f->memory_append_events_per_s);
  }
  return 0;
}

int BenchReplay(int argc, char** argv) {
  int code = 0;
  auto args =
      ParseCommand("bench replay", kBenchUsage, argc, argv, {"events", "dir", "domains"}, {"json"}, &code);
  if (!args) return code;
  auto events = args->GetUint("events", 200000);
  if (!events.ok()) return UsageError("bench replay", events.status().message());
  std::string dir =
      args->GetOr("dir", (std::filesystem::temp_directory_path() / "recon-bench-replay").string());
  std::string domains = args->GetOr("domains", "");
  if (auto r = MakeReducers(domains); !r.ok()) return UsageError("bench replay", r.status().message());
  auto f = bench::MeasureReplay(
      dir, *events, [&] { return std::make_unique<engine::Engine>(std::move(*MakeReducers(domains))); });
  if (!f.ok()) return Fail("bench replay", f.status().message());
  if (args->Has("json")) {
    std::printf("%s\n", f->ToJson().c_str());
  } else {
    std::printf("replay of %llu events (%.1f MB of object JSON) from RocksDbStore, domains: %s\n",
                static_cast<unsigned long long>(f->events), f->object_bytes / 1e6,
                domains.empty() ? "all" : domains.c_str());
    std::printf("  replay          %12.0f events/s  %8.1f MB/s\n", f->replay_events_per_s,
                f->replay_mb_per_s);
    std::printf("  simdjson parse  %12.1f MB/s (same bytes, same run)\n", f->raw_simdjson_mb_per_s);
    std::printf("  ratio           %12.3f\n", f->replay_vs_parse_ratio);
    std::printf("  two stages      %12.0f events/s  (--jobs 2: %.2fx the one-thread replay, actions %s)\n",
                f->pipelined_events_per_s, f->pipelined_speedup,
                f->pipelined_same_actions ? "the same" : "DIFFERENT");
  }
  return 0;
}

int BenchCatalog(int argc, char** argv) {
  int code = 0;
  auto args = ParseCommand("bench catalog", kBenchUsage, argc, argv, {"rounds", "scale", "scale-dir"},
                           {"json"}, &code);
  if (!args) return code;
  if (args->positionals().size() != 1) {
    std::fprintf(stderr, "recon bench catalog: needs exactly one DIR\n%s", kBenchUsage);
    return 2;
  }
  auto rounds = args->GetUint("rounds", 5);
  auto scale = args->GetUint("scale", 100);
  if (!rounds.ok()) return UsageError("bench catalog", rounds.status().message());
  if (!scale.ok()) return UsageError("bench catalog", scale.status().message());
  if (*rounds == 0) return UsageError("bench catalog", "--rounds must be > 0");
  auto f = bench::MeasureCatalog(args->positionals()[0], static_cast<int>(*rounds), static_cast<int>(*scale),
                                 args->GetOr("scale-dir", ""));
  if (!f.ok()) return Fail("bench catalog", f.status().message());
  if (args->Has("json")) {
    std::printf("%s\n", f->ToJson().c_str());
  } else {
    std::printf("%llu files, %llu bytes, %llu bundles, %llu edges\n",
                static_cast<unsigned long long>(f->files), static_cast<unsigned long long>(f->bytes),
                static_cast<unsigned long long>(f->bundles), static_cast<unsigned long long>(f->edges));
    std::printf("  load %.1f ms, validate %.1f ms, graph %.1f ms, peak RSS %.1f MB\n", f->load_ms,
                f->validate_ms, f->graph_ms, f->peak_rss_mb);
    // The baselines of the same run: what the load is measured against.
    std::printf("  baselines: load on 1 thread %.1f ms, without the payload cut %.1f ms, libyaml events alone "
                "(1 core) %.1f ms; RSS before the load %.1f MB\n",
                f->load_1thread_ms, f->load_no_cut_ms, f->libyaml_events_ms, f->base_rss_mb);
    std::printf("  scaled x%llu: %llu bundles, validate %.1f ms, graph %.1f ms\n",
                static_cast<unsigned long long>(f->scale), static_cast<unsigned long long>(f->scaled_bundles),
                f->scaled_validate_ms, f->scaled_graph_ms);
  }
  return 0;
}

int BenchSamples(int argc, char** argv) {
  int code = 0;
  auto args = ParseCommand("bench samples", kBenchUsage, argc, argv, {"rounds", "scale"}, {"json"}, &code);
  if (!args) return code;
  if (args->positionals().size() > 1) {
    std::fprintf(stderr, "recon bench samples: at most one DIR\n%s", kBenchUsage);
    return 2;
  }
  auto rounds = args->GetUint("rounds", 3);
  auto scale = args->GetUint("scale", 100);
  if (!rounds.ok()) return UsageError("bench samples", rounds.status().message());
  if (!scale.ok()) return UsageError("bench samples", scale.status().message());
  if (*rounds == 0) return UsageError("bench samples", "--rounds must be > 0");
  std::string dir =
      args->positionals().empty() ? DataPath("samples/ocp-x86_64") : args->positionals()[0];
  auto f = bench::MeasureSamples(dir, static_cast<int>(*scale), static_cast<int>(*rounds));
  if (!f.ok()) return Fail("bench samples", f.status().message());
  if (!f->skipped.empty()) std::fprintf(stderr, "recon bench samples: skipped: %s\n", f->skipped.c_str());
  if (args->Has("json")) {
    std::printf("%s\n", f->ToJson().c_str());
  } else {
    for (const auto& r : f->runs) {
      std::printf(
          "%-5s %llu imagestreams, %llu templates: %s after %.0f s virtual, %llu events, %llu actions\n",
          r.label.c_str(), static_cast<unsigned long long>(r.imagestreams),
          static_cast<unsigned long long>(r.templates), r.converged ? "converged" : "NOT converged",
          r.virtual_s, static_cast<unsigned long long>(r.events), static_cast<unsigned long long>(r.actions));
      std::printf("      %.1f ms to converge (%.1f ms in the reducer), %.0f events/s, %.0f actions/s\n",
                  r.engine_ms_to_converge, r.reduce_ms, r.events_per_s, r.actions_per_s);
    }
  }
  return 0;
}

// `engine_per_s` 0: the engine did not run (--race-only).
void PrintRace(const bench::PeerRace& r, double engine_per_s) {
  std::printf("race with the peer resolver (%s%s), %llu installs from a fresh namespace\n", r.peer.c_str(),
              r.gomaxprocs > 0 ? absl::StrCat(", GOMAXPROCS=", r.gomaxprocs).c_str() : "",
              static_cast<unsigned long long>(r.subscriptions));
  std::printf("  peer              %12.1f resolutions/s (p50 %.3f ms, p99 %.3f ms), peak RSS %.1f MB\n",
              r.peer_per_s, r.peer_p50_ms, r.peer_p99_ms, r.peer_peak_rss_mb);
  std::printf("  recon's resolver  %12.1f resolutions/s (p50 %.3f ms, p99 %.3f ms): %.1fx the peer\n",
              r.recon_per_s, r.recon_p50_ms, r.recon_p99_ms, r.ratio());
  if (r.peer_per_s > 0 && engine_per_s > 0)
    std::printf(
        "  recon's engine    %12.1f namespace resolutions/s end to end: %.2fx the peer's resolver alone\n",
        engine_per_s, engine_per_s / r.peer_per_s);
  std::printf(
      "  answers           %12llu the same, %llu different (peer: %llu ok, %llu unsatisfiable, %llu "
      "errors)\n",
      static_cast<unsigned long long>(r.agree), static_cast<unsigned long long>(r.differ_count),
      static_cast<unsigned long long>(r.peer_ok), static_cast<unsigned long long>(r.peer_unsat),
      static_cast<unsigned long long>(r.peer_error));
  for (const auto& d : r.differ) std::printf("    %s\n", d.c_str());
}

int BenchOlm(int argc, char** argv) {
  int code = 0;
  auto args = ParseCommand("bench olm", kBenchUsage, argc, argv, {"subscriptions", "peer"},
                           {"json", "quiet", "race-only", "heap"}, &code);
  if (!args) return code;
  if (args->positionals().size() > 1) {
    std::fprintf(stderr, "recon bench olm: at most one DIR\n%s", kBenchUsage);
    return 2;
  }
  auto subs = args->GetUint("subscriptions", 1000);
  if (!subs.ok()) return UsageError("bench olm", subs.status().message());
  std::string dir =
      args->positionals().empty() ? DataPath("olm/community-derived") : args->positionals()[0];
  if (*subs == 0) return UsageError("bench olm", "--subscriptions: expected at least 1");
  if (args->Has("race-only") && !args->Get("peer"))
    return UsageError("bench olm", "--race-only needs --peer PATH");
  // The race first: a peer that fails costs seconds, not the engine's run.
  std::optional<bench::PeerRace> race;
  if (auto peer = args->Get("peer")) {
    if (!args->Has("quiet"))
      std::fprintf(stderr, "recon bench olm: racing the peer resolver %s\n", peer->c_str());
    auto r = bench::RaceResolver(*peer, dir, *subs);
    if (!r.ok()) return Fail("bench olm", absl::StrCat("--peer: ", r.status().message()));
    race = std::move(*r);
  }
  if (args->Has("race-only")) {
    if (args->Has("json")) {
      std::printf("{\"peer_race\":%s}\n", race->ToJson().c_str());
    } else {
      PrintRace(*race, 0);
    }
    return 0;
  }
  Progress progress("bench olm", 0, args->Has("quiet"));
  auto f = bench::MeasureOlm(
      dir, *subs, "", [&](uint64_t events) { progress.Update(0, events); }, "split", args->Has("heap"));
  if (f.ok() && args->Has("heap") && f->heap.empty())
    return Fail("bench olm",
                "--heap: this build does not allocate through jemalloc (sanitizer builds do not)");
  progress.Done();
  if (!f.ok()) return Fail("bench olm", f.status().message());
  if (args->Has("json")) {
    std::string json = f->ToJson();
    // The race joins the figures' object as one more key, in the same line.
    if (race) json.insert(json.size() - 1, absl::StrCat(",\"peer_race\":", race->ToJson()));
    std::printf("%s\n", json.c_str());
  } else {
    std::printf("%llu subscriptions over %llu packages (%llu entries)\n",
                static_cast<unsigned long long>(f->subscriptions),
                static_cast<unsigned long long>(f->packages), static_cast<unsigned long long>(f->bundles));
    std::printf("  resolver alone    %12.0f resolutions/s\n", f->resolutions_per_s);
    std::printf("  engine            %12.0f events/s, %.0f resolutions/s, %.1f ms to converge\n",
                f->events_per_s, f->engine_resolutions_per_s, f->engine_ms_to_converge);
    std::printf("  at channel head   %12llu (ResolutionFailed: %llu), peak RSS %.1f MB\n",
                static_cast<unsigned long long>(f->at_head),
                static_cast<unsigned long long>(f->resolution_failed), f->peak_rss_mb);
    if (!f->heap.empty()) {
      std::printf("  peak heap         ");
      for (const auto& p : f->heap)
        std::printf("%s %.1f MB (%.1f resident)%s", p.part.c_str(), p.allocated_mb, p.resident_mb,
                    &p == &f->heap.back() ? "\n" : ", ");
    }
    if (race) PrintRace(*race, f->engine_resolutions_per_s);
  }
  return 0;
}

int BenchSim(int argc, char** argv) {
  int code = 0;
  auto args = ParseCommand("bench sim", kBenchUsage, argc, argv, {"objects", "rounds"}, {"json"}, &code);
  if (!args) return code;
  auto objects = args->GetUint("objects", 1000);
  auto rounds = args->GetUint("rounds", 5);
  if (!objects.ok()) return UsageError("bench sim", objects.status().message());
  if (!rounds.ok()) return UsageError("bench sim", rounds.status().message());
  auto f = bench::MeasureSimWrites(*objects, *rounds);
  if (!f.ok()) return Fail("bench sim", f.status().message());
  if (args->Has("json")) {
    std::printf("%s\n", f->ToJson().c_str());
  } else {
    std::printf("%llu writes (%llu objects of each kind, %llu rounds), %llu refused\n",
                static_cast<unsigned long long>(f->writes), static_cast<unsigned long long>(f->objects),
                static_cast<unsigned long long>(f->rounds), static_cast<unsigned long long>(f->refused));
    std::printf(
        "  validation on   %12.0f writes/s\n  validation off  %12.0f writes/s\n  ratio           %12.2f\n",
        f->validate_on_per_s, f->validate_off_per_s, f->ratio);
  }
  return f->refused == 0 ? 0 : 1;
}

int64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

int BenchArm(int argc, char** argv) {
  int code = 0;
  auto args =
      ParseCommand("bench arm", kBenchUsage, argc, argv, {"subnets", "rounds", "in-flight"}, {"json"}, &code);
  if (!args) return code;
  auto subnets = args->GetUint("subnets", 1000);
  auto rounds = args->GetUint("rounds", 5);
  auto window = args->GetUint("in-flight", 16);
  for (auto* s : {&subnets, &rounds, &window})
    if (!s->ok()) return UsageError("bench arm", s->status().message());
  if (*subnets == 0 || *rounds == 0 || *window == 0)
    return UsageError("bench arm", "--subnets, --rounds and --in-flight must be > 0");
  sim::Scenario scenario;
  scenario.name = "bench-arm";
  std::vector<std::string> ids;
  const std::string nsg =
      "/subscriptions/sub-1/resourceGroups/infra/providers/Microsoft.Network/networkSecurityGroups/nsg";
  for (uint64_t i = 0; i < *subnets; ++i) {
    ids.push_back(absl::StrCat("/subscriptions/sub-1/resourceGroups/vnet-rg/providers/Microsoft.Network/",
                               "virtualNetworks/vnet/subnets/subnet-", i));
    scenario.objects.push_back(
        engine::Json{{"apiVersion", "network.azure.com/v1"},
                     {"kind", "Subnet"},
                     {"metadata", {{"name", ids.back()}}},
                     {"spec",
                      {{"addressPrefix", absl::StrCat("10.", i / 256 % 256, ".", i % 256, ".0/24")},
                       {"networkSecurityGroup", {{"id", nsg}}},
                       {"serviceEndpoints", engine::Json::array({{{"service", "Microsoft.Storage"},
                                                                  {"locations", engine::Json::array({"*"})},
                                                                  {"provisioningState", "Succeeded"}}})}}}});
  }
  auto cluster = sim::ApiServer::Start(scenario, sim::ServeOptions{});
  if (!cluster.ok()) return Fail("bench arm", cluster.status().message());
  auto arm = sim::ArmServer::Start(**cluster, sim::ArmServeOptions{});
  if (!arm.ok()) return Fail("bench arm", arm.status().message());
  azure::ArmOptions o;
  o.arm_endpoint = o.aad_endpoint = (*arm)->url();
  o.api.qps = 0;  // the bench measures the client, not its rate limit
  runtime::RealTimeSource clock;
  http::IoLoop loop;
  azure::ArmClient client(loop, o, clock, nullptr);
  azure::Credentials c;
  c.client_id = "client-1";
  c.client_secret = "secret-1";
  c.tenant_id = "tenant-1";
  client.SetCredentials(c);
  loop.Start();
  struct Round {
    std::promise<void> done;
    size_t next = 0, left = 0, failed = 0;
    int64_t cpu_ns = 0;
  };
  // One round: every subnet once, `window` at a time; the loop thread's CPU time.
  auto run_round = [&](size_t count) {
    auto r = std::make_shared<Round>();
    r->left = count;
    auto f = r->done.get_future();
    loop.Post([&, r, count] {
      int64_t cpu0 = ThreadCpuNs();
      auto launch = std::make_shared<std::function<void()>>();
      *launch = [&, r, count, cpu0, launch] {
        if (r->next >= count) return;
        size_t i = r->next++;
        client.Get(ids[i % ids.size()], [&, r, cpu0, launch](azure::ArmResult a) {
          if (!a.ok()) ++r->failed;
          if (--r->left == 0) {
            r->cpu_ns = ThreadCpuNs() - cpu0;
            *launch = nullptr;
            r->done.set_value();
            return;
          }
          (*launch)();
        });
      };
      for (uint64_t k = 0; k < *window; ++k) (*launch)();
    });
    f.wait();
    return r;
  };
  run_round(1);  // the token, the first connections
  int64_t cpu = 0;
  size_t failed = 0;
  auto start = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < *rounds; ++i) {
    auto r = run_round(ids.size());
    cpu += r->cpu_ns;
    failed += r->failed;
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  loop.Post([&] { client.Shutdown(); });
  loop.Stop();
  (*arm)->Stop();
  (*cluster)->Stop();
  double polls = static_cast<double>(ids.size() * *rounds);
  double per_s = polls / secs, cpu_us = static_cast<double>(cpu) / 1000.0 / polls;
  if (args->Has("json")) {
    std::printf(
        "{\"subnets\":%zu,\"rounds\":%llu,\"in_flight\":%llu,\"polls_per_s\":%.0f,"
        "\"client_cpu_us_per_poll\":%.1f,\"failed\":%zu}\n",
        ids.size(), static_cast<unsigned long long>(*rounds), static_cast<unsigned long long>(*window), per_s,
        cpu_us, failed);
  } else {
    std::printf("%zu subnets x %llu rounds, %llu in flight, against the simulated ARM in this process\n",
                ids.size(), static_cast<unsigned long long>(*rounds),
                static_cast<unsigned long long>(*window));
    std::printf("  polls            %12.0f /s\n  client CPU       %12.1f us/poll\n  failed           %12zu\n",
                per_s, cpu_us, failed);
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace

int RunBench(int argc, char** argv) {
  if (argc < 1 || std::string_view(argv[0]) == "--help") {
    std::fputs(kBenchUsage, argc < 1 ? stderr : stdout);
    return argc < 1 ? 2 : 0;
  }
  std::string_view what = argv[0];
  if (what == "store") return BenchStore(argc - 1, argv + 1);
  if (what == "catalog") return BenchCatalog(argc - 1, argv + 1);
  if (what == "replay") return BenchReplay(argc - 1, argv + 1);
  if (what == "olm") return BenchOlm(argc - 1, argv + 1);
  if (what == "samples") return BenchSamples(argc - 1, argv + 1);
  if (what == "sim") return BenchSim(argc - 1, argv + 1);
  if (what == "arm") return BenchArm(argc - 1, argv + 1);
  std::fprintf(stderr, "recon bench: unknown benchmark \"%s\"\n%s", argv[0], kBenchUsage);
  return 2;
}

}  // namespace recon::cli
