// What EtcdStore adds to the EventStore contract (store_test.cc runs that
// on it too): appends and records larger than one etcd transaction, a
// writer dying half-way through one, terms and fencing, readers beside a
// writer, and bad prefixes. Over MemoryKv, the twin with etcd's limits.
#include "store/etcd_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/strings.h"
#include "records/codec.h"
#include "store/memory_kv.h"
#include "tests/store/test_util.h"

namespace recon::store {
namespace {

using testing::ConfigMapEvent;
using ::testing::HasSubstr;

constexpr char kPrefix[] = "logs/prod";

// MemoryKv that counts transactions and can refuse every one after the
// next `allowed` (a writer that dies there: nothing after it is sent).
class CountingKv : public KvBackend {
 public:
  absl::StatusOr<RangeResult> Range(const KeyRange& range, int64_t limit) override {
    return kv_.Range(range, limit);
  }
  absl::StatusOr<TxnResult> Txn(const std::vector<Compare>& compares, const std::vector<TxnOp>& success,
                                const std::vector<TxnOp>& failure) override {
    {
      // A split append's staged transactions come from several threads.
      std::lock_guard<std::mutex> l(mu_);
      if (allowed_ >= 0 && txns_ >= allowed_) return absl::UnavailableError("the writer died");
      ++txns_;
    }
    return kv_.Txn(compares, success, failure);
  }
  absl::Status Compact(int64_t revision) override {
    compactions_.push_back(revision);
    return kv_.Compact(revision);
  }
  absl::StatusOr<KvStatus> Status() override { return kv_.Status(); }
  uint64_t Watch(std::string key, WatchFn fn) override { return kv_.Watch(std::move(key), std::move(fn)); }
  void Unwatch(uint64_t id) override { kv_.Unwatch(id); }

  void DieAfter(int txns) {
    std::lock_guard<std::mutex> l(mu_);
    allowed_ = txns_ + txns;
  }
  void Revive() {
    std::lock_guard<std::mutex> l(mu_);
    allowed_ = -1;
  }
  int txns() const {
    std::lock_guard<std::mutex> l(mu_);
    return txns_;
  }
  const std::vector<int64_t>& compactions() const { return compactions_; }
  size_t KeysUnder(const std::string& dir) {
    auto r = kv_.Range({dir, KeyRange::PrefixEnd(dir)});
    return r.ok() ? r->kvs.size() : 0;
  }
  void Put(const std::string& key, const std::string& value) { (void)kv_.Txn({}, {TxnOp::Put(key, value)}); }
  void Delete(const std::string& key) { (void)kv_.Txn({}, {TxnOp::Delete(key)}); }
  std::string Get(const std::string& key) {
    auto r = kv_.Range({key, ""});
    return r.ok() && !r->kvs.empty() ? r->kvs[0].value : "";
  }

 private:
  MemoryKv kv_;
  mutable std::mutex mu_;
  int txns_ = 0;
  std::vector<int64_t> compactions_;
  int allowed_ = -1;
};

std::unique_ptr<EtcdStore> OpenStore(std::shared_ptr<KvBackend> kv,
                                     EtcdStoreOptions::Mode mode = EtcdStoreOptions::Mode::kWrite) {
  EtcdStoreOptions o;
  o.prefix = kPrefix;
  o.mode = mode;
  auto s = EtcdStore::Open(std::move(kv), o);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? std::move(*s) : nullptr;
}

std::vector<records::EventRecord> Batch(int n, const std::string& tag, size_t pad = 0) {
  std::vector<records::EventRecord> out;
  for (int i = 0; i < n; ++i)
    out.push_back(ConfigMapEvent(StrCat(tag, i), StrCat(tag, i, std::string(pad, 'x'))));
  return out;
}

// The seqs a store reads, failing the test on a read error.
std::vector<uint64_t> Seqs(EventStore& store, uint64_t from = 1) {
  std::vector<uint64_t> out;
  auto it = store.ReadEvents(from, kEndOfLog);
  EXPECT_TRUE(it.ok()) << it.status();
  if (!it.ok()) return out;
  for (; (*it)->Valid(); (*it)->Next()) out.push_back((*it)->seq());
  EXPECT_TRUE((*it)->status().ok()) << (*it)->status();
  return out;
}

std::vector<uint64_t> Range(uint64_t from, uint64_t to) {
  std::vector<uint64_t> out;
  for (uint64_t s = from; s <= to; ++s) out.push_back(s);
  return out;
}

TEST(EtcdStore, AnAppendOfMoreThanOneTransactionIsCommittedByTheLast) {
  auto kv = std::make_shared<CountingKv>();
  auto store = OpenStore(kv);
  ASSERT_NE(store, nullptr);
  int before = kv->txns();
  auto first = store->Append(Batch(300, "big"));  // > 128 operations
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(*first, 1u);
  EXPECT_EQ(kv->txns() - before, 4);  // 128 + 128 + 44 records, then the head
  EXPECT_EQ(Seqs(*store), Range(1, 300));
  auto small = store->Append(Batch(3, "small"));
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(*small, 301u);
  EXPECT_EQ(kv->txns() - before, 5);  // one transaction when it fits
}

// A writer dies between the transactions of a split append: readers never
// see any of it, and the next writer appends after the last commit.
TEST(EtcdStore, AWriterKilledHalfWayThroughASplitAppendLeavesNothingVisible) {
  auto kv = std::make_shared<CountingKv>();
  auto writer = OpenStore(kv);
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(writer->Append(Batch(5, "ok")).ok());
  kv->DieAfter(2);  // two of the three staging transactions (128, 128, 44 records), sent at once
  auto half = writer->Append(Batch(300, "half"));
  EXPECT_EQ(half.status().code(), absl::StatusCode::kUnavailable);
  kv->Revive();
  const size_t staged = kv->KeysUnder(StrCat(kPrefix, "/e/")) - 5;  // past the head
  EXPECT_TRUE(staged == 256 || staged == 172) << staged;

  auto reader = OpenStore(kv, EtcdStoreOptions::Mode::kRead);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->LastSeq(), 5u);
  EXPECT_EQ(Seqs(*reader), Range(1, 5));

  writer.reset();
  auto next = OpenStore(kv);  // a new term; the staged keys are gone
  ASSERT_NE(next, nullptr);
  EXPECT_EQ(kv->KeysUnder(StrCat(kPrefix, "/e/")), 5u);
  auto r = next->Append(Batch(2, "next"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, 6u);
  EXPECT_EQ(Seqs(*reader), Range(1, 7));
}

// The same writer, after a failed split append (the network, not a kill),
// clears what it staged before its next append.
TEST(EtcdStore, AFailedSplitAppendIsClearedByTheNextOne) {
  auto kv = std::make_shared<CountingKv>();
  auto store = OpenStore(kv);
  ASSERT_NE(store, nullptr);
  kv->DieAfter(1);
  EXPECT_FALSE(store->Append(Batch(200, "lost")).ok());
  kv->Revive();
  EXPECT_EQ(store->LastSeq(), 0u);
  ASSERT_TRUE(store->Append(Batch(1, "kept")).ok());
  EXPECT_EQ(kv->KeysUnder(StrCat(kPrefix, "/e/")), 1u);
  EXPECT_EQ(Seqs(*store), Range(1, 1));
}

// A 13 MB catalog's content exceeds etcd's request limit: it is stored in
// parts and read back whole; a missing part is DataLoss, never a short file.
TEST(EtcdStore, ContentLargerThanARequestIsStoredInParts) {
  auto kv = std::make_shared<CountingKv>();
  auto store = OpenStore(kv);
  ASSERT_NE(store, nullptr);
  std::string catalog;
  for (int i = 0; catalog.size() < 13u * 1000 * 1000; ++i)
    StrAppend(&catalog, "{\"schema\":\"olm.bundle\",\"n\":", i, "}\n");
  records::EventRecord e;
  e.type = records::EventType::kContent;
  e.content_name = "catalog";
  e.content_files = {{"catalog.json", catalog}};
  int before = kv->txns();
  ASSERT_TRUE(store->Append(std::vector{e}).ok());
  EXPECT_GE(kv->txns() - before, 13);  // a part (at most 1 MiB) per transaction
  EXPECT_GE(kv->KeysUnder(StrCat(kPrefix, "/p/c/")), 13u);
  std::string digest = records::ContentDigest(e.content_files);
  auto got = store->GetContent(digest);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 1u);
  EXPECT_TRUE((*got)[0].second == catalog);

  // Stored once: the same files again add nothing, from this writer (it
  // remembers) or the next (it asks etcd).
  int again = kv->txns();
  ASSERT_TRUE(store->Append(std::vector{e}).ok());
  EXPECT_EQ(kv->txns() - again, 1);  // the event
  store = OpenStore(kv);
  ASSERT_NE(store, nullptr);
  again = kv->txns();
  ASSERT_TRUE(store->Append(std::vector{e}).ok());
  EXPECT_EQ(kv->txns() - again, 2);  // the existence check, then the event

  auto parts = kv->KeysUnder(StrCat(kPrefix, "/p/c/"));
  std::string dir = StrCat(kPrefix, "/p/c/", digest, "/");
  auto listing = kv->Range({dir, KeyRange::PrefixEnd(dir)}, 0);
  ASSERT_TRUE(listing.ok());
  ASSERT_EQ(listing->kvs.size(), parts);
  kv->Delete(listing->kvs[1].key);  // the second part
  auto damaged = store->GetContent(digest);
  EXPECT_EQ(damaged.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(damaged.status().message(), HasSubstr(StrCat("part 2 of ", parts, " is missing")));
}

TEST(EtcdStore, ADamagedOrMissingEventIsDataLossNamingItsSeq) {
  auto kv = std::make_shared<CountingKv>();
  auto store = OpenStore(kv);
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Append(Batch(4, "d")).ok());
  std::string key = StrCat(kPrefix, "/e/0000000000000002");
  std::string value = kv->Get(key);
  value[value.size() / 2] ^= 0x5a;
  kv->Put(key, value);
  auto it = store->ReadEvents(1, kEndOfLog);
  ASSERT_TRUE(it.ok());
  ASSERT_TRUE((*it)->Valid());
  (*it)->Next();
  EXPECT_FALSE((*it)->Valid());
  EXPECT_EQ((*it)->status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT((*it)->status().message(), HasSubstr("seq 2"));

  kv->Delete(key);
  auto gap = store->ReadEvents(1, kEndOfLog);
  ASSERT_TRUE(gap.ok());
  (*gap)->Next();
  EXPECT_EQ((*gap)->status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT((*gap)->status().message(), HasSubstr("seq 2 is missing from the log (next is 3)"));
  kv->Delete(StrCat(kPrefix, "/e/0000000000000004"));
  auto tail = store->ReadEvents(3, kEndOfLog);
  ASSERT_TRUE(tail.ok());
  (*tail)->Next();
  EXPECT_THAT((*tail)->status().message(), HasSubstr("seq 4 is missing from the log"));
}

// A second writer takes the next term; the first is fenced from then on
// and writes nothing more, while it can still read.
TEST(EtcdStore, ASecondWriterFencesTheFirst) {
  auto kv = std::make_shared<CountingKv>();
  auto a = OpenStore(kv);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->term(), 1u);
  ASSERT_TRUE(a->Append(Batch(2, "a")).ok());
  auto b = OpenStore(kv);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->term(), 2u);

  auto fenced = a->Append(Batch(1, "late"));
  EXPECT_EQ(fenced.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(fenced.status().message(), HasSubstr("fenced: term 1 is not the current term 2"));
  records::ActionRecord action;
  action.cause_seq = 1;
  action.verb = "create";
  EXPECT_EQ(a->AppendActions(std::vector{action}).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(a->PutSnapshot(2, "s").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(a->PutAux("x", "y").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(Seqs(*a), Range(1, 2));

  auto r = b->Append(Batch(1, "b"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, 3u);
}

// Two writers race on one prefix: each seq is won by exactly one of them,
// nothing is lost or given twice, and the one that lost its term stops.
TEST(EtcdStore, WritersRacingOnOnePrefixNeverShareASeq) {
  auto kv = std::make_shared<MemoryKv>();
  auto a = OpenStore(kv);
  ASSERT_NE(a, nullptr);
  std::atomic<bool> started{false};
  std::vector<uint64_t> a_firsts;
  absl::Status a_end;
  std::thread t([&] {
    for (int i = 0; i < 100000; ++i) {
      auto r = a->Append(Batch(3, StrCat("a", i, "-")));
      started = true;
      if (!r.ok()) {
        a_end = r.status();
        return;
      }
      a_firsts.push_back(*r);
    }
  });
  while (!started) std::this_thread::yield();
  auto b = OpenStore(kv);
  ASSERT_NE(b, nullptr);
  std::vector<uint64_t> b_firsts;
  for (int i = 0; i < 20; ++i) {
    auto r = b->Append(Batch(2, StrCat("b", i, "-")));
    ASSERT_TRUE(r.ok()) << r.status();
    b_firsts.push_back(*r);
  }
  t.join();
  EXPECT_EQ(a_end.code(), absl::StatusCode::kFailedPrecondition) << a_end;
  ASSERT_FALSE(a_firsts.empty());
  // A's batches all precede B's, and together they are the whole log.
  EXPECT_LT(a_firsts.back() + 2, b_firsts.front());
  EXPECT_EQ(b_firsts.front(), a_firsts.back() + 3);
  EXPECT_EQ(b->LastSeq(), a_firsts.size() * 3 + 40);
  EXPECT_EQ(Seqs(*b), Range(1, b->LastSeq()));
}

// A reader writes nothing (not even on an empty prefix), cannot append,
// and its listeners fire for another process's appends.
TEST(EtcdStore, AReaderFollowsAnotherWritersAppends) {
  auto kv = std::make_shared<CountingKv>();
  auto reader = OpenStore(kv, EtcdStoreOptions::Mode::kRead);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(kv->txns(), 0);
  EXPECT_EQ(kv->KeysUnder(StrCat(kPrefix, "/")), 0u);
  EXPECT_EQ(reader->LastSeq(), 0u);
  EXPECT_EQ(reader->Append(Batch(1, "no")).status().code(), absl::StatusCode::kFailedPrecondition);

  auto writer = OpenStore(kv);
  ASSERT_NE(writer, nullptr);
  auto later = OpenStore(kv, EtcdStoreOptions::Mode::kRead);
  ASSERT_NE(later, nullptr);
  std::vector<uint64_t> heard;
  later->Subscribe([&](uint64_t last) { heard.push_back(last); });
  ASSERT_TRUE(writer->Append(Batch(2, "w")).ok());
  ASSERT_TRUE(writer->Append(Batch(1, "w")).ok());
  EXPECT_EQ(heard, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(later->LastSeq(), 3u);
  EXPECT_EQ(Seqs(*later), Range(1, 3));
  EXPECT_EQ(Seqs(*reader), Range(1, 3));  // opened on an empty prefix, reads what came since
  EXPECT_EQ(writer->term(), 1u);          // readers took no term
}

TEST(EtcdStore, APrefixThatIsNotARecordStoreIsRefusedAndLeftAlone) {
  auto kv = std::make_shared<CountingKv>();
  kv->Put(StrCat(kPrefix, "/registry/pods/x"), "{}");
  EtcdStoreOptions o;
  o.prefix = kPrefix;
  auto s = EtcdStore::Open(kv, o);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.status().message(),
              HasSubstr("logs/prod/ holds keys that are not a recon store (logs/prod/registry/pods/x)"));
  EXPECT_EQ(kv->KeysUnder(StrCat(kPrefix, "/")), 1u);

  auto newer = std::make_shared<CountingKv>();
  newer->Put(StrCat(kPrefix, "/format"), "recon-store-etcd-2");
  auto n = EtcdStore::Open(newer, o);
  EXPECT_EQ(n.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(
      n.status().message(),
      HasSubstr("holds a store of format \"recon-store-etcd-2\"; this recon reads recon-store-etcd-1"));
  EXPECT_EQ(newer->KeysUnder(StrCat(kPrefix, "/")), 1u);
}

// A snapshot larger than a request is stored in parts; replacing it drops
// the old parts in the transaction that commits the new one.
TEST(EtcdStore, ALargeSnapshotIsReplacedWholeAndItsOldPartsDropped) {
  auto kv = std::make_shared<CountingKv>();
  auto store = OpenStore(kv);
  ASSERT_NE(store, nullptr);
  std::string big(3 * 1024 * 1024 + 17, 's');
  ASSERT_TRUE(store->PutSnapshot(4, big).ok());
  EXPECT_EQ(kv->KeysUnder(StrCat(kPrefix, "/p/m/snapshot/")), 4u);
  std::string bigger(2 * 1024 * 1024 + 5, 't');
  ASSERT_TRUE(store->PutSnapshot(9, bigger).ok());
  EXPECT_EQ(kv->KeysUnder(StrCat(kPrefix, "/p/m/snapshot/")), 3u);
  auto snap = store->GetSnapshot();
  ASSERT_TRUE(snap.ok() && snap->has_value()) << snap.status();
  EXPECT_EQ((*snap)->seq, 9u);
  EXPECT_TRUE((*snap)->data == bigger);
  ASSERT_TRUE(store->PutSnapshot(10, "small").ok());
  EXPECT_EQ(kv->KeysUnder(StrCat(kPrefix, "/p/m/snapshot/")), 0u);
  EXPECT_EQ((*store->GetSnapshot())->data, "small");
}

// Compaction drops the keys below the cut and a new reader starts there.
TEST(EtcdStore, CompactionDropsKeysAndIsSeenByANewReader) {
  auto kv = std::make_shared<CountingKv>();
  auto store = OpenStore(kv);
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Append(Batch(10, "c")).ok());
  ASSERT_TRUE(store->PutSnapshot(6, "s").ok());
  ASSERT_TRUE(store->CompactPrefix(7).ok());
  EXPECT_EQ(kv->KeysUnder(StrCat(kPrefix, "/e/")), 4u);
  auto reader = OpenStore(kv, EtcdStoreOptions::Mode::kRead);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->FirstSeq(), 7u);
  EXPECT_EQ(reader->ReadEvents(3, kEndOfLog).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(Seqs(*store, 7), Range(7, 10));
}

// The writer compacts etcd's revision history every `compact_every`
// commits, up to its last commit; the log reads as before.
TEST(EtcdStore, TheWriterCompactsEtcdsHistoryBehindItsCommits) {
  auto kv = std::make_shared<CountingKv>();
  EtcdStoreOptions o;
  o.prefix = kPrefix;
  o.compact_every = 10;
  auto store = EtcdStore::Open(kv, o);
  ASSERT_TRUE(store.ok()) << store.status();
  for (int i = 0; i < 25; ++i) ASSERT_TRUE((*store)->Append(Batch(1, StrCat("c", i))).ok());
  ASSERT_EQ(kv->compactions().size(), 2u);
  EXPECT_LT(kv->compactions()[0], kv->compactions()[1]);
  EXPECT_EQ(Seqs(**store), Range(1, 25));
  auto reader = OpenStore(kv, EtcdStoreOptions::Mode::kRead);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(Seqs(*reader), Range(1, 25));
}

TEST(EtcdStore, PartsThatCannotFitARequestAreRefusedAtOpen) {
  EtcdStoreOptions o;
  o.prefix = kPrefix;
  o.part_bytes = 2 * 1024 * 1024;
  auto s = EtcdStore::Open(std::make_shared<MemoryKv>(), o);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace recon::store
