#include "bench/etcd_store_figures.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <span>
#include <utility>

#include "absl/strings/str_format.h"
#include "base/strings.h"
#include "bench/store_figures.h"
#include "store/etcd_store.h"
#include "store/rocksdb_store.h"

namespace recon::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// The cluster's client, its transactions counted.
class CountingKv final : public store::KvBackend {
 public:
  explicit CountingKv(std::shared_ptr<store::KvBackend> kv) : kv_(std::move(kv)) {}
  absl::StatusOr<store::RangeResult> Range(const store::KeyRange& r, int64_t limit) override {
    return kv_->Range(r, limit);
  }
  absl::StatusOr<store::TxnResult> Txn(const std::vector<store::Compare>& c,
                                       const std::vector<store::TxnOp>& s,
                                       const std::vector<store::TxnOp>& f) override {
    ++txns_;
    return kv_->Txn(c, s, f);
  }
  absl::Status Compact(int64_t revision) override { return kv_->Compact(revision); }
  absl::StatusOr<store::KvStatus> Status() override { return kv_->Status(); }
  uint64_t Watch(std::string key, WatchFn fn) override { return kv_->Watch(std::move(key), std::move(fn)); }
  void Unwatch(uint64_t id) override { kv_->Unwatch(id); }
  uint64_t txns() const { return txns_; }

 private:
  std::shared_ptr<store::KvBackend> kv_;
  std::atomic<uint64_t> txns_{0};
};

absl::Status Drop(store::KvBackend& kv, const std::string& prefix) {
  auto r = kv.Txn({}, {store::TxnOp::Delete(prefix + "/", store::KeyRange::PrefixEnd(prefix + "/"))});
  return r.ok() ? absl::OkStatus() : r.status();
}

absl::StatusOr<std::unique_ptr<store::EtcdStore>> OpenAt(std::shared_ptr<store::KvBackend> kv,
                                                         std::string prefix) {
  store::EtcdStoreOptions o;
  o.prefix = std::move(prefix);
  return store::EtcdStore::Open(std::move(kv), o);
}

// Every event of the store read and verified; the count read.
absl::StatusOr<uint64_t> ReadAll(store::EventStore& st) {
  auto it = st.ReadEvents(1, store::kEndOfLog);
  if (!it.ok()) return it.status();
  uint64_t n = 0;
  for (; (*it)->Valid(); (*it)->Next()) ++n;
  if (!(*it)->status().ok()) return (*it)->status();
  return n;
}

}  // namespace

std::string EtcdStoreFigures::ToJson() const {
  return absl::StrFormat(
      "{\"events\":%d,\"batch\":%d,\"event_bytes\":%d,\"append_events_per_s\":%.0f,\"raw_txn_events_per_s\":%"
      ".0f,"
      "\"append_vs_raw_ratio\":%.3f,\"read_events_per_s\":%.0f,\"rocksdb_read_events_per_s\":%.0f,"
      "\"read_vs_rocksdb_ratio\":%.3f,\"blob_bytes\":%d,\"blob_write_s\":%.3f,\"blob_read_s\":%.3f,"
      "\"blob_txns\":%d}",
      events, batch, event_bytes, append_events_per_s, raw_txn_events_per_s, append_vs_raw_ratio,
      read_events_per_s, rocksdb_read_events_per_s, read_vs_rocksdb_ratio, blob_bytes, blob_write_s,
      blob_read_s, blob_txns);
}

absl::StatusOr<EtcdStoreFigures> MeasureEtcdStore(std::shared_ptr<store::KvBackend> kv,
                                                  const std::string& prefix, const std::string& dir,
                                                  size_t events, size_t batch, size_t event_bytes,
                                                  int rounds) {
  auto counting = std::make_shared<CountingKv>(std::move(kv));
  EtcdStoreFigures f;
  f.events = events;
  f.batch = batch;
  f.event_bytes = event_bytes;
  const std::vector<records::EventRecord> evs = MakeEvents(events, event_bytes);
  const std::span<const records::EventRecord> all(evs);
  for (int round = 0; round < rounds; ++round) {
    // The store: batches appended, each durable on the cluster's quorum.
    const std::string p = StrCat(prefix, "/bench-", round);
    if (auto s = Drop(*counting, p); !s.ok()) return s;
    auto st = OpenAt(counting, p);
    if (!st.ok()) return st.status();
    auto t0 = Clock::now();
    for (size_t i = 0; i < evs.size(); i += batch) {
      auto r = (*st)->Append(all.subspan(i, std::min(batch, evs.size() - i)));
      if (!r.ok()) return r.status();
    }
    f.append_events_per_s = std::max(f.append_events_per_s, evs.size() / Seconds(t0, Clock::now()));
    // A replay's read: every event, verified.
    t0 = Clock::now();
    auto n = ReadAll(**st);
    if (!n.ok()) return n.status();
    f.read_events_per_s = std::max(f.read_events_per_s, *n / Seconds(t0, Clock::now()));
    st->reset();
    if (auto s = Drop(*counting, p); !s.ok()) return s;
    // The baseline: the same bodies as raw transactions of 128 puts (etcd's
    // default limit), through the same client.
    t0 = Clock::now();
    for (size_t i = 0; i < evs.size(); i += 128) {
      std::vector<store::TxnOp> puts;
      for (size_t k = i; k < std::min(evs.size(), i + 128); ++k)
        puts.push_back(store::TxnOp::Put(StrCat(p, "/raw/", k), evs[k].body));
      auto r = counting->Txn({}, puts, {});
      if (!r.ok()) return r.status();
    }
    f.raw_txn_events_per_s = std::max(f.raw_txn_events_per_s, evs.size() / Seconds(t0, Clock::now()));
    if (auto s = Drop(*counting, p); !s.ok()) return s;
    // RocksDB's read of the same log, in the same run.
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    store::RocksDbOptions ro;
    ro.durability = store::Durability::kNoSync;
    auto rocks = store::RocksDbStore::Open(dir, ro);
    if (!rocks.ok()) return rocks.status();
    for (size_t i = 0; i < evs.size(); i += batch) {
      auto r = (*rocks)->Append(all.subspan(i, std::min(batch, evs.size() - i)));
      if (!r.ok()) return r.status();
    }
    t0 = Clock::now();
    auto rn = ReadAll(**rocks);
    if (!rn.ok()) return rn.status();
    f.rocksdb_read_events_per_s = std::max(f.rocksdb_read_events_per_s, *rn / Seconds(t0, Clock::now()));
    rocks->reset();
    std::filesystem::remove_all(dir, ec);
  }
  f.append_vs_raw_ratio = f.raw_txn_events_per_s > 0 ? f.append_events_per_s / f.raw_txn_events_per_s : 0;
  f.read_vs_rocksdb_ratio =
      f.rocksdb_read_events_per_s > 0 ? f.read_events_per_s / f.rocksdb_read_events_per_s : 0;

  // A 13 MB catalog's content: written in parts, then read back whole.
  const std::string p = StrCat(prefix, "/bench-blob");
  if (auto s = Drop(*counting, p); !s.ok()) return s;
  auto st = OpenAt(counting, p);
  if (!st.ok()) return st.status();
  records::EventRecord blob;
  blob.type = records::EventType::kContent;
  blob.content_name = "bench/blob";
  std::string text;
  for (size_t i = 0; text.size() < 13'000'000; ++i)
    StrAppend(&text, "{\"schema\":\"olm.bundle\",\"n\":", i, "}\n");
  f.blob_bytes = text.size();
  blob.content_files = {{"catalog.json", std::move(text)}};
  const std::string digest = records::ContentDigest(blob.content_files);
  const uint64_t before = counting->txns();
  auto t0 = Clock::now();
  if (auto r = (*st)->Append(std::span<const records::EventRecord>(&blob, 1)); !r.ok()) return r.status();
  f.blob_write_s = Seconds(t0, Clock::now());
  f.blob_txns = counting->txns() - before;
  t0 = Clock::now();
  auto back = (*st)->GetContent(digest);
  if (!back.ok()) return back.status();
  f.blob_read_s = Seconds(t0, Clock::now());
  st->reset();
  if (auto s = Drop(*counting, p); !s.ok()) return s;
  return f;
}

}  // namespace recon::bench
