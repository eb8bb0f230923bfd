// The append-only event log every part of recon stands on.
//
// Seqs are dense and start at 1. An acknowledged Append survives a process
// crash (Durability::kNoSync) or power loss (Durability::kSync). Records are
// never rewritten; a prefix may be dropped only behind a snapshot.
#ifndef RECON_STORE_EVENT_STORE_H_
#define RECON_STORE_EVENT_STORE_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "records/record.h"

namespace recon::store {

inline constexpr uint64_t kEndOfLog = std::numeric_limits<uint64_t>::max();

enum class Durability { kSync, kNoSync };

// Iterates verified records in key order. A record that fails its integrity
// check ends the iteration with a DataLoss status naming its seq: there is
// no silent skip.
class RecordIterator {
 public:
  virtual ~RecordIterator() = default;
  virtual bool Valid() const = 0;
  virtual void Next() = 0;
  virtual uint64_t seq() const = 0;    // event seq, or an action's cause seq
  virtual uint32_t index() const = 0;  // an action's index within its cause; 0 for events
  // The Cap'n Proto message (schema/event.capnp Event or action.capnp Action).
  virtual std::string_view payload() const = 0;
  virtual absl::Status status() const = 0;
};

// What a store holds in memory, in bytes (for /metrics and the soak's
// memory check). A RocksDB store's memory is bounded by its options
// (store/rocksdb_options.h); a MemoryStore's is the whole log.
struct StoreMemory {
  uint64_t memtables = 0;      // unflushed writes (MemoryStore: every record)
  uint64_t block_cache = 0;    // cached table blocks, index blocks included
  uint64_t table_readers = 0;  // per-file reader state outside the cache
};

// How much room the log takes where it lives (recon_store_bytes, log stat
// and the agent's quota warning).
struct StoreSize {
  uint64_t bytes = 0;  // RocksDB: its directory's files; etcd: the whole database (dbSize)
  uint64_t quota = 0;  // the size past which the backend refuses writes; 0: none
};

struct SnapshotBlob {
  uint64_t seq = 0;
  std::string data;
};

class EventStore {
 public:
  virtual ~EventStore() = default;

  // Appends all events atomically and returns the seq given to the first.
  // Content events carry their files; the files are stored once per digest.
  virtual absl::StatusOr<uint64_t> Append(std::span<const records::EventRecord> events) = 0;

  // Events with from <= seq <= to.
  virtual absl::StatusOr<std::unique_ptr<RecordIterator>> ReadEvents(uint64_t from,
                                                                     uint64_t to = kEndOfLog) = 0;
  // 0 when empty.
  virtual uint64_t LastSeq() const = 0;
  // The first seq still stored (1 unless a prefix was compacted).
  virtual uint64_t FirstSeq() const = 0;

  // Called after each successful Append with the new last seq, on the
  // appending thread. Returns an id for Unsubscribe.
  using Listener = std::function<void(uint64_t last_seq)>;
  virtual uint64_t Subscribe(Listener listener) = 0;
  virtual void Unsubscribe(uint64_t id) = 0;

  // Actions are keyed by (cause seq, index); writing the same key again
  // replaces it (a recomputation of the same cause).
  virtual absl::Status AppendActions(std::span<const records::ActionRecord> actions) = 0;
  virtual absl::StatusOr<std::unique_ptr<RecordIterator>> ReadActions(uint64_t from_cause,
                                                                      uint64_t to_cause = kEndOfLog) = 0;

  virtual absl::StatusOr<records::ContentFiles> GetContent(std::string_view digest) = 0;

  // The latest snapshot only; an older one is replaced.
  virtual absl::Status PutSnapshot(uint64_t seq, std::string_view data) = 0;
  virtual absl::StatusOr<std::optional<SnapshotBlob>> GetSnapshot() = 0;

  // Drops events and actions with seq < before. Refused unless a snapshot at
  // seq >= before - 1 exists, so state is never lost.
  virtual absl::Status CompactPrefix(uint64_t before) = 0;

  // Small named records kept beside the log and replaced on every write:
  // caches a reader can rebuild from the log (the runtime's checkpoint of
  // unanswered actions, runtime/unanswered.h). Not compacted, not exported.
  virtual absl::Status PutAux(std::string_view name, std::string_view data) = 0;
  virtual absl::StatusOr<std::optional<std::string>> GetAux(std::string_view name) = 0;

  virtual StoreMemory Memory() const = 0;
  // May ask the backend (etcd: one status request): not for every append.
  virtual absl::StatusOr<StoreSize> Size() = 0;
};

// Reads one event (helper over ReadEvents).
absl::StatusOr<records::EventRecord> ReadEvent(EventStore& store, uint64_t seq);

}  // namespace recon::store

#endif  // RECON_STORE_EVENT_STORE_H_
