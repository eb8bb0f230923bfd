// The RocksDB settings RocksDbStore uses, shared with benchmarks so a raw
// RocksDB baseline runs with exactly the same options.
#ifndef RECON_STORE_ROCKSDB_OPTIONS_H_
#define RECON_STORE_ROCKSDB_OPTIONS_H_

#include <rocksdb/options.h>

namespace recon::store {

rocksdb::DBOptions MakeDbOptions(bool create_if_missing);
rocksdb::ColumnFamilyOptions MakeCfOptions();

}  // namespace recon::store

#endif  // RECON_STORE_ROCKSDB_OPTIONS_H_
