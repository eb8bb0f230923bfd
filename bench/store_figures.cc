#include "bench/store_figures.h"

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <span>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/strings.h"
#include "records/codec.h"
#include "store/batch.h"
#include "store/memory_store.h"
#include "store/rocksdb_options.h"
#include "store/rocksdb_store.h"

namespace recon::bench {
namespace {

double Seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

std::vector<records::EventRecord> MakeEvents(size_t count, size_t body_bytes, int64_t start_ns) {
  std::vector<records::EventRecord> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    records::EventRecord e;
    e.time_ns = start_ns + static_cast<int64_t>(i) * 1'000'000;
    e.type = i % 3 == 0 ? records::EventType::kAdded : records::EventType::kModified;
    e.object.version = "v1";
    e.object.kind = "ConfigMap";
    e.object.ns = recon::StrCat("ns-", i % 17);
    e.object.name = recon::StrCat("cm-", i % 1000);
    e.object.resource_version = recon::StrCat(i + 1);
    std::string body = recon::StrCat(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")", e.object.name,
                                    R"(","namespace":")", e.object.ns, R"(","resourceVersion":")",
                                    e.object.resource_version, R"("},"data":{"payload":")");
    size_t fill = body_bytes > body.size() + 3 ? body_bytes - body.size() - 3 : 0;
    for (size_t k = 0; k < fill; ++k) body.push_back(static_cast<char>('a' + (i * 7 + k * 13) % 26));
    body += "\"}}";
    e.body = std::move(body);
    out.push_back(std::move(e));
  }
  return out;
}

std::string StoreFigures::ToJson() const {
  return absl::StrFormat(
      "{\"events\":%d,\"batch\":%d,\"event_bytes\":%d,\"append_events_per_s\":%.0f,"
      "\"raw_rocksdb_batch_events_per_s\":%.0f,\"append_vs_raw_ratio\":%.3f,\"scan_events_per_s\":%.0f,"
      "\"scan_decode_events_per_s\":%.0f,\"memory_append_events_per_s\":%.0f}",
      events, batch, event_bytes, append_events_per_s, raw_rocksdb_batch_events_per_s, append_vs_raw_ratio,
      scan_events_per_s, scan_decode_events_per_s, memory_append_events_per_s);
}

absl::StatusOr<StoreFigures> MeasureStore(const std::string& dir, size_t count, size_t batch, size_t event_bytes,
                                          int rounds) {
  namespace fs = std::filesystem;
  auto events = MakeEvents(count, event_bytes);
  StoreFigures f;
  f.events = count;
  f.batch = batch;
  f.event_bytes = event_bytes;
  std::vector<double> recon_times, raw_times;

  fs::remove_all(dir);
  fs::create_directories(dir);  // RocksDB creates only the last path component
  auto run_recon = [&](int round) -> absl::Status {
    // recon's RocksDbStore.
    fs::remove_all(dir + "/recon");
    {
      auto st = store::RocksDbStore::Open(dir + "/recon");
      if (!st.ok()) return st.status();
      auto t0 = std::chrono::steady_clock::now();
      for (size_t i = 0; i < count; i += batch) {
        auto n = std::min(batch, count - i);
        auto r = (*st)->Append(std::span<const records::EventRecord>(events.data() + i, n));
        if (!r.ok()) return r.status();
      }
      recon_times.push_back(Seconds(t0, std::chrono::steady_clock::now()));
      if (round == rounds - 1) {
        // Scan: every record read and verified (checksum), then also decoded.
        auto t1 = std::chrono::steady_clock::now();
        auto it = (*st)->ReadEvents(1, store::kEndOfLog);
        if (!it.ok()) return it.status();
        uint64_t n = 0, bytes = 0;
        for (; (*it)->Valid(); (*it)->Next()) ++n, bytes += (*it)->payload().size();
        if (!(*it)->status().ok()) return (*it)->status();
        f.scan_events_per_s = n / Seconds(t1, std::chrono::steady_clock::now());
        auto t2 = std::chrono::steady_clock::now();
        auto it2 = (*st)->ReadEvents(1, store::kEndOfLog);
        if (!it2.ok()) return it2.status();
        for (; (*it2)->Valid(); (*it2)->Next()) {
          auto v = records::EventView::Parse((*it2)->payload());
          if (!v.ok()) return v.status();
          bytes += v->reader().getBody().size();
        }
        f.scan_decode_events_per_s = n / Seconds(t2, std::chrono::steady_clock::now());
        if (n != count) return absl::InternalError("scan count mismatch");
      }
    }
    return absl::OkStatus();
  };
  auto run_raw = [&]() -> absl::Status {
    // Raw RocksDB: same keys, same framed bytes, same options, one WriteBatch
    // per batch. The encoding is done up front, outside the timed loop, so
    // the ratio shows what recon's encoding and bookkeeping cost.
    fs::remove_all(dir + "/raw");
    {
      std::vector<std::pair<std::string, std::string>> kv;
      kv.reserve(count);
      store::PreparedBatch prepared;
      if (auto s = store::PrepareBatch(events, &prepared); !s.ok()) return s;
      for (size_t i = 0; i < count; ++i)
        kv.emplace_back(records::EventKey(i + 1), store::FramedEvent(prepared, i, i + 1));
      rocksdb::DB* raw = nullptr;
      std::vector<rocksdb::ColumnFamilyDescriptor> fams = {{rocksdb::kDefaultColumnFamilyName, store::MakeCfOptions()},
                                                           {"events", store::MakeCfOptions()}};
      std::vector<rocksdb::ColumnFamilyHandle*> handles;
      auto s = rocksdb::DB::Open(store::MakeDbOptions(true), dir + "/raw", fams, &handles, &raw);
      if (!s.ok()) return absl::InternalError(s.ToString());
      rocksdb::WriteOptions wo;
      wo.sync = true;
      auto t0 = std::chrono::steady_clock::now();
      for (size_t i = 0; i < count; i += batch) {
        rocksdb::WriteBatch wb;
        for (size_t k = i; k < std::min(count, i + batch); ++k) wb.Put(handles[1], kv[k].first, kv[k].second);
        s = raw->Write(wo, &wb);
        if (!s.ok()) return absl::InternalError(s.ToString());
      }
      raw_times.push_back(Seconds(t0, std::chrono::steady_clock::now()));
      for (auto* h : handles) raw->DestroyColumnFamilyHandle(h);
      delete raw;
    }
    return absl::OkStatus();
  };
  for (int round = 0; round < rounds; ++round) {
    // Alternate which goes first so warm-up and machine noise hit both.
    if (round % 2 == 0) {
      if (auto s = run_recon(round); !s.ok()) return s;
      if (auto s = run_raw(); !s.ok()) return s;
    } else {
      if (auto s = run_raw(); !s.ok()) return s;
      if (auto s = run_recon(round); !s.ok()) return s;
    }
  }
  std::sort(recon_times.begin(), recon_times.end());
  std::sort(raw_times.begin(), raw_times.end());
  double recon_median = recon_times[recon_times.size() / 2];
  double raw_median = raw_times[raw_times.size() / 2];
  f.append_events_per_s = count / recon_median;
  f.raw_rocksdb_batch_events_per_s = count / raw_median;
  f.append_vs_raw_ratio = f.append_events_per_s / f.raw_rocksdb_batch_events_per_s;

  store::MemoryStore mem;
  auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < count; i += batch) {
    auto r = mem.Append(std::span<const records::EventRecord>(events.data() + i, std::min(batch, count - i)));
    if (!r.ok()) return r.status();
  }
  f.memory_append_events_per_s = count / Seconds(t0, std::chrono::steady_clock::now());
  fs::remove_all(dir);
  return f;
}

}  // namespace recon::bench
