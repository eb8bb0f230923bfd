// In-memory twin of RocksDbStore for tests: same interface, same record
// bytes, no durability.
#ifndef RECON_STORE_MEMORY_STORE_H_
#define RECON_STORE_MEMORY_STORE_H_

#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "store/event_store.h"

namespace recon::store {

class MemoryStore : public EventStore {
 public:
  MemoryStore() = default;

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
  absl::StatusOr<StoreSize> Size() override { return StoreSize{.bytes = Memory().memtables}; }

  // Test hook: overwrite the stored bytes of an event (to simulate corruption).
  void CorruptEventForTest(uint64_t seq, size_t byte_offset);
  // Test hook: number of content records (each digest is stored once).
  size_t ContentCountForTest() const;

 private:
  using Record = std::shared_ptr<const std::string>;
  mutable std::mutex mu_;
  uint64_t first_seq_ = 1;
  std::vector<Record> events_;  // events_[i] has seq first_seq_ + i
  std::map<std::pair<uint64_t, uint32_t>, Record> actions_;
  std::map<std::string, std::string, std::less<>> content_;
  std::map<std::string, std::string, std::less<>> aux_;
  uint64_t bytes_ = 0;  // framed events, actions and content held
  std::optional<SnapshotBlob> snapshot_;
  uint64_t next_listener_ = 1;
  std::map<uint64_t, Listener> listeners_;
};

}  // namespace recon::store

#endif  // RECON_STORE_MEMORY_STORE_H_
