// RocksDbStore's own options: durability, the memory budget, opening
// without create. (What both stores share: store_test.cc.)
#include "store/rocksdb_store.h"

#include <algorithm>
#include <string>
#include <vector>

#include "base/strings.h"
#include "gtest/gtest.h"
#include "store/rocksdb_options.h"
#include "tests/store/test_util.h"

namespace recon::store {
namespace {

using testing::ConfigMapEvent;
using testing::TempDir;

// Sync and nosync both give a store that reopens with every append.
TEST(RocksDbStoreTest, NoSyncDurabilityStillPersistsOnCleanClose) {
  TempDir dir;
  RocksDbOptions options;
  options.durability = Durability::kNoSync;
  {
    auto st = RocksDbStore::Open(dir.Sub("db"), options);
    ASSERT_TRUE(st.ok()) << st.status();
    ASSERT_TRUE((*st)->Append(std::vector{ConfigMapEvent("a", "1")}).ok());
  }
  auto st = RocksDbStore::Open(dir.Sub("db"));
  ASSERT_TRUE(st.ok()) << st.status();
  EXPECT_EQ((*st)->LastSeq(), 1u);
}

// A long-running agent's store memory is bounded by its options, whatever
// the log's size (store/rocksdb_options.h): 80 MB appended, the memtables
// never pass one budget plus one memtable (an immutable one being flushed),
// where the former 64 MB memtables held everything written so far.
TEST(RocksDbStoreTest, MemoryStaysWithinTheBudget) {
  TempDir dir;
  RocksDbOptions options;
  options.durability = Durability::kNoSync;
  auto st = RocksDbStore::Open(dir.Sub("db"), options);
  ASSERT_TRUE(st.ok()) << st.status();
  uint64_t peak = 0, seq = 0;
  for (int round = 0; round < 80; ++round) {
    std::vector<records::EventRecord> batch;
    for (int i = 0; i < 256; ++i) {
      batch.push_back(ConfigMapEvent(recon::StrCat("cm-", ++seq), std::string(4000, 'a' + round % 26)));
    }
    ASSERT_TRUE((*st)->Append(batch).ok());
    StoreMemory m = (*st)->Memory();
    peak = std::max(peak, m.memtables);
    EXPECT_LE(m.block_cache, kBlockCache + (1u << 20));
  }
  EXPECT_GT(peak, 0u);
  EXPECT_LE(peak, kMemtableBudget + kWriteBufferSize) << "80 MB appended";
}

TEST(RocksDbStoreTest, OpenWithoutCreateNeedsAStore) {
  TempDir dir;
  RocksDbOptions options;
  options.create_if_missing = false;
  auto st = RocksDbStore::Open(dir.Sub("missing"), options);
  EXPECT_EQ(st.status().code(), absl::StatusCode::kNotFound);
  // With create, missing parent directories are made.
  EXPECT_TRUE(RocksDbStore::Open(dir.Sub("x/y/z")).ok());
}

}  // namespace
}  // namespace recon::store
