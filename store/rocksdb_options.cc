#include "store/rocksdb_options.h"

#include <rocksdb/table.h>

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
  return o;
}

rocksdb::ColumnFamilyOptions MakeCfOptions() {
  rocksdb::ColumnFamilyOptions cf;
  cf.compression = rocksdb::kNoCompression;  // scans stay cheap; see FORMAT.md
  rocksdb::BlockBasedTableOptions table;
  table.block_size = 64 * 1024;
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  cf.write_buffer_size = 64 << 20;
  return cf;
}

}  // namespace recon::store
