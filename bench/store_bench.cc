// Google Benchmark: event store appends and scans.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <span>

#include "bench/store_figures.h"
#include "store/memory_store.h"
#include "store/rocksdb_store.h"

namespace {
using recon::records::EventRecord;

void BM_RocksDbAppend(benchmark::State& state) {
  const size_t batch = state.range(0);
  const bool sync = state.range(1);
  auto events = recon::bench::MakeEvents(batch * 16, 1024);
  std::string dir = std::filesystem::temp_directory_path() / "recon-bench-append";
  std::filesystem::remove_all(dir);
  recon::store::RocksDbOptions options;
  options.durability = sync ? recon::store::Durability::kSync : recon::store::Durability::kNoSync;
  auto st = recon::store::RocksDbStore::Open(dir, options);
  size_t i = 0;
  for (auto _ : state) {
    auto r = (*st)->Append(std::span<const EventRecord>(events.data() + (i % 16) * batch, batch));
    benchmark::DoNotOptimize(r);
    ++i;
  }
  state.SetItemsProcessed(state.iterations() * batch);
  st->reset();
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_RocksDbAppend)->Args({256, 1})->Args({256, 0})->Args({1, 0});

void BM_MemoryAppend(benchmark::State& state) {
  auto events = recon::bench::MakeEvents(256, 1024);
  recon::store::MemoryStore st;
  for (auto _ : state) benchmark::DoNotOptimize(st.Append(events));
  state.SetItemsProcessed(state.iterations() * events.size());
}
BENCHMARK(BM_MemoryAppend);

void BM_RocksDbScan(benchmark::State& state) {
  std::string dir = std::filesystem::temp_directory_path() / "recon-bench-scan";
  std::filesystem::remove_all(dir);
  recon::store::RocksDbOptions options;
  options.durability = recon::store::Durability::kNoSync;
  auto st = recon::store::RocksDbStore::Open(dir, options);
  auto events = recon::bench::MakeEvents(state.range(0), 1024);
  (void)(*st)->Append(events);
  for (auto _ : state) {
    auto it = (*st)->ReadEvents(1, recon::store::kEndOfLog);
    size_t n = 0;
    for (; (*it)->Valid(); (*it)->Next()) n += (*it)->payload().size();
    benchmark::DoNotOptimize(n);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  st->reset();
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_RocksDbScan)->Arg(1 << 14);

}  // namespace

BENCHMARK_MAIN();
