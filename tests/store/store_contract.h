// The EventStore contract's fixture: each test of StoreTest (store_test.cc,
// store_content_test.cc) runs against every kind of store.
#ifndef RECON_TESTS_STORE_STORE_CONTRACT_H_
#define RECON_TESTS_STORE_STORE_CONTRACT_H_

#include <rocksdb/db.h>

#include <atomic>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/strings.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "records/codec.h"
#include "store/etcd_store.h"
#include "store/event_store.h"
#include "store/memory_kv.h"
#include "store/memory_store.h"
#include "store/rocksdb_options.h"
#include "store/rocksdb_store.h"
#include "tests/store/test_util.h"

namespace recon::store::contract {

using testing::ConfigMapEvent;
using testing::TempDir;

enum class Kind { kMemory, kRocksDb, kEtcd };

// The KV an EtcdStore of the suite stands on: a MemoryKv in store_tests; a
// client of a real 3-member etcd cluster where adapters_etcd_tests builds
// the same suite (tests/adapters/etcd/).
std::shared_ptr<KvBackend> ContractKv();

inline std::unique_ptr<EventStore> OpenRocks(const std::string& dir) {
  auto s = RocksDbStore::Open(dir);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? std::move(*s) : nullptr;
}

// Reads [from, to] and returns (seq, payload) pairs; fails the test on error.
inline std::vector<std::pair<uint64_t, std::string>> ReadAll(EventStore& store, uint64_t from = 1,
                                                             uint64_t to = kEndOfLog) {
  std::vector<std::pair<uint64_t, std::string>> out;
  auto it = store.ReadEvents(from, to);
  EXPECT_TRUE(it.ok()) << it.status();
  if (!it.ok()) return out;
  for (; (*it)->Valid(); (*it)->Next()) out.emplace_back((*it)->seq(), std::string((*it)->payload()));
  EXPECT_TRUE((*it)->status().ok()) << (*it)->status();
  return out;
}

inline std::vector<uint64_t> Seqs(const std::vector<std::pair<uint64_t, std::string>>& records) {
  std::vector<uint64_t> out;
  for (const auto& r : records) out.push_back(r.first);
  return out;
}

inline std::string Marker(const std::string& payload) {
  auto e = records::DecodeEvent(payload);
  EXPECT_TRUE(e.ok()) << e.status();
  return e.ok() ? e->body : "";
}

inline records::EventRecord ContentEvent(std::string name, records::ContentFiles files,
                                         std::string digest = "") {
  records::EventRecord e;
  e.type = records::EventType::kContent;
  e.time_ns = 7;
  e.content_name = std::move(name);
  e.content_files = std::move(files);
  e.content_digest = std::move(digest);
  return e;
}

inline records::ActionRecord Action(uint64_t cause, uint32_t index, std::string verb) {
  records::ActionRecord a;
  a.cause_seq = cause;
  a.index = index;
  a.domain = "samples";
  a.verb = std::move(verb);
  a.object.kind = "ImageStream";
  a.object.name = recon::StrCat("is-", cause, "-", index);
  a.body = R"({"kind":"ImageStream"})";
  return a;
}

class StoreTest : public ::testing::TestWithParam<Kind> {
 protected:
  void SetUp() override { Open(); }

  void Open() {
    if (GetParam() == Kind::kMemory) {
      memory_ = new MemoryStore();
      store_.reset(memory_);
    } else if (GetParam() == Kind::kEtcd) {
      store_.reset();
      EtcdStoreOptions options;
      options.prefix = prefix_;
      auto s = EtcdStore::Open(kv_, options);
      ASSERT_TRUE(s.ok()) << s.status();
      store_ = std::move(*s);
    } else {
      store_.reset();
      store_ = OpenRocks(dir_.Sub("db"));
      ASSERT_NE(store_, nullptr);
    }
  }

  // RocksDbStore: close and open again, so what follows reads the disk;
  // EtcdStore: a new writer (a new term) on the same keys. MemoryStore has
  // nothing to reopen.
  void Reopen() {
    if (GetParam() != Kind::kMemory) Open();
  }

  // How many content records are stored (each digest once).
  size_t ContentRecords() {
    if (GetParam() == Kind::kMemory) return memory_->ContentCountForTest();
    if (GetParam() == Kind::kEtcd) {
      std::string dir = prefix_ + "/c/";
      auto r = kv_->Range({dir, KeyRange::PrefixEnd(dir)});
      EXPECT_TRUE(r.ok()) << r.status();
      return r.ok() ? r->kvs.size() : 0;
    }
    store_.reset();  // RocksDB allows one writer; read the closed store raw
    std::vector<rocksdb::ColumnFamilyDescriptor> families = {
        {rocksdb::kDefaultColumnFamilyName, MakeCfOptions()},
        {"events", MakeCfOptions()},
        {"actions", MakeCfOptions()},
        {"content", MakeCfOptions()},
        {"meta", MakeCfOptions()}};
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    auto s = rocksdb::DB::OpenForReadOnly(MakeDbOptions(false), dir_.Sub("db"), families, &handles, &raw);
    EXPECT_TRUE(s.ok()) << s.ToString();
    size_t n = 0;
    if (s.ok()) {
      std::unique_ptr<rocksdb::Iterator> it(raw->NewIterator(rocksdb::ReadOptions(), handles[3]));
      for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
      it.reset();
      for (auto* h : handles) raw->DestroyColumnFamilyHandle(h);
      delete raw;
    }
    Open();
    return n;
  }

  uint64_t Append(std::vector<records::EventRecord> events) {
    auto r = store_->Append(events);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : 0;
  }

  TempDir dir_;
  std::shared_ptr<KvBackend> kv_ = ContractKv();
  // Each test its own prefix (one etcd cluster serves a whole program).
  std::string prefix_ =
      recon::StrCat("contract/", ::testing::UnitTest::GetInstance()->current_test_info()->name());
  MemoryStore* memory_ = nullptr;
  std::unique_ptr<EventStore> store_;
};

}  // namespace recon::store::contract

#endif  // RECON_TESTS_STORE_STORE_CONTRACT_H_
