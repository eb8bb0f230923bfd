// The embedded, durable EventStore. On-disk layout: store/FORMAT.md.
#ifndef RECON_STORE_ROCKSDB_STORE_H_
#define RECON_STORE_ROCKSDB_STORE_H_

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "store/event_store.h"

namespace rocksdb {
class Cache;
class DB;
class ColumnFamilyHandle;
}  // namespace rocksdb

namespace recon::store {

struct RocksDbOptions {
  Durability durability = Durability::kSync;
  bool create_if_missing = true;
  // RocksDB's own block checksums, on top of recon's record checksums.
  bool verify_block_checksums = true;
};

class RocksDbStore : public EventStore {
 public:
  static absl::StatusOr<std::unique_ptr<RocksDbStore>> Open(const std::string& dir,
                                                            const RocksDbOptions& options = {});
  ~RocksDbStore() override;

  absl::StatusOr<uint64_t> Append(std::span<const records::EventRecord> events) override;
  absl::StatusOr<std::unique_ptr<RecordIterator>> ReadEvents(uint64_t from, uint64_t to) override;
  uint64_t LastSeq() const override;
  uint64_t FirstSeq() const override;
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
  StoreMemory Memory() const override;
  absl::StatusOr<StoreSize> Size() override { return StoreSize{.bytes = DiskBytes()}; }

  // Flushes memtables to table files (used before closing in tests/tools).
  absl::Status Flush();
  // Bytes of table files and WAL on disk.
  uint64_t DiskBytes() const;

 private:
  struct Writer;
  RocksDbStore() = default;
  absl::Status Init();
  absl::Status WriteGroup(std::deque<Writer*>& group, uint64_t first_seq);

  std::string dir_;
  RocksDbOptions options_;
  std::shared_ptr<rocksdb::Cache> block_cache_;  // shared by the column families
  std::unique_ptr<rocksdb::DB> db_;
  rocksdb::ColumnFamilyHandle* events_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* actions_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* content_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* meta_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* default_cf_ = nullptr;

  mutable std::mutex mu_;
  std::deque<Writer*> writers_;  // group commit queue; front is the leader
  uint64_t last_seq_ = 0;
  uint64_t first_seq_ = 1;
  uint64_t next_listener_ = 1;
  std::map<uint64_t, Listener> listeners_;
};

}  // namespace recon::store

#endif  // RECON_STORE_ROCKSDB_STORE_H_
