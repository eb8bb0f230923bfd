// Google Benchmark: OLM catalog load, model conversion + validation, graph.
// Data: $RECON_OLM_DATA or the source tree's datasets/olm.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>

#include "domains/olm/catalog/graph.h"
#include "domains/olm/catalog/loader.h"
#include "domains/olm/catalog/model.h"
#include "io/disk_file_source.h"
#include "io/thread_pool_executor.h"

namespace {

std::string DataDir(const char* sub) {
  const char* env = std::getenv("RECON_OLM_DATA");
  std::string root = env ? env : RECON_SOURCE_DIR "/datasets/olm";
  return root + "/" + sub;
}

void BM_Load(benchmark::State& state, const char* sub, int threads) {
  std::string dir = DataDir(sub);
  if (!std::filesystem::exists(dir)) {
    state.SkipWithError("catalog data not found (set RECON_OLM_DATA)");
    return;
  }
  recon::io::DiskFileSource src(dir);
  recon::io::ThreadPoolExecutor pool(threads);
  recon::olm::LoadOptions opts;
  opts.executor = &pool;
  opts.keep_payloads = false;
  for (auto _ : state) {
    auto cfg = recon::olm::LoadCatalog(src, opts);
    benchmark::DoNotOptimize(cfg);
  }
}
BENCHMARK_CAPTURE(BM_Load, community_2threads, "community-v4.19", 2)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Load, community_1thread, "community-v4.19", 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Load, derived, "community-derived", 2)->Unit(benchmark::kMillisecond);

void BM_ValidateAndGraph(benchmark::State& state, const char* sub) {
  std::string dir = DataDir(sub);
  if (!std::filesystem::exists(dir)) {
    state.SkipWithError("catalog data not found (set RECON_OLM_DATA)");
    return;
  }
  recon::io::DiskFileSource src(dir);
  recon::io::ThreadPoolExecutor pool(2);
  recon::olm::LoadOptions opts;
  opts.executor = &pool;
  opts.keep_payloads = false;
  auto cfg = recon::olm::LoadCatalog(src, opts);
  if (!cfg.ok()) {
    state.SkipWithError("load failed");
    return;
  }
  for (auto _ : state) {
    recon::olm::ErrorNode errors;
    recon::olm::Model m = recon::olm::BuildModel(*cfg, &errors);
    auto totals = recon::olm::BuildAllGraphs(m);
    benchmark::DoNotOptimize(totals);
  }
  state.SetItemsProcessed(state.iterations() * cfg->bundles.size());
}
BENCHMARK_CAPTURE(BM_ValidateAndGraph, derived, "community-derived")->Unit(benchmark::kMillisecond);

void BM_ParseRange(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(recon::olm::ParseRange(">=1.2.0 <1.12.18+x63f4f4c || 2.x"));
}
BENCHMARK(BM_ParseRange);

}  // namespace

BENCHMARK_MAIN();
