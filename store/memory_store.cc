#include "store/memory_store.h"

#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "records/codec.h"
#include "store/batch.h"

namespace recon::store {
namespace {

struct Entry {
  uint64_t seq;
  uint32_t index;
  std::shared_ptr<const std::string> framed;
  std::string key;
};

// Iterates a copied list of shared records; verifies each frame on arrival.
class VectorIterator : public RecordIterator {
 public:
  VectorIterator(std::vector<Entry> entries, std::string_view what)
      : entries_(std::move(entries)), what_(what) {
    Check();
  }
  bool Valid() const override { return status_.ok() && pos_ < entries_.size(); }
  void Next() override {
    ++pos_;
    Check();
  }
  uint64_t seq() const override { return entries_[pos_].seq; }
  uint32_t index() const override { return entries_[pos_].index; }
  std::string_view payload() const override { return payload_; }
  absl::Status status() const override { return status_; }

 private:
  void Check() {
    if (pos_ >= entries_.size()) return;
    const Entry& e = entries_[pos_];
    auto p = records::Unframe(e.key, *e.framed, recon::StrCat(what_, " seq ", e.seq));
    if (!p.ok()) {
      status_ = p.status();
      return;
    }
    payload_ = *p;
  }
  std::vector<Entry> entries_;
  std::string what_;
  size_t pos_ = 0;
  std::string_view payload_;
  absl::Status status_;
};

}  // namespace

absl::StatusOr<uint64_t> MemoryStore::Append(std::span<const records::EventRecord> events) {
  PreparedBatch batch;
  if (auto s = PrepareBatch(events, &batch); !s.ok()) return s;
  std::vector<Listener> to_call;
  uint64_t first = 0, last = 0;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (size_t i = 0; i < events.size(); ++i) {
      if (batch.references[i] && !content_.contains(batch.digests[i])) {
        bool in_batch = false;
        for (const auto& c : batch.contents) in_batch |= c.digest == batch.digests[i];
        if (!in_batch) {
          return absl::FailedPreconditionError(recon::StrCat(
              "Content \"", events[i].content_name, "\" refers to ", batch.digests[i],
              ", which is not in the store"));
        }
      }
    }
    first = first_seq_ + events_.size();
    for (const auto& c : batch.contents) {
      if (content_.emplace(c.digest, c.framed).second) bytes_ += c.framed.size();
    }
    for (size_t i = 0; i < events.size(); ++i) {
      events_.push_back(std::make_shared<const std::string>(FramedEvent(batch, i, first + i)));
      bytes_ += events_.back()->size();
    }
    last = first_seq_ + events_.size() - 1;
    for (const auto& [id, fn] : listeners_) to_call.push_back(fn);
  }
  if (!events.empty()) {
    for (auto& fn : to_call) fn(last);
  }
  return first;
}

absl::StatusOr<std::unique_ptr<RecordIterator>> MemoryStore::ReadEvents(uint64_t from, uint64_t to) {
  std::lock_guard<std::mutex> l(mu_);
  from = std::max<uint64_t>(from, 1);  // seq 0 does not exist; 0 means "from the start"
  if (from < first_seq_) {
    return absl::OutOfRangeError(recon::StrCat("seq ", from, " was compacted; the log starts at ", first_seq_));
  }
  std::vector<Entry> entries;
  uint64_t last = first_seq_ + events_.size() - 1;
  for (uint64_t s = std::max<uint64_t>(from, 1); s <= to && s <= last; ++s) {
    entries.push_back({s, 0, events_[s - first_seq_], records::EventKey(s)});
  }
  return std::make_unique<VectorIterator>(std::move(entries), "event");
}

uint64_t MemoryStore::LastSeq() const {
  std::lock_guard<std::mutex> l(mu_);
  return first_seq_ + events_.size() - 1;
}

uint64_t MemoryStore::FirstSeq() const {
  std::lock_guard<std::mutex> l(mu_);
  return first_seq_;
}

uint64_t MemoryStore::Subscribe(Listener listener) {
  std::lock_guard<std::mutex> l(mu_);
  listeners_[next_listener_] = std::move(listener);
  return next_listener_++;
}

void MemoryStore::Unsubscribe(uint64_t id) {
  std::lock_guard<std::mutex> l(mu_);
  listeners_.erase(id);
}

absl::Status MemoryStore::AppendActions(std::span<const records::ActionRecord> actions) {
  std::lock_guard<std::mutex> l(mu_);
  for (const auto& a : actions) {
    std::string key = records::ActionKey(a.cause_seq, a.index);
    auto& slot = actions_[{a.cause_seq, a.index}];
    if (slot) bytes_ -= slot->size();  // a recomputed cause replaces its actions
    slot = std::make_shared<const std::string>(records::Frame(key, records::EncodeActionPayload(a)));
    bytes_ += slot->size();
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<RecordIterator>> MemoryStore::ReadActions(uint64_t from_cause,
                                                                         uint64_t to_cause) {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<Entry> entries;
  for (auto it = actions_.lower_bound({from_cause, 0}); it != actions_.end() && it->first.first <= to_cause;
       ++it) {
    entries.push_back({it->first.first, it->first.second, it->second,
                       records::ActionKey(it->first.first, it->first.second)});
  }
  return std::make_unique<VectorIterator>(std::move(entries), "action of cause");
}

absl::StatusOr<records::ContentFiles> MemoryStore::GetContent(std::string_view digest) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = content_.find(digest);
  if (it == content_.end()) return absl::NotFoundError(recon::StrCat("content ", digest, " not in the store"));
  auto payload = records::Unframe(digest, it->second, recon::StrCat("content ", digest));
  if (!payload.ok()) return payload.status();
  return records::DecodeContent(*payload);
}

absl::Status MemoryStore::PutSnapshot(uint64_t seq, std::string_view data) {
  std::lock_guard<std::mutex> l(mu_);
  snapshot_ = SnapshotBlob{seq, std::string(data)};
  return absl::OkStatus();
}

absl::StatusOr<std::optional<SnapshotBlob>> MemoryStore::GetSnapshot() {
  std::lock_guard<std::mutex> l(mu_);
  return snapshot_;
}

absl::Status MemoryStore::CompactPrefix(uint64_t before) {
  std::lock_guard<std::mutex> l(mu_);
  // Same rule as RocksDbStore: never past the end of the log.
  before = std::min<uint64_t>(before, first_seq_ + events_.size());
  if (before <= first_seq_) return absl::OkStatus();
  if (!snapshot_ || snapshot_->seq + 1 < before) {
    return absl::FailedPreconditionError(
        recon::StrCat("cannot compact before seq ", before, ": no snapshot at seq >= ", before - 1));
  }
  uint64_t drop = std::min<uint64_t>(before - first_seq_, events_.size());
  for (uint64_t i = 0; i < drop; ++i) bytes_ -= events_[i]->size();
  events_.erase(events_.begin(), events_.begin() + drop);
  first_seq_ += drop;
  auto end = actions_.lower_bound({before, 0});
  for (auto it = actions_.begin(); it != end; ++it) bytes_ -= it->second->size();
  actions_.erase(actions_.begin(), end);
  return absl::OkStatus();
}

absl::Status MemoryStore::PutAux(std::string_view name, std::string_view data) {
  std::lock_guard<std::mutex> l(mu_);
  aux_.insert_or_assign(std::string(name), std::string(data));
  return absl::OkStatus();
}

absl::StatusOr<std::optional<std::string>> MemoryStore::GetAux(std::string_view name) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = aux_.find(name);
  if (it == aux_.end()) return std::nullopt;
  return it->second;
}

StoreMemory MemoryStore::Memory() const {
  std::lock_guard<std::mutex> l(mu_);
  StoreMemory m;
  m.memtables = bytes_ + (snapshot_ ? snapshot_->data.size() : 0);
  return m;
}

size_t MemoryStore::ContentCountForTest() const {
  std::lock_guard<std::mutex> l(mu_);
  return content_.size();
}

void MemoryStore::CorruptEventForTest(uint64_t seq, size_t byte_offset) {
  std::lock_guard<std::mutex> l(mu_);
  auto copy = std::make_shared<std::string>(*events_[seq - first_seq_]);
  (*copy)[byte_offset % copy->size()] ^= 0x5a;
  events_[seq - first_seq_] = copy;
}

}  // namespace recon::store
