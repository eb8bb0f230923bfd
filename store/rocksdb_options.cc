#include "store/rocksdb_options.h"

#include <rocksdb/cache.h>
#include <rocksdb/table.h>
#include <rocksdb/write_buffer_manager.h>

namespace recon::store {

rocksdb::DBOptions MakeDbOptions(bool create_if_missing) {
  rocksdb::DBOptions o;
  o.create_if_missing = create_if_missing;
  o.create_missing_column_families = true;
  o.paranoid_checks = true;
  // A torn tail (a write never acknowledged) is dropped on recovery;
  // everything before it must be intact.
  o.wal_recovery_mode = rocksdb::WALRecoveryMode::kPointInTimeRecovery;
  o.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
  o.keep_log_file_num = 2;
  o.IncreaseParallelism(2);
  // Five column families with 64 MB memtables each let a long run's RSS
  // climb by hundreds of MB between flushes (the soak's memory check); one
  // budget flushes the largest memtable when all of them together reach it.
  o.write_buffer_manager = std::make_shared<rocksdb::WriteBufferManager>(kMemtableBudget);
  return o;
}

std::shared_ptr<rocksdb::Cache> MakeBlockCache() { return rocksdb::NewLRUCache(kBlockCache); }

rocksdb::ColumnFamilyOptions MakeCfOptions(std::shared_ptr<rocksdb::Cache> cache) {
  rocksdb::ColumnFamilyOptions cf;
  cf.compression = rocksdb::kNoCompression;  // scans stay cheap; see FORMAT.md
  rocksdb::BlockBasedTableOptions table;
  table.block_size = 64 * 1024;
  table.block_cache = cache ? std::move(cache) : MakeBlockCache();
  // Index blocks are charged to the cache, so memory does not grow with the
  // number of table files; L0's stay pinned (they are read on every scan).
  table.cache_index_and_filter_blocks = true;
  table.pin_l0_filter_and_index_blocks_in_cache = true;
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  cf.write_buffer_size = kWriteBufferSize;
  return cf;
}

}  // namespace recon::store
