// The transactional ordered key-value store an EventStore can be built on
// (issue 51; the layout and protocol on top: store/FORMAT-etcd.md). The
// operations and their semantics are etcd v3's, reduced to what the store
// needs: the latest value of each key (no reads at old revisions), one
// revision per transaction that writes, compares on a key's value, version
// or mod revision, a watch on one key. MemoryKv (memory_kv.h) is the
// in-memory twin; the etcd client over its JSON gateway lives above the
// store (adapters/), since store/ includes no transport.
// Calls may come from several threads at once (a split append sends its
// staged transactions together).
#ifndef RECON_STORE_KV_BACKEND_H_
#define RECON_STORE_KV_BACKEND_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace recon::store {

struct KeyValue {
  std::string key, value;
  int64_t create_revision = 0;  // the revision that created it
  int64_t mod_revision = 0;     // the revision of its last change
  int64_t version = 0;          // changes since it was created (1 after the create)
};

// etcd's range_end: "" reads `key` alone; "\0" every key >= `key`;
// otherwise the keys in [key, range_end).
struct KeyRange {
  std::string key, range_end;
  // The range_end that selects every key starting with `prefix`.
  static std::string PrefixEnd(std::string_view prefix);
};

struct RangeResult {
  std::vector<KeyValue> kvs;  // in key order
  bool more = false;          // the limit cut the range short
  int64_t revision = 0;       // the store's revision when read
};

// A condition of a transaction on one key. A key that does not exist has
// version, create and mod revision 0; a value compare on it is false, as in
// etcd.
struct Compare {
  enum class Target { kValue, kVersion, kCreateRevision, kModRevision };
  enum class Result { kEqual, kNotEqual, kGreater, kLess };
  std::string key;
  Target target = Target::kValue;
  Result result = Result::kEqual;
  std::string value;   // kValue
  int64_t number = 0;  // the others
};

struct TxnOp {
  enum class Kind { kPut, kDeleteRange };
  Kind kind = Kind::kPut;
  std::string key, value;  // kPut
  std::string range_end;   // kDeleteRange: as KeyRange's ("" deletes `key` alone)
  static TxnOp Put(std::string key, std::string value);
  static TxnOp Delete(std::string key, std::string range_end = "");
};

struct TxnResult {
  bool succeeded = false;  // every compare held: the success ops ran, else the failure ops
  int64_t revision = 0;    // the store's revision after the transaction
};

struct KvStatus {
  int64_t revision = 0;
  int64_t db_size = 0;          // bytes the backend uses (etcd: dbSize)
  int64_t db_size_in_use = 0;   // of which holding live data (etcd: dbSizeInUse)
};

// The limits a real etcd enforces by default (--max-txn-ops,
// --max-request-bytes): a request over them is refused, never cut.
struct KvLimits {
  size_t max_txn_ops = 128;
  size_t max_request_bytes = 1536 * 1024;
};

class KvBackend {
 public:
  virtual ~KvBackend() = default;
  // Keys of `range` in key order, at most `limit` (0: no limit).
  virtual absl::StatusOr<RangeResult> Range(const KeyRange& range, int64_t limit = 0) = 0;
  // All compares hold: `success` runs, else `failure`; atomically, as one
  // revision if anything was written. Over the limits: InvalidArgument
  // with etcd's words, and nothing is written.
  virtual absl::StatusOr<TxnResult> Txn(const std::vector<Compare>& compares, const std::vector<TxnOp>& success,
                                        const std::vector<TxnOp>& failure = {}) = 0;
  // Drops the history older than `revision` (etcd's compaction). A revision
  // in the future is OutOfRange.
  virtual absl::Status Compact(int64_t revision) = 0;
  virtual absl::StatusOr<KvStatus> Status() = 0;
  // Calls `on_change` with the key's new state after each transaction that
  // changes it (a deleted key: empty value, version 0), on the thread that
  // learns of it. Returns an id for Unwatch.
  using WatchFn = std::function<void(const KeyValue& kv)>;
  virtual uint64_t Watch(std::string key, WatchFn on_change) = 0;
  virtual void Unwatch(uint64_t id) = 0;
};

}  // namespace recon::store

#endif  // RECON_STORE_KV_BACKEND_H_
