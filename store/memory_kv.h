// KvBackend in memory: the twin of an etcd cluster for the store's tests,
// with etcd's revision, version and compare semantics and its default
// request limits. Thread-safe; watchers run on the writing thread, after
// the transaction and outside the lock.
#ifndef RECON_STORE_MEMORY_KV_H_
#define RECON_STORE_MEMORY_KV_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "store/kv_backend.h"

namespace recon::store {

class MemoryKv final : public KvBackend {
 public:
  explicit MemoryKv(KvLimits limits = {}) : limits_(limits) {}

  absl::StatusOr<RangeResult> Range(const KeyRange& range, int64_t limit = 0) override;
  absl::StatusOr<TxnResult> Txn(const std::vector<Compare>& compares, const std::vector<TxnOp>& success,
                                const std::vector<TxnOp>& failure = {}) override;
  absl::Status Compact(int64_t revision) override;
  absl::StatusOr<KvStatus> Status() override;
  uint64_t Watch(std::string key, WatchFn on_change) override;
  void Unwatch(uint64_t id) override;

 private:
  bool Holds(const Compare& c) const;  // mu_ held
  // The keys of a range op, in key order (mu_ held).
  std::vector<std::string> KeysIn(std::string_view key, std::string_view range_end) const;

  const KvLimits limits_;
  mutable std::mutex mu_;
  std::map<std::string, KeyValue, std::less<>> kvs_;
  int64_t revision_ = 1;  // etcd starts at 1
  int64_t compacted_ = 0;
  uint64_t next_watch_ = 1;
  std::map<uint64_t, std::pair<std::string, WatchFn>> watches_;
};

}  // namespace recon::store

#endif  // RECON_STORE_MEMORY_KV_H_
