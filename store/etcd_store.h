// The event log on an etcd v3 cluster (issue 51): EventStore over a
// KvBackend, keys and commit protocol as store/FORMAT-etcd.md says. Values
// are FORMAT.md's frames, byte for byte those of RocksDbStore.
//
// A store opened for writing takes a new term: every writer opened earlier
// on the same prefix is fenced from then on (its next write fails with
// FailedPrecondition "fenced: ..."). A store opened for reading writes
// nothing, not even on an empty prefix, and learns of other processes'
// appends through a watch on the head key.
#ifndef RECON_STORE_ETCD_STORE_H_
#define RECON_STORE_ETCD_STORE_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "store/event_store.h"
#include "store/kv_backend.h"

namespace recon::store {

inline constexpr std::string_view kEtcdStoreFormat = "recon-store-etcd-1";

struct EtcdStoreOptions {
  std::string prefix;  // keys live under PREFIX/; no trailing slash
  enum class Mode { kWrite, kRead };
  Mode mode = Mode::kWrite;
  // An empty prefix: a writer creates the store there, a reader follows it
  // until one does. False: NotFound (a command naming a store that is not there).
  bool create_if_missing = true;
  KvLimits limits;  // what the server enforces (etcd's defaults)
  // A value longer than this is cut into parts (FORMAT-etcd.md "Keys").
  size_t part_bytes = 1024 * 1024;
  size_t page_records = 256;  // records per range read
  // etcd keeps every revision until compacted: after this many commits the
  // writer compacts the history up to its last commit (the store reads
  // only the latest values). 0: never.
  uint64_t compact_every = 1000;
  // Transactions of a split append (or a record's parts) sent at once:
  // they are invisible until the commit, so their order does not matter.
  size_t staged_in_flight = 4;
  // etcd's --quota-backend-bytes (its default: 2 GiB): past it etcd
  // refuses writes with NOSPACE. etcd does not report it; the caller says.
  uint64_t quota_bytes = uint64_t{2} << 30;
};

class EtcdStore final : public EventStore {
 public:
  // Checks the prefix holds a store of this format (or nothing); a writer
  // initialises an empty prefix and takes a term.
  static absl::StatusOr<std::unique_ptr<EtcdStore>> Open(std::shared_ptr<KvBackend> kv,
                                                         EtcdStoreOptions options);
  ~EtcdStore() override;

  // This writer's term (0 for a reader).
  uint64_t term() const { return term_; }

  absl::StatusOr<uint64_t> Append(std::span<const records::EventRecord> events) override;
  absl::StatusOr<std::unique_ptr<RecordIterator>> ReadEvents(uint64_t from, uint64_t to) override;
  uint64_t LastSeq() const override { return head_.load(); }
  uint64_t FirstSeq() const override { return first_seq_.load(); }
  uint64_t Subscribe(Listener listener) override;
  void Unsubscribe(uint64_t id) override;
  absl::Status AppendActions(std::span<const records::ActionRecord> actions) override;
  absl::StatusOr<std::unique_ptr<RecordIterator>> ReadActions(uint64_t from_cause,
                                                              uint64_t to_cause) override;
  absl::StatusOr<records::ContentFiles> GetContent(std::string_view digest) override;
  absl::Status PutSnapshot(uint64_t seq, std::string_view data) override;
  absl::StatusOr<std::optional<SnapshotBlob>> GetSnapshot() override;
  absl::Status CompactPrefix(uint64_t before) override;
  absl::Status PutAux(std::string_view name, std::string_view data) override;
  absl::StatusOr<std::optional<std::string>> GetAux(std::string_view name) override;
  // Records live in etcd; the process holds none of them.
  StoreMemory Memory() const override { return {}; }
  // etcd's database as a whole (every prefix and the history not yet
  // compacted) against options.quota_bytes.
  absl::StatusOr<StoreSize> Size() override;

 private:
  class Iterator;
  EtcdStore(std::shared_ptr<KvBackend> kv, EtcdStoreOptions options);

  absl::Status Init();
  absl::Status TakeTerm();
  absl::Status Follow();         // a reader: the head's watch
  absl::Status ClearPastHead();  // deletes what a split append left past the head
  // The transaction that moves the head from n to last, its outcome made
  // certain (a retried or unanswered request may have committed).
  absl::Status Commit(std::vector<Compare> compares, std::vector<TxnOp> ops, uint64_t n, uint64_t last);
  std::string Key(std::string_view name) const;
  absl::Status MustWrite() const;
  Compare TermHolds() const;
  // Why a transaction's compares failed: fenced, or the protocol broken.
  absl::Status CompareFailed(std::string_view what);
  // Runs `ops` in as many transactions as the limits allow, each
  // comparing the term. Used for writes that no reader sees until a
  // later commit makes them visible.
  absl::Status WriteStaged(std::vector<TxnOp> ops);
  // The ops that store `value` under `owner` (a key name below the
  // prefix): the value itself, or its parts and a part manifest.
  std::vector<TxnOp> RecordOps(const std::string& owner, std::string_view value);
  // Stores a record by key: parts first, then the owner key with `extra`
  // beside it in one transaction under `compares` (and the term).
  absl::StatusOr<bool> WriteRecord(const std::string& owner, std::string_view value,
                                   std::vector<Compare> compares = {}, std::vector<TxnOp> extra = {});
  // The value of a record (parts put together), nullopt when absent.
  absl::StatusOr<std::optional<std::string>> ReadRecord(const std::string& owner, std::string_view what);
  // A stored value as read, resolving a part manifest.
  absl::StatusOr<std::string> Resolve(const std::string& owner, std::string value, std::string_view what);
  absl::StatusOr<std::optional<uint64_t>> ReadNumber(std::string_view name);
  absl::StatusOr<bool> ContentStored(const std::string& digest);
  void Notify(uint64_t last, bool from_watch);
  void OnHeadChange(const KeyValue& kv);

  const std::shared_ptr<KvBackend> kv_;
  const EtcdStoreOptions options_;
  size_t txn_budget_ = 0;  // bytes of keys and values one transaction may carry
  uint64_t term_ = 0;
  std::atomic<uint64_t> head_{0};
  std::atomic<uint64_t> first_seq_{1};

  std::mutex write_mu_;          // one write at a time from this process
  bool dirty_ = false;           // a split write failed half-way: keys past head to delete
  bool resync_ = false;          // a commit's outcome is unknown: read the head first
  uint64_t commits_ = 0;         // since the last compaction
  int64_t commit_revision_ = 0;  // etcd's revision after our last known commit
  uint64_t generation_ = 0;      // parts' generation counter within the term
  std::set<std::string, std::less<>> known_content_;

  std::mutex listeners_mu_;
  uint64_t next_listener_ = 1;
  uint64_t notified_ = 0;
  std::map<uint64_t, Listener> listeners_;
  uint64_t watch_id_ = 0;
};

}  // namespace recon::store

#endif  // RECON_STORE_ETCD_STORE_H_
