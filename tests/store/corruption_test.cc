// Damaged records are reported with their seq; the store never skips them
// silently nor hands back a wrong event. The RocksDB cases flip bytes in a
// closed, flushed store: compression is off (store/FORMAT.md), so a record's
// payload can be found in the .sst files by its unique marker.
#include <rocksdb/db.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "base/strings.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "records/codec.h"
#include "store/memory_store.h"
#include "store/rocksdb_options.h"
#include "store/rocksdb_store.h"
#include "tests/store/test_util.h"

namespace recon::store {
namespace {

using testing::ConfigMapEvent;
using ::testing::HasSubstr;
using testing::TempDir;

constexpr uint64_t kEvents = 400;  // ~1 KiB each: several 64 KiB table blocks

std::string MarkerFor(uint64_t seq) {
  std::string m = recon::StrCat("MARK-", seq, "-");
  m.append(1000, 'q');  // large enough to fill blocks, unique via the prefix
  m += recon::StrCat("-END-", seq);
  return m;
}

struct ReadResult {
  std::vector<std::pair<uint64_t, std::string>> records;
  absl::Status status;
};

ReadResult ReadAll(EventStore& store, uint64_t from = 1, uint64_t to = kEndOfLog) {
  ReadResult r;
  auto it = store.ReadEvents(from, to);
  if (!it.ok()) {
    r.status = it.status();
    return r;
  }
  for (; (*it)->Valid(); (*it)->Next()) r.records.emplace_back((*it)->seq(), std::string((*it)->payload()));
  r.status = (*it)->status();
  return r;
}

class RocksCorruptionTest : public ::testing::TestWithParam<bool> {
 protected:
  bool block_checksums() const { return GetParam(); }
  std::string db() const { return dir_.Sub("db"); }

  // Writes kEvents events, flushes them to table files and closes the store.
  void SetUp() override {
    auto st = RocksDbStore::Open(db());
    ASSERT_TRUE(st.ok()) << st.status();
    std::vector<records::EventRecord> batch;
    for (uint64_t seq = 1; seq <= kEvents; ++seq) {
      batch.push_back(ConfigMapEvent(recon::StrCat("cm-", seq), MarkerFor(seq), static_cast<int64_t>(seq)));
    }
    ASSERT_EQ((*st)->Append(batch).value_or(0), 1u);
    ASSERT_TRUE((*st)->Flush().ok());
    auto all = ReadAll(**st);
    ASSERT_TRUE(all.status.ok());
    good_ = std::move(all.records);
    ASSERT_EQ(good_.size(), kEvents);
  }

  std::unique_ptr<RocksDbStore> Open() {
    RocksDbOptions options;
    options.verify_block_checksums = block_checksums();
    options.create_if_missing = false;
    auto st = RocksDbStore::Open(db(), options);
    EXPECT_TRUE(st.ok()) << st.status();
    return st.ok() ? std::move(*st) : nullptr;
  }

  // Flips one byte in the middle of `seq`'s marker, in the table file that
  // holds it. Exactly one table file must contain it.
  void FlipByteOf(uint64_t seq) {
    const std::string marker = MarkerFor(seq);
    int found = 0;
    for (const auto& entry : std::filesystem::directory_iterator(db())) {
      if (entry.path().extension() != ".sst") continue;
      std::string bytes;
      {
        std::ifstream in(entry.path(), std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      }
      size_t pos = bytes.find(marker);
      if (pos == std::string::npos) continue;
      ++found;
      ASSERT_EQ(bytes.find(marker, pos + 1), std::string::npos) << "marker twice in " << entry.path();
      bytes[pos + marker.size() / 2] ^= 0x01;  // one bit, a 'q' becomes a 'p'
      std::ofstream out(entry.path(), std::ios::binary | std::ios::trunc);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      ASSERT_TRUE(out.good());
    }
    ASSERT_EQ(found, 1) << "seq " << seq << "'s payload not found exactly once in the table files";
  }

  // Reading from 1 stops with DataLoss naming `named` (the first seq that
  // could not be read), after returning exactly the intact records before it.
  void ExpectStopsAt(uint64_t named, uint64_t corrupted) {
    ASSERT_LE(named, corrupted);
    auto st = Open();
    ASSERT_NE(st, nullptr);
    auto r = ReadAll(*st);
    EXPECT_EQ(r.status.code(), absl::StatusCode::kDataLoss) << r.status;
    EXPECT_THAT(Sv(r.status.message()), HasSubstr(recon::StrCat("seq ", named)));
    ASSERT_EQ(r.records.size(), named - 1);
    for (size_t i = 0; i < r.records.size(); ++i) EXPECT_EQ(r.records[i], good_[i]);
  }

  TempDir dir_;
  std::vector<std::pair<uint64_t, std::string>> good_;
};

TEST_P(RocksCorruptionTest, IntactStoreReadsBack) {
  auto st = Open();
  ASSERT_NE(st, nullptr);
  auto r = ReadAll(*st);
  EXPECT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.records, good_);
}

TEST_P(RocksCorruptionTest, FlippedByteInTheMiddleIsReportedWithItsSeq) {
  constexpr uint64_t kBad = 200;
  FlipByteOf(kBad);
  auto st = Open();
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->LastSeq(), kEvents);

  // Reading just that record names it exactly.
  auto one = ReadAll(*st, kBad, kBad);
  EXPECT_TRUE(one.records.empty());
  EXPECT_EQ(one.status.code(), absl::StatusCode::kDataLoss) << one.status;
  EXPECT_THAT(Sv(one.status.message()), HasSubstr(recon::StrCat("seq ", kBad)));
  auto ev = ReadEvent(*st, kBad);
  EXPECT_EQ(ev.status().code(), absl::StatusCode::kDataLoss);

  // A full scan stops there: nothing after it is returned as if fine.
  auto all = ReadAll(*st);
  EXPECT_EQ(all.status.code(), absl::StatusCode::kDataLoss) << all.status;
  ASSERT_FALSE(all.records.empty());
  const uint64_t named = all.records.back().first + 1;
  EXPECT_THAT(Sv(all.status.message()), HasSubstr(recon::StrCat("seq ", named)));
  for (size_t i = 0; i < all.records.size(); ++i) EXPECT_EQ(all.records[i], good_[i]);
  if (block_checksums()) {
    // RocksDB rejects the whole 64 KiB block, so the scan stops at the first
    // seq of that block, which is at or before the damaged record.
    EXPECT_LE(named, kBad);
    EXPECT_GT(named, kBad - 70);
  } else {
    // recon's own record checksum catches it, at exactly that record.
    EXPECT_EQ(named, kBad);
    EXPECT_THAT(Sv(all.status.message()), HasSubstr("checksum mismatch"));
  }

  // Records in intact blocks are still readable on their own.
  auto later = ReadAll(*st, kEvents - 5, kEvents);
  EXPECT_TRUE(later.status.ok()) << later.status;
  EXPECT_EQ(later.records.size(), 6u);
}

TEST_P(RocksCorruptionTest, FirstRecordDamaged) {
  FlipByteOf(1);
  ExpectStopsAt(1, 1);
}

TEST_P(RocksCorruptionTest, LastRecordDamaged) {
  FlipByteOf(kEvents);
  RocksDbOptions options;
  options.verify_block_checksums = block_checksums();
  auto st = RocksDbStore::Open(db(), options);
  if (block_checksums()) {
    // Opening reads the last block to learn the last seq, and RocksDB
    // rejects it there: the store refuses to open rather than guess.
    EXPECT_EQ(st.status().code(), absl::StatusCode::kDataLoss) << st.status();
    EXPECT_THAT(Sv(st.status().message()), HasSubstr("last block is damaged"));
    return;
  }
  ASSERT_TRUE(st.ok()) << st.status();
  EXPECT_EQ((*st)->LastSeq(), kEvents);
  auto r = ReadAll(**st, kEvents, kEvents);
  EXPECT_EQ(r.status.code(), absl::StatusCode::kDataLoss) << r.status;
  EXPECT_THAT(Sv(r.status.message()), HasSubstr(recon::StrCat("seq ", kEvents)));
  EXPECT_TRUE(r.records.empty());
}

// Structural damage that no checksum sees: a record deleted from the middle,
// or a valid record copied under another seq's key.
TEST_P(RocksCorruptionTest, MissingOrMisplacedRecordIsReported) {
  {
    std::vector<rocksdb::ColumnFamilyDescriptor> families = {
        {rocksdb::kDefaultColumnFamilyName, MakeCfOptions()},
        {"events", MakeCfOptions()},
        {"actions", MakeCfOptions()},
        {"content", MakeCfOptions()},
        {"meta", MakeCfOptions()}};
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    auto s = rocksdb::DB::Open(MakeDbOptions(false), db(), families, &handles, &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::string value;
    ASSERT_TRUE(raw->Get(rocksdb::ReadOptions(), handles[1], records::EventKey(10), &value).ok());
    ASSERT_TRUE(raw->Put(rocksdb::WriteOptions(), handles[1], records::EventKey(11), value).ok());
    ASSERT_TRUE(raw->Delete(rocksdb::WriteOptions(), handles[1], records::EventKey(300)).ok());
    for (auto* h : handles) raw->DestroyColumnFamilyHandle(h);
    delete raw;
  }
  auto st = Open();
  ASSERT_NE(st, nullptr);
  auto copied = ReadAll(*st, 1, 20);
  EXPECT_EQ(copied.status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(Sv(copied.status.message()), HasSubstr("seq 11"));
  EXPECT_EQ(copied.records.size(), 10u);
  auto missing = ReadAll(*st, 290, kEndOfLog);
  EXPECT_EQ(missing.status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(Sv(missing.status.message()), HasSubstr("seq 300 is missing"));
  EXPECT_EQ(missing.records.size(), 10u);
}

INSTANTIATE_TEST_SUITE_P(BlockChecksums, RocksCorruptionTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "RocksDbChecksumsOn" : "RocksDbChecksumsOff";
                         });

TEST(MemoryCorruptionTest, EveryDamagedByteIsReportedWithItsSeq) {
  MemoryStore clean;
  std::vector<records::EventRecord> batch;
  for (uint64_t seq = 1; seq <= 5; ++seq) batch.push_back(ConfigMapEvent("cm", MarkerFor(seq)));
  ASSERT_TRUE(clean.Append(batch).ok());
  auto good = ReadAll(clean);
  ASSERT_TRUE(good.status.ok());
  const size_t frame_size = records::kFrameHeader + good.records[2].second.size();
  // Version byte, checksum bytes, and a spread of payload bytes.
  for (size_t offset = 0; offset < frame_size; offset += (offset < 16 ? 1 : 97)) {
    MemoryStore st;
    ASSERT_TRUE(st.Append(batch).ok());
    st.CorruptEventForTest(3, offset);
    auto r = ReadAll(st);
    EXPECT_EQ(r.status.code(), absl::StatusCode::kDataLoss) << "offset " << offset;
    EXPECT_THAT(Sv(r.status.message()), HasSubstr("seq 3")) << "offset " << offset;
    ASSERT_EQ(r.records.size(), 2u) << "offset " << offset;
    EXPECT_EQ(r.records[0], good.records[0]);
    EXPECT_EQ(r.records[1], good.records[1]);
    EXPECT_EQ(ReadEvent(st, 3).status().code(), absl::StatusCode::kDataLoss);
    // Its neighbours stay readable.
    EXPECT_TRUE(ReadEvent(st, 4).ok());
  }
}

TEST(FrameTest, ChecksumCoversTheKey) {
  std::string framed = records::Frame(records::EventKey(7), "payload");
  EXPECT_TRUE(records::Unframe(records::EventKey(7), framed, "event seq 7").ok());
  auto moved = records::Unframe(records::EventKey(8), framed, "event seq 8");
  EXPECT_EQ(moved.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(Sv(moved.status().message()), HasSubstr("event seq 8"));
  auto truncated = records::Unframe(records::EventKey(7), framed.substr(0, 5), "event seq 7");
  EXPECT_EQ(truncated.status().code(), absl::StatusCode::kDataLoss);
  auto torn = records::Unframe(records::EventKey(7), framed.substr(0, framed.size() - 1), "event seq 7");
  EXPECT_EQ(torn.status().code(), absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace recon::store
