#include "store/rocksdb_store.h"

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/iterator.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>

#include <filesystem>
#include <set>

#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "records/codec.h"
#include "store/batch.h"
#include "store/rocksdb_options.h"

namespace recon::store {
namespace {

constexpr char kFormatKey[] = "format";
constexpr char kFormatValue[] = "recon-store-1";
constexpr char kFirstSeqKey[] = "first_seq";
constexpr char kSnapshotKey[] = "snapshot";
constexpr char kAuxPrefix[] = "aux/";

absl::Status FromRocks(const rocksdb::Status& s, std::string_view what) {
  if (s.ok()) return absl::OkStatus();
  std::string msg = recon::StrCat(what, ": ", s.ToString());
  if (s.IsCorruption()) return absl::DataLossError(msg);
  if (s.IsNotFound()) return absl::NotFoundError(msg);
  if (s.IsIOError()) return absl::UnavailableError(msg);
  if (s.IsInvalidArgument()) return absl::InvalidArgumentError(msg);
  return absl::InternalError(msg);
}

std::string_view ToView(const rocksdb::Slice& s) { return {s.data(), s.size()}; }

class RocksIterator : public RecordIterator {
 public:
  // For events, `expect_dense` checks that seqs follow each other from `from`
  // up to `last` (the log's last seq when the read began).
  RocksIterator(std::unique_ptr<rocksdb::Iterator> it, std::unique_ptr<std::string> upper,
                std::unique_ptr<rocksdb::Slice> upper_slice, bool events, uint64_t from,
                uint64_t last)
      : it_(std::move(it)),
        upper_(std::move(upper)),
        upper_slice_(std::move(upper_slice)),
        events_(events),
        expected_(from),
        last_(last) {
    Check();
  }
  bool Valid() const override { return valid_; }
  void Next() override {
    it_->Next();
    ++expected_;
    Check();
  }
  uint64_t seq() const override { return seq_; }
  uint32_t index() const override { return index_; }
  std::string_view payload() const override { return payload_; }
  absl::Status status() const override { return status_; }

 private:
  void Fail(absl::Status s) {
    status_ = std::move(s);
    valid_ = false;
  }
  void Check() {
    valid_ = false;
    if (!it_->Valid()) {
      if (!it_->status().ok()) {
        Fail(FromRocks(it_->status(), recon::StrCat("reading the log at seq ", expected_)));
      } else if (events_ && expected_ <= last_) {
        Fail(absl::DataLossError(recon::StrCat("seq ", expected_, " is missing from the log")));
      }
      return;
    }
    std::string_view key = ToView(it_->key());
    if (events_) {
      if (key.size() != 8) return Fail(absl::DataLossError(recon::StrCat("event key of ", key.size(),
                                                                        " bytes after seq ", expected_ - 1)));
      seq_ = records::DecodeSeqKey(key);
      index_ = 0;
      if (seq_ != expected_) {
        return Fail(absl::DataLossError(recon::StrCat("seq ", expected_, " is missing from the log (next is ", seq_, ")")));
      }
    } else {
      if (key.size() != 12) return Fail(absl::DataLossError("action key of unexpected size"));
      seq_ = records::DecodeSeqKey(key);
      index_ = static_cast<uint32_t>(records::DecodeSeqKey(key.substr(4)) & 0xffffffffu);
    }
    auto p = records::Unframe(
        key, ToView(it_->value()),
        events_ ? recon::StrCat("event seq ", seq_) : recon::StrCat("action ", seq_, ".", index_));
    if (!p.ok()) return Fail(p.status());
    payload_ = *p;
    valid_ = true;
  }

  std::unique_ptr<rocksdb::Iterator> it_;
  std::unique_ptr<std::string> upper_;
  std::unique_ptr<rocksdb::Slice> upper_slice_;
  bool events_;
  uint64_t expected_;
  uint64_t last_;
  bool valid_ = false;
  uint64_t seq_ = 0;
  uint32_t index_ = 0;
  std::string_view payload_;
  absl::Status status_;
};

}  // namespace

struct RocksDbStore::Writer {
  PreparedBatch batch;
  absl::Status status;
  uint64_t first_seq = 0;
  bool done = false;
  std::condition_variable cv;
};

absl::StatusOr<std::unique_ptr<RocksDbStore>> RocksDbStore::Open(const std::string& dir,
                                                                  const RocksDbOptions& options) {
  std::unique_ptr<RocksDbStore> store(new RocksDbStore());
  store->dir_ = dir;
  store->options_ = options;
  if (auto s = store->Init(); !s.ok()) return s;
  return store;
}

absl::Status RocksDbStore::Init() {
  rocksdb::DBOptions db_options = MakeDbOptions(options_.create_if_missing);
  block_cache_ = MakeBlockCache();
  rocksdb::ColumnFamilyOptions cf = MakeCfOptions(block_cache_);

  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, cf}, {"events", cf}, {"actions", cf}, {"content", cf}, {"meta", cf}};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  if (!options_.create_if_missing && !std::filesystem::exists(dir_ + "/CURRENT")) {
    return absl::NotFoundError(recon::StrCat("no store at ", dir_));
  }
  if (options_.create_if_missing) {
    // RocksDB creates only the last path component; "--store a/b/c" should work.
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) return absl::UnavailableError(recon::StrCat("creating ", dir_, ": ", ec.message()));
  }
  auto s = rocksdb::DB::Open(db_options, dir_, families, &handles, &raw);
  if (!s.ok()) return FromRocks(s, recon::StrCat("opening store ", dir_));
  db_.reset(raw);
  default_cf_ = handles[0];
  events_cf_ = handles[1];
  actions_cf_ = handles[2];
  content_cf_ = handles[3];
  meta_cf_ = handles[4];

  std::string value;
  s = db_->Get(rocksdb::ReadOptions(), meta_cf_, kFormatKey, &value);
  if (s.IsNotFound()) {
    rocksdb::WriteOptions wo;
    wo.sync = true;
    s = db_->Put(wo, meta_cf_, kFormatKey, kFormatValue);
    if (!s.ok()) return FromRocks(s, "writing store format");
  } else if (!s.ok()) {
    return FromRocks(s, "reading store format");
  } else if (value != kFormatValue) {
    return absl::FailedPreconditionError(
        recon::StrCat(dir_, ": store format \"", value, "\", this recon reads \"", kFormatValue, "\""));
  }
  s = db_->Get(rocksdb::ReadOptions(), meta_cf_, kFirstSeqKey, &value);
  if (s.ok()) {
    if (value.size() != 8) return absl::DataLossError("meta first_seq: bad length");
    first_seq_ = records::DecodeSeqKey(value);
  } else if (!s.IsNotFound()) {
    return FromRocks(s, "reading first_seq");
  }
  rocksdb::ReadOptions ro;
  ro.verify_checksums = options_.verify_block_checksums;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, events_cf_));
  it->SeekToLast();
  if (!it->status().ok()) {
    // The block holding the newest events is unreadable: refuse to open
    // rather than guess where the log ends.
    return FromRocks(it->status(), recon::StrCat(dir_, ": finding the last seq (the log's last block is damaged)"));
  }
  if (it->Valid()) {
    if (it->key().size() != 8) return absl::DataLossError("last event key has a bad length");
    last_seq_ = records::DecodeSeqKey(ToView(it->key()));
  } else {
    last_seq_ = first_seq_ - 1;
  }
  return absl::OkStatus();
}

RocksDbStore::~RocksDbStore() {
  if (db_) {
    for (auto* h : {events_cf_, actions_cf_, content_cf_, meta_cf_, default_cf_}) {
      if (h) db_->DestroyColumnFamilyHandle(h);
    }
    db_->Close();
  }
}

absl::StatusOr<uint64_t> RocksDbStore::Append(std::span<const records::EventRecord> events) {
  Writer w;
  if (auto s = PrepareBatch(events, &w.batch); !s.ok()) return s;
  std::unique_lock<std::mutex> l(mu_);
  if (events.empty()) return last_seq_ + 1;
  writers_.push_back(&w);
  while (!w.done && &w != writers_.front()) w.cv.wait(l);
  if (w.done) {
    if (!w.status.ok()) return w.status;
    return w.first_seq;
  }
  // This writer leads: it commits every batch queued behind it in one
  // RocksDB write, so they share a single WAL sync (group commit).
  std::deque<Writer*> group(writers_.begin(), writers_.end());
  uint64_t first = last_seq_ + 1;
  l.unlock();
  absl::Status s = WriteGroup(group, first);
  l.lock();
  uint64_t seq = first;
  for (Writer* g : group) {
    if (s.ok() && g->status.ok()) {
      g->first_seq = seq;
      seq += g->batch.events.size();
    } else if (g->status.ok()) {
      g->status = s;
    }
    g->done = true;
    writers_.pop_front();
    if (g != &w) g->cv.notify_one();
  }
  // Only a group that appended something is news (every batch in it may
  // have been refused, e.g. for naming unknown content).
  const bool appended = s.ok() && seq > first;
  if (appended) last_seq_ = seq - 1;
  if (!writers_.empty()) writers_.front()->cv.notify_one();
  std::vector<Listener> to_call;
  if (appended) {
    for (const auto& [id, fn] : listeners_) to_call.push_back(fn);
  }
  uint64_t last = last_seq_;
  l.unlock();
  for (auto& fn : to_call) fn(last);
  if (!w.status.ok()) return w.status;
  return w.first_seq;
}

absl::Status RocksDbStore::WriteGroup(std::deque<Writer*>& group, uint64_t first_seq) {
  rocksdb::WriteBatch batch;
  std::set<std::string> new_content;
  uint64_t seq = first_seq;
  for (Writer* w : group) {
    // A Content event that only names a digest must name stored content.
    for (size_t i = 0; i < w->batch.events.size() && w->status.ok(); ++i) {
      const records::EventRecord& e = w->batch.events[i];
      if (!w->batch.references[i]) continue;
      const std::string& d = w->batch.digests[i];
      bool known = new_content.contains(d);
      for (const auto& c : w->batch.contents) known |= c.digest == d;
      if (!known) {
        std::string ignored;
        auto gs = db_->Get(rocksdb::ReadOptions(), content_cf_, d, &ignored);
        if (gs.IsNotFound()) {
          w->status = absl::FailedPreconditionError(
              recon::StrCat("Content \"", e.content_name, "\" refers to ", d, ", which is not in the store"));
        } else if (!gs.ok()) {
          w->status = FromRocks(gs, "looking up content");
        }
      }
    }
    if (!w->status.ok()) continue;
    for (const auto& c : w->batch.contents) {
      if (!new_content.insert(c.digest).second) continue;
      std::string existing;
      if (db_->Get(rocksdb::ReadOptions(), content_cf_, c.digest, &existing).ok()) continue;
      batch.Put(content_cf_, c.digest, c.framed);
    }
    for (size_t i = 0; i < w->batch.events.size(); ++i, ++seq) {
      batch.Put(events_cf_, records::EventKey(seq), FramedEvent(w->batch, i, seq));
    }
  }
  if (batch.Count() == 0) return absl::OkStatus();
  rocksdb::WriteOptions wo;
  wo.sync = options_.durability == Durability::kSync;
  return FromRocks(db_->Write(wo, &batch), "appending to the log");
}

absl::StatusOr<std::unique_ptr<RecordIterator>> RocksDbStore::ReadEvents(uint64_t from, uint64_t to) {
  from = std::max<uint64_t>(from, 1);  // seq 0 does not exist; 0 means "from the start"
  uint64_t first, last;
  {
    std::lock_guard<std::mutex> l(mu_);
    first = first_seq_;
    last = last_seq_;
  }
  if (from < first) {
    return absl::OutOfRangeError(recon::StrCat("seq ", from, " was compacted; the log starts at ", first));
  }
  rocksdb::ReadOptions ro;
  ro.verify_checksums = options_.verify_block_checksums;
  ro.readahead_size = 2 << 20;
  auto upper = std::make_unique<std::string>(records::EventKey(to == kEndOfLog ? kEndOfLog : to + 1));
  auto upper_slice = std::make_unique<rocksdb::Slice>(*upper);
  ro.iterate_upper_bound = upper_slice.get();
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, events_cf_));
  it->Seek(records::EventKey(from));
  return std::make_unique<RocksIterator>(std::move(it), std::move(upper), std::move(upper_slice), true, from,
                                         std::min(last, to));
}

uint64_t RocksDbStore::LastSeq() const {
  std::lock_guard<std::mutex> l(mu_);
  return last_seq_;
}

uint64_t RocksDbStore::FirstSeq() const {
  std::lock_guard<std::mutex> l(mu_);
  return first_seq_;
}

uint64_t RocksDbStore::Subscribe(Listener listener) {
  std::lock_guard<std::mutex> l(mu_);
  listeners_[next_listener_] = std::move(listener);
  return next_listener_++;
}

void RocksDbStore::Unsubscribe(uint64_t id) {
  std::lock_guard<std::mutex> l(mu_);
  listeners_.erase(id);
}

absl::Status RocksDbStore::AppendActions(std::span<const records::ActionRecord> actions) {
  if (actions.empty()) return absl::OkStatus();
  rocksdb::WriteBatch batch;
  for (const auto& a : actions) {
    std::string key = records::ActionKey(a.cause_seq, a.index);
    batch.Put(actions_cf_, key, records::Frame(key, records::EncodeActionPayload(a)));
  }
  rocksdb::WriteOptions wo;
  wo.sync = options_.durability == Durability::kSync;
  return FromRocks(db_->Write(wo, &batch), "appending actions");
}

absl::StatusOr<std::unique_ptr<RecordIterator>> RocksDbStore::ReadActions(uint64_t from_cause,
                                                                          uint64_t to_cause) {
  rocksdb::ReadOptions ro;
  ro.verify_checksums = options_.verify_block_checksums;
  auto upper = std::make_unique<std::string>(to_cause == kEndOfLog ? std::string(12, '\xff')
                                                                   : records::ActionKey(to_cause + 1, 0));
  auto upper_slice = std::make_unique<rocksdb::Slice>(*upper);
  ro.iterate_upper_bound = upper_slice.get();
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, actions_cf_));
  it->Seek(records::ActionKey(from_cause, 0));
  return std::make_unique<RocksIterator>(std::move(it), std::move(upper), std::move(upper_slice), false,
                                         from_cause, 0);
}

absl::StatusOr<records::ContentFiles> RocksDbStore::GetContent(std::string_view digest) {
  std::string value;
  auto s = db_->Get(rocksdb::ReadOptions(), content_cf_, rocksdb::Slice(digest.data(), digest.size()), &value);
  if (s.IsNotFound()) return absl::NotFoundError(recon::StrCat("content ", digest, " not in the store"));
  if (!s.ok()) return FromRocks(s, recon::StrCat("reading content ", digest));
  auto payload = records::Unframe(digest, value, recon::StrCat("content ", digest));
  if (!payload.ok()) return payload.status();
  return records::DecodeContent(*payload);
}

absl::Status RocksDbStore::PutSnapshot(uint64_t seq, std::string_view data) {
  std::string payload = records::EventKey(seq);
  payload.append(data);
  rocksdb::WriteOptions wo;
  wo.sync = true;
  return FromRocks(db_->Put(wo, meta_cf_, kSnapshotKey, records::Frame(kSnapshotKey, payload)),
                   "writing snapshot");
}

absl::StatusOr<std::optional<SnapshotBlob>> RocksDbStore::GetSnapshot() {
  std::string value;
  auto s = db_->Get(rocksdb::ReadOptions(), meta_cf_, kSnapshotKey, &value);
  if (s.IsNotFound()) return std::optional<SnapshotBlob>();
  if (!s.ok()) return FromRocks(s, "reading snapshot");
  auto payload = records::Unframe(kSnapshotKey, value, "snapshot");
  if (!payload.ok()) return payload.status();
  if (payload->size() < 8) return absl::DataLossError("snapshot: truncated");
  return std::optional<SnapshotBlob>(
      SnapshotBlob{records::DecodeSeqKey(*payload), std::string(payload->substr(8))});
}

absl::Status RocksDbStore::CompactPrefix(uint64_t before) {
  auto snap = GetSnapshot();
  if (!snap.ok()) return snap.status();
  std::lock_guard<std::mutex> l(mu_);
  before = std::min(before, last_seq_ + 1);
  if (before <= first_seq_) return absl::OkStatus();
  if (!snap->has_value() || (*snap)->seq + 1 < before) {
    return absl::FailedPreconditionError(
        recon::StrCat("cannot compact before seq ", before, ": no snapshot at seq >= ", before - 1));
  }
  rocksdb::WriteBatch batch;
  batch.DeleteRange(events_cf_, records::EventKey(first_seq_), records::EventKey(before));
  batch.DeleteRange(actions_cf_, records::ActionKey(0, 0), records::ActionKey(before, 0));
  batch.Put(meta_cf_, kFirstSeqKey, records::EventKey(before));
  rocksdb::WriteOptions wo;
  wo.sync = true;
  if (auto s = FromRocks(db_->Write(wo, &batch), "compacting the log prefix"); !s.ok()) return s;
  first_seq_ = before;
  return absl::OkStatus();
}

absl::Status RocksDbStore::Flush() {
  rocksdb::FlushOptions fo;
  for (auto* h : {events_cf_, actions_cf_, content_cf_, meta_cf_}) {
    if (auto s = FromRocks(db_->Flush(fo, h), "flushing"); !s.ok()) return s;
  }
  return absl::OkStatus();
}

uint64_t RocksDbStore::DiskBytes() const {
  uint64_t total = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
    if (entry.is_regular_file(ec)) total += entry.file_size(ec);
  }
  return total;
}

absl::Status RocksDbStore::PutAux(std::string_view name, std::string_view data) {
  std::string key = recon::StrCat(kAuxPrefix, name);
  rocksdb::WriteOptions wo;
  wo.sync = options_.durability == Durability::kSync;
  return FromRocks(db_->Put(wo, meta_cf_, key, records::Frame(key, data)), recon::StrCat("writing ", key));
}

absl::StatusOr<std::optional<std::string>> RocksDbStore::GetAux(std::string_view name) {
  std::string key = recon::StrCat(kAuxPrefix, name);
  std::string value;
  auto s = db_->Get(rocksdb::ReadOptions(), meta_cf_, key, &value);
  if (s.IsNotFound()) return std::nullopt;
  if (!s.ok()) return FromRocks(s, recon::StrCat("reading ", key));
  auto payload = records::Unframe(key, value, key);
  if (!payload.ok()) return payload.status();
  return std::string(*payload);
}

StoreMemory RocksDbStore::Memory() const {
  StoreMemory m;
  uint64_t v = 0;
  // Active and immutable memtables of every column family.
  if (db_->GetAggregatedIntProperty(rocksdb::DB::Properties::kCurSizeAllMemTables, &v)) m.memtables = v;
  if (db_->GetAggregatedIntProperty(rocksdb::DB::Properties::kEstimateTableReadersMem, &v)) m.table_readers = v;
  m.block_cache = block_cache_->GetUsage();
  return m;
}

}  // namespace recon::store
