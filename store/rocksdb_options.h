// The RocksDB settings RocksDbStore uses, shared with benchmarks so a raw
// RocksDB baseline runs with exactly the same options.
//
// Memory is bounded whatever the store's size, so a long-running agent's RSS
// stays flat: all column families' memtables share one write-buffer budget
// (kMemtableBudget), and index blocks live in the block cache (kBlockCache)
// instead of growing with every table file.
#ifndef RECON_STORE_ROCKSDB_OPTIONS_H_
#define RECON_STORE_ROCKSDB_OPTIONS_H_

#include <rocksdb/options.h>

#include <cstddef>
#include <memory>

namespace rocksdb {
class Cache;
}  // namespace rocksdb

namespace recon::store {

inline constexpr size_t kMemtableBudget = 32 << 20;   // all column families together
inline constexpr size_t kWriteBufferSize = 16 << 20;  // one memtable
inline constexpr size_t kBlockCache = 16 << 20;

// Each call makes a new write-buffer budget: one per opened database.
rocksdb::DBOptions MakeDbOptions(bool create_if_missing);
// `cache` is shared by the column families of one database; null gets a
// cache of its own (kBlockCache).
rocksdb::ColumnFamilyOptions MakeCfOptions(std::shared_ptr<rocksdb::Cache> cache = nullptr);
std::shared_ptr<rocksdb::Cache> MakeBlockCache();

}  // namespace recon::store

#endif  // RECON_STORE_ROCKSDB_OPTIONS_H_
