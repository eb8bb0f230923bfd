#include "store/etcd_store.h"

#include <algorithm>
#include <utility>

#include "base/strings.h"
#include "records/codec.h"
#include "store/batch.h"
#include "store/etcd_keys.h"

namespace recon::store {

using etcd_keys::ActionName;
using etcd_keys::EventName;
using etcd_keys::Hex;
using etcd_keys::Hex16;
using etcd_keys::OpBytes;
using etcd_keys::ParseHex;
using etcd_keys::ValueIs;
using etcd_keys::VersionIs;

namespace {
constexpr size_t kCompareRoom = 4096;  // request bytes kept for compares
}  // namespace

// Pages through the keys of one range, resolving part manifests and
// verifying each frame; events must be dense up to the head read at start.
class EtcdStore::Iterator : public RecordIterator {
 public:
  Iterator(EtcdStore* store, bool events, uint64_t from, uint64_t last)
      : store_(store), events_(events), expected_(from), last_(last) {
    std::string dir = events ? "e/" : "a/";
    next_key_ = store->Key(StrCat(dir, Hex16(from), events ? "" : Hex(0, 8)));
    if (events) {
      end_key_ = store->Key(StrCat(dir, Hex16(last + 1)));
    } else {
      end_key_ =
          last == kEndOfLog ? KeyRange::PrefixEnd(store->Key(dir)) : store->Key(StrCat(dir, Hex16(last + 1)));
    }
    more_ = !events || from <= last;
    Advance();
  }
  bool Valid() const override { return valid_; }
  void Next() override { Advance(); }
  uint64_t seq() const override { return seq_; }
  uint32_t index() const override { return index_; }
  std::string_view payload() const override { return payload_; }
  absl::Status status() const override { return status_; }

 private:
  void Fail(absl::Status s) {
    status_ = std::move(s);
    valid_ = false;
  }

  void Advance() {
    valid_ = false;
    if (!status_.ok()) return;
    if (events_ && expected_ > last_) return;
    while (pos_ >= page_.size() && more_) {
      auto r = store_->kv_->Range({next_key_, end_key_}, static_cast<int64_t>(store_->options_.page_records));
      if (!r.ok()) return Fail(r.status());
      page_ = std::move(r->kvs);
      pos_ = 0;
      more_ = r->more && !page_.empty();
      if (!page_.empty()) next_key_ = page_.back().key + std::string(1, '\0');
    }
    if (pos_ >= page_.size()) {
      if (events_) Fail(absl::DataLossError(StrCat("seq ", expected_, " is missing from the log")));
      return;
    }
    KeyValue& kv = page_[pos_++];
    std::string_view name = std::string_view(kv.key).substr(store_->Key("").size());
    std::string owner(name);
    name.remove_prefix(2);  // "e/" or "a/"
    if (events_) {
      auto seq = ParseHex(name);
      if (!seq || name.size() != 16)
        return Fail(absl::DataLossError(StrCat("event key ", kv.key, " is malformed")));
      if (*seq != expected_) {
        return Fail(
            absl::DataLossError(StrCat("seq ", expected_, " is missing from the log (next is ", *seq, ")")));
      }
      seq_ = *seq;
      index_ = 0;
      ++expected_;
    } else {
      auto cause = name.size() == 24 ? ParseHex(name.substr(0, 16)) : std::nullopt;
      auto index = name.size() == 24 ? ParseHex(name.substr(16)) : std::nullopt;
      if (!cause || !index) return Fail(absl::DataLossError(StrCat("action key ", kv.key, " is malformed")));
      seq_ = *cause;
      index_ = static_cast<uint32_t>(*index);
    }
    std::string what = events_ ? StrCat("event seq ", seq_) : StrCat("action of cause seq ", seq_);
    auto value = store_->Resolve(owner, std::move(kv.value), what);
    if (!value.ok()) return Fail(value.status());
    value_ = std::move(*value);
    auto p =
        records::Unframe(events_ ? records::EventKey(seq_) : records::ActionKey(seq_, index_), value_, what);
    if (!p.ok()) return Fail(p.status());
    payload_ = *p;
    valid_ = true;
  }

  EtcdStore* store_;
  const bool events_;
  uint64_t expected_;
  const uint64_t last_;
  std::string next_key_, end_key_;
  bool more_ = true;
  std::vector<KeyValue> page_;
  size_t pos_ = 0;
  bool valid_ = false;
  uint64_t seq_ = 0;
  uint32_t index_ = 0;
  std::string value_;
  std::string_view payload_;
  absl::Status status_;
};

EtcdStore::EtcdStore(std::shared_ptr<KvBackend> kv, EtcdStoreOptions options)
    : kv_(std::move(kv)), options_(std::move(options)) {}

EtcdStore::~EtcdStore() {
  if (watch_id_) kv_->Unwatch(watch_id_);
}

absl::StatusOr<std::unique_ptr<EtcdStore>> EtcdStore::Open(std::shared_ptr<KvBackend> kv,
                                                           EtcdStoreOptions options) {
  while (!options.prefix.empty() && options.prefix.back() == '/') options.prefix.pop_back();
  if (options.limits.max_request_bytes <= kCompareRoom * 2 ||
      options.part_bytes + kCompareRoom > options.limits.max_request_bytes - kCompareRoom ||
      options.limits.max_txn_ops < 2 || options.page_records == 0) {
    return absl::InvalidArgumentError(
        StrCat("etcd store: parts of ", options.part_bytes, " bytes do not fit requests of ",
               options.limits.max_request_bytes, " bytes and ", options.limits.max_txn_ops, " operations"));
  }
  std::unique_ptr<EtcdStore> store(new EtcdStore(std::move(kv), std::move(options)));
  store->txn_budget_ = store->options_.limits.max_request_bytes - kCompareRoom;
  if (auto s = store->Init(); !s.ok()) return s;
  return store;
}

std::string EtcdStore::Key(std::string_view name) const { return StrCat(options_.prefix, "/", name); }

absl::Status EtcdStore::Init() {
  for (int attempt = 0;; ++attempt) {
    auto format = kv_->Range({Key("format"), ""});
    if (!format.ok()) return format.status();
    if (!format->kvs.empty()) {
      const std::string& v = format->kvs[0].value;
      if (v != kEtcdStoreFormat) {
        return absl::FailedPreconditionError(StrCat("etcd prefix ", Key(""), " holds a store of format \"",
                                                    v.substr(0, 64), "\"; this recon reads ",
                                                    kEtcdStoreFormat));
      }
      break;
    }
    auto any = kv_->Range({Key(""), KeyRange::PrefixEnd(Key(""))}, 1);
    if (!any.ok()) return any.status();
    if (!any->kvs.empty()) {
      return absl::FailedPreconditionError(StrCat("etcd prefix ", Key(""),
                                                  " holds keys that are not a recon store (", any->kvs[0].key,
                                                  "); expected ", Key("format"), " = ", kEtcdStoreFormat));
    }
    if (!options_.create_if_missing) {
      return absl::NotFoundError(StrCat("no recon store under etcd prefix ", Key("")));
    }
    if (options_.mode == EtcdStoreOptions::Mode::kRead) return Follow();  // empty; nothing written
    auto created = kv_->Txn({VersionIs(Key("format"), 0)},
                            {TxnOp::Put(Key("format"), std::string(kEtcdStoreFormat)),
                             TxnOp::Put(Key("head"), Hex16(0)), TxnOp::Put(Key("term"), Hex16(0))});
    if (!created.ok()) return created.status();
    if (created->succeeded || attempt > 0) break;  // else another process created it: read it again
  }
  auto head = ReadNumber("head");
  if (!head.ok()) return head.status();
  if (!*head) return absl::DataLossError(StrCat("etcd store ", Key(""), ": ", Key("head"), " is missing"));
  head_ = **head;
  auto first = ReadNumber("m/first_seq");
  if (!first.ok()) return first.status();
  first_seq_ = first->value_or(1);
  if (options_.mode == EtcdStoreOptions::Mode::kWrite) return TakeTerm();
  return Follow();
}

absl::Status EtcdStore::Follow() {
  notified_ = head_;
  watch_id_ = kv_->Watch(Key("head"), [this](const KeyValue& kv) { OnHeadChange(kv); });
  return absl::OkStatus();
}

absl::Status EtcdStore::TakeTerm() {
  for (int attempt = 0;; ++attempt) {
    if (attempt == 16) {
      return absl::AbortedError(StrCat("etcd store ", Key(""), ": could not take a term (16 races lost)"));
    }
    auto term = ReadNumber("term");
    if (!term.ok()) return term.status();
    uint64_t t = term->value_or(0);
    auto r = kv_->Txn({ValueIs(Key("term"), Hex16(t))}, {TxnOp::Put(Key("term"), Hex16(t + 1))});
    if (!r.ok()) return r.status();
    if (!r->succeeded) continue;  // another writer took it first: try the next
    term_ = t + 1;
    break;
  }
  // Every earlier writer is fenced now, so the head stays where it is.
  auto head = ReadNumber("head");
  if (!head.ok()) return head.status();
  head_ = head->value_or(0);
  dirty_ = true;  // a writer killed half-way through a split append left keys past the head
  return ClearPastHead();
}

absl::Status EtcdStore::ClearPastHead() {
  if (!dirty_) return absl::OkStatus();
  uint64_t n = head_;
  auto r = kv_->Txn({TermHolds(), ValueIs(Key("head"), Hex16(n))},
                    {TxnOp::Delete(Key(EventName(n + 1)), KeyRange::PrefixEnd(Key("e/"))),
                     TxnOp::Delete(Key(StrCat("p/", EventName(n + 1))), KeyRange::PrefixEnd(Key("p/e/")))});
  if (!r.ok()) return r.status();
  if (!r->succeeded) return CompareFailed("the head");
  dirty_ = false;
  return absl::OkStatus();
}

absl::StatusOr<std::optional<uint64_t>> EtcdStore::ReadNumber(std::string_view name) {
  auto r = kv_->Range({Key(name), ""});
  if (!r.ok()) return r.status();
  if (r->kvs.empty()) return std::optional<uint64_t>();
  const std::string& v = r->kvs[0].value;
  auto n = v.size() == 16 ? ParseHex(v) : std::nullopt;
  if (!n) {
    return absl::DataLossError(StrCat("etcd store ", Key(""), ": ", Key(name), " holds \"", v.substr(0, 32),
                                      "\", expected 16 hex digits"));
  }
  return std::optional<uint64_t>(*n);
}

absl::Status EtcdStore::MustWrite() const {
  if (options_.mode == EtcdStoreOptions::Mode::kWrite) return absl::OkStatus();
  return absl::FailedPreconditionError(StrCat("etcd store ", Key(""), " was opened for reading"));
}

Compare EtcdStore::TermHolds() const { return ValueIs(Key("term"), Hex16(term_)); }

absl::Status EtcdStore::CompareFailed(std::string_view what) {
  auto term = ReadNumber("term");
  if (!term.ok()) return term.status();
  if (term->value_or(0) != term_) {
    return absl::FailedPreconditionError(StrCat("fenced: term ", term_, " is not the current term ",
                                                term->value_or(0), " of etcd store ", Key("")));
  }
  return absl::InternalError(
      StrCat("etcd store ", Key(""), ": ", what, " changed under the writer of term ", term_));
}

absl::StatusOr<bool> EtcdStore::ContentStored(const std::string& digest) {
  if (known_content_.contains(digest)) return true;
  auto r = kv_->Txn({VersionIs(Key(StrCat("c/", digest)), 0, Compare::Result::kGreater)}, {});
  if (!r.ok()) return r.status();
  if (r->succeeded) known_content_.insert(digest);
  return r->succeeded;
}

absl::StatusOr<uint64_t> EtcdStore::Append(std::span<const records::EventRecord> events) {
  if (auto s = MustWrite(); !s.ok()) return s;
  PreparedBatch batch;
  if (auto s = PrepareBatch(events, &batch); !s.ok()) return s;
  uint64_t first = 0, last = 0;
  {
    std::lock_guard<std::mutex> l(write_mu_);
    if (events.empty()) return head_.load() + 1;
    if (resync_) {  // an earlier commit's outcome is unknown: the head says
      auto head = ReadNumber("head");
      if (!head.ok()) return head.status();
      head_ = head->value_or(0);
      resync_ = false;
      dirty_ = true;
    }
    if (auto s = ClearPastHead(); !s.ok()) return s;
    uint64_t n = head_;
    for (size_t i = 0; i < events.size(); ++i) {
      if (!batch.references[i]) continue;
      const std::string& d = batch.digests[i];
      bool in_batch = false;
      for (const auto& c : batch.contents) in_batch |= c.digest == d;
      if (in_batch) continue;
      auto stored = ContentStored(d);
      if (!stored.ok()) return stored.status();
      if (!*stored) {
        return absl::FailedPreconditionError(
            StrCat("Content \"", events[i].content_name, "\" refers to ", d, ", which is not in the store"));
      }
    }
    // Content first, keyed by digest and stored once, so an event never
    // names content that is not there.
    for (const auto& c : batch.contents) {
      auto stored = ContentStored(c.digest);
      if (!stored.ok()) return stored.status();
      if (*stored) continue;
      std::string owner = StrCat("c/", c.digest);
      auto wrote = WriteRecord(owner, c.framed, {VersionIs(Key(owner), 0)});
      if (!wrote.ok()) return wrote.status();
      known_content_.insert(c.digest);
    }
    std::vector<TxnOp> ops;
    size_t bytes = 0;
    for (size_t i = 0; i < events.size(); ++i) {
      for (TxnOp& op : RecordOps(EventName(n + 1 + i), FramedEvent(batch, i, n + 1 + i))) {
        bytes += OpBytes(op);
        ops.push_back(std::move(op));
      }
    }
    last = n + events.size();
    TxnOp head = TxnOp::Put(Key("head"), Hex16(last));
    std::vector<Compare> commit = {TermHolds(), ValueIs(Key("head"), Hex16(n))};
    if (ops.size() + 1 <= options_.limits.max_txn_ops && bytes + OpBytes(head) <= txn_budget_) {
      ops.push_back(std::move(head));
      if (auto s = Commit(std::move(commit), std::move(ops), n, last); !s.ok()) return s;
    } else {
      // Too big for one transaction: the records go past the head first,
      // where no reader looks, then one small transaction commits them.
      dirty_ = true;
      if (auto s = WriteStaged(std::move(ops)); !s.ok()) return s;
      if (auto s = Commit(std::move(commit), {std::move(head)}, n, last); !s.ok()) return s;
      dirty_ = false;
    }
    head_ = last;
    first = n + 1;
  }
  Notify(last, /*from_watch=*/false);
  return first;
}

absl::Status EtcdStore::Commit(std::vector<Compare> compares, std::vector<TxnOp> ops, uint64_t n,
                               uint64_t last) {
  auto r = kv_->Txn(compares, ops);
  if (r.ok() && r->succeeded) {
    commit_revision_ = r->revision;
    // The history behind the commit is never read again: compacted now
    // and then so etcd's database does not grow with every revision.
    if (options_.compact_every > 0 && ++commits_ >= options_.compact_every) {
      commits_ = 0;
      (void)kv_->Compact(commit_revision_);  // maintenance: a failure loses nothing
    }
    return absl::OkStatus();
  }
  // No answer, or the compares failed: a request retried on another
  // endpoint, or an answer lost, may have committed it all the same. Only
  // this writer moves the head in its term, so the head tells.
  auto head = ReadNumber("head");
  auto term = ReadNumber("term");
  if (!head.ok() || !term.ok()) {
    resync_ = true;
    return !r.ok() ? r.status() : !head.ok() ? head.status() : term.status();
  }
  if (term->value_or(0) != term_) return CompareFailed("the term");  // fenced
  if (head->value_or(0) == last) return absl::OkStatus();
  if (!r.ok() && head->value_or(0) == n) return r.status();  // not committed: the caller may try again
  return CompareFailed("the head");
}

void EtcdStore::Notify(uint64_t last, bool from_watch) {
  std::vector<Listener> to_call;
  {
    std::lock_guard<std::mutex> l(listeners_mu_);
    if (from_watch && last <= notified_) return;
    notified_ = std::max(notified_, last);
    for (const auto& [id, fn] : listeners_) to_call.push_back(fn);
  }
  for (auto& fn : to_call) fn(last);
}

void EtcdStore::OnHeadChange(const KeyValue& kv) {
  auto v = kv.value.size() == 16 ? ParseHex(kv.value) : std::nullopt;
  if (!v) return;
  uint64_t cur = head_.load();
  while (*v > cur && !head_.compare_exchange_weak(cur, *v)) {
  }
  Notify(*v, /*from_watch=*/true);
}

uint64_t EtcdStore::Subscribe(Listener listener) {
  std::lock_guard<std::mutex> l(listeners_mu_);
  listeners_[next_listener_] = std::move(listener);
  return next_listener_++;
}

void EtcdStore::Unsubscribe(uint64_t id) {
  std::lock_guard<std::mutex> l(listeners_mu_);
  listeners_.erase(id);
}

absl::StatusOr<std::unique_ptr<RecordIterator>> EtcdStore::ReadEvents(uint64_t from, uint64_t to) {
  from = std::max<uint64_t>(from, 1);  // seq 0 does not exist; 0 means "from the start"
  if (options_.mode == EtcdStoreOptions::Mode::kRead) {
    // Another process writes: read where it has got to.
    auto head = ReadNumber("head");
    if (!head.ok()) return head.status();
    auto first = ReadNumber("m/first_seq");
    if (!first.ok()) return first.status();
    uint64_t cur = head_.load();
    while (head->value_or(0) > cur && !head_.compare_exchange_weak(cur, head->value_or(0))) {
    }
    first_seq_ = first->value_or(1);
  }
  uint64_t first = first_seq_;
  if (from < first) {
    return absl::OutOfRangeError(StrCat("seq ", from, " was compacted; the log starts at ", first));
  }
  return std::make_unique<Iterator>(this, true, from, std::min<uint64_t>(to, head_));
}

absl::Status EtcdStore::AppendActions(std::span<const records::ActionRecord> actions) {
  if (auto s = MustWrite(); !s.ok()) return s;
  std::lock_guard<std::mutex> l(write_mu_);
  // The last of one (cause, index) wins, as a replacement would.
  std::map<std::pair<uint64_t, uint32_t>, const records::ActionRecord*> latest;
  for (const auto& a : actions) latest[{a.cause_seq, a.index}] = &a;
  std::vector<TxnOp> ops;
  for (const auto& [key, a] : latest) {
    for (TxnOp& op : RecordOps(
             ActionName(key.first, key.second),
             records::Frame(records::ActionKey(key.first, key.second), records::EncodeActionPayload(*a)))) {
      ops.push_back(std::move(op));
    }
  }
  return WriteStaged(std::move(ops));
}

absl::StatusOr<std::unique_ptr<RecordIterator>> EtcdStore::ReadActions(uint64_t from_cause,
                                                                       uint64_t to_cause) {
  return std::make_unique<Iterator>(this, false, from_cause, to_cause);
}

absl::StatusOr<records::ContentFiles> EtcdStore::GetContent(std::string_view digest) {
  std::string what = StrCat("content ", digest);
  auto value = ReadRecord(StrCat("c/", digest), what);
  if (!value.ok()) return value.status();
  if (!*value) return absl::NotFoundError(StrCat("content ", digest, " not in the store"));
  auto payload = records::Unframe(digest, **value, what);
  if (!payload.ok()) return payload.status();
  return records::DecodeContent(*payload);
}

absl::Status EtcdStore::PutSnapshot(uint64_t seq, std::string_view data) {
  if (auto s = MustWrite(); !s.ok()) return s;
  std::lock_guard<std::mutex> l(write_mu_);
  std::string payload = records::EventKey(seq);
  payload.append(data);
  auto wrote = WriteRecord("m/snapshot", records::Frame("snapshot", payload), {},
                           {TxnOp::Put(Key("m/snapshot_seq"), Hex16(seq))});
  return wrote.ok() ? absl::OkStatus() : wrote.status();
}

absl::StatusOr<std::optional<SnapshotBlob>> EtcdStore::GetSnapshot() {
  auto value = ReadRecord("m/snapshot", "snapshot");
  if (!value.ok()) return value.status();
  if (!*value) return std::optional<SnapshotBlob>();
  auto payload = records::Unframe("snapshot", **value, "snapshot");
  if (!payload.ok()) return payload.status();
  if (payload->size() < 8) return absl::DataLossError("snapshot: truncated");
  return std::optional<SnapshotBlob>(
      SnapshotBlob{records::DecodeSeqKey(*payload), std::string(payload->substr(8))});
}

absl::Status EtcdStore::CompactPrefix(uint64_t before) {
  if (auto s = MustWrite(); !s.ok()) return s;
  std::lock_guard<std::mutex> l(write_mu_);
  before = std::min<uint64_t>(before, head_ + 1);
  if (before <= first_seq_) return absl::OkStatus();
  auto snapshot_seq = ReadNumber("m/snapshot_seq");
  if (!snapshot_seq.ok()) return snapshot_seq.status();
  if (!*snapshot_seq || **snapshot_seq + 1 < before) {
    return absl::FailedPreconditionError(
        StrCat("cannot compact before seq ", before, ": no snapshot at seq >= ", before - 1));
  }
  auto r = kv_->Txn({TermHolds(), ValueIs(Key("m/snapshot_seq"), Hex16(**snapshot_seq))},
                    {TxnOp::Delete(Key("e/"), Key(EventName(before))),
                     TxnOp::Delete(Key("p/e/"), Key(StrCat("p/", EventName(before)))),
                     TxnOp::Delete(Key("a/"), Key(ActionName(before, 0))),
                     TxnOp::Delete(Key("p/a/"), Key(StrCat("p/", ActionName(before, 0)))),
                     TxnOp::Put(Key("m/first_seq"), Hex16(before))});
  if (!r.ok()) return r.status();
  if (!r->succeeded) return CompareFailed("the snapshot");
  first_seq_ = before;
  return absl::OkStatus();
}

absl::Status EtcdStore::PutAux(std::string_view name, std::string_view data) {
  if (auto s = MustWrite(); !s.ok()) return s;
  std::lock_guard<std::mutex> l(write_mu_);
  std::string key = StrCat("aux/", name);
  auto wrote = WriteRecord(StrCat("m/", key), records::Frame(key, data));
  return wrote.ok() ? absl::OkStatus() : wrote.status();
}

absl::StatusOr<std::optional<std::string>> EtcdStore::GetAux(std::string_view name) {
  std::string key = StrCat("aux/", name);
  auto value = ReadRecord(StrCat("m/", key), key);
  if (!value.ok()) return value.status();
  if (!*value) return std::optional<std::string>();
  auto payload = records::Unframe(key, **value, key);
  if (!payload.ok()) return payload.status();
  return std::optional<std::string>(std::string(*payload));
}

absl::StatusOr<StoreSize> EtcdStore::Size() {
  auto status = kv_->Status();
  if (!status.ok()) return status.status();
  return StoreSize{.bytes = static_cast<uint64_t>(status->db_size), .quota = options_.quota_bytes};
}

}  // namespace recon::store
