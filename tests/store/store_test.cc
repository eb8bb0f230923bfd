// The EventStore contract, run against MemoryStore, RocksDbStore and
// EtcdStore (over MemoryKv, the twin of an etcd cluster; adapters_etcd_tests
// builds this file again to run it on a real cluster). The fixture:
// store_contract.h; the content tests: store_content_test.cc.
#include "tests/store/store_contract.h"

namespace recon::store::contract {
namespace {

using testing::ConfigMapEvent;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

TEST_P(StoreTest, EmptyStore) {
  EXPECT_EQ(store_->LastSeq(), 0u);
  EXPECT_EQ(store_->FirstSeq(), 1u);
  EXPECT_TRUE(ReadAll(*store_).empty());
  EXPECT_EQ(ReadEvent(*store_, 1).status().code(), absl::StatusCode::kNotFound);
  auto snap = store_->GetSnapshot();
  ASSERT_TRUE(snap.ok());
  EXPECT_FALSE(snap->has_value());
}

TEST_P(StoreTest, SeqsAreDenseFromOneAndAppendReturnsTheFirst) {
  EXPECT_EQ(Append({ConfigMapEvent("a", "m1"), ConfigMapEvent("b", "m2"), ConfigMapEvent("c", "m3")}), 1u);
  EXPECT_EQ(Append({ConfigMapEvent("d", "m4")}), 4u);
  EXPECT_EQ(Append({ConfigMapEvent("e", "m5"), ConfigMapEvent("f", "m6")}), 5u);
  EXPECT_EQ(store_->LastSeq(), 6u);
  EXPECT_EQ(store_->FirstSeq(), 1u);
  // An empty batch assigns nothing.
  EXPECT_EQ(store_->Append({}).value_or(0), 7u);
  EXPECT_EQ(store_->LastSeq(), 6u);

  auto all = ReadAll(*store_);
  EXPECT_THAT(Seqs(all), ElementsAre(1, 2, 3, 4, 5, 6));
  // The stored payload carries the seq it was given and the body verbatim.
  for (const auto& [seq, payload] : all) {
    uint64_t stored_seq = 0;
    auto e = records::DecodeEvent(payload, &stored_seq);
    ASSERT_TRUE(e.ok()) << e.status();
    EXPECT_EQ(stored_seq, seq);
    EXPECT_THAT(e->body, HasSubstr(recon::StrCat("\"m", seq, "\"")));
  }
}

TEST_P(StoreTest, ReadEventsRanges) {
  std::vector<records::EventRecord> batch;
  for (int i = 1; i <= 10; ++i)
    batch.push_back(ConfigMapEvent(recon::StrCat("cm", i), recon::StrCat("m", i), i));
  ASSERT_EQ(Append(batch), 1u);
  EXPECT_THAT(Seqs(ReadAll(*store_, 3, 5)), ElementsAre(3, 4, 5));
  EXPECT_THAT(Seqs(ReadAll(*store_, 9)), ElementsAre(9, 10));
  EXPECT_THAT(Seqs(ReadAll(*store_, 10, 10)), ElementsAre(10));
  EXPECT_THAT(Seqs(ReadAll(*store_, 0, 2)), ElementsAre(1, 2));  // 0 means "from the start"
  EXPECT_TRUE(ReadAll(*store_, 11).empty());
  EXPECT_TRUE(ReadAll(*store_, 6, 5).empty());
  auto e = ReadEvent(*store_, 7);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->time_ns, 7);
  EXPECT_EQ(e->object.name, "cm7");
  EXPECT_EQ(e->object.kind, "ConfigMap");
  EXPECT_EQ(ReadEvent(*store_, 11).status().code(), absl::StatusCode::kNotFound);
}

TEST_P(StoreTest, EveryEventTypeRoundTrips) {
  std::vector<records::EventRecord> in;
  in.push_back(ConfigMapEvent("a", "x", -5));  // before the epoch
  records::EventRecord timer;
  timer.type = records::EventType::kTimer;
  timer.timer = "samples/reimport";
  in.push_back(timer);
  records::EventRecord probe;
  probe.type = records::EventType::kProbe;
  probe.probe = {"aro/internet/master", "https://management.azure.com/", false, std::nullopt, "timeout", ""};
  in.push_back(probe);
  probe.probe = {"aro/serviceprincipal", "https://graph", true, 200, "", R"({"aud":"x"})"};
  in.push_back(probe);
  records::EventRecord result;
  result.type = records::EventType::kActionResult;
  result.action_result = {"12.0", false, 409, "Conflict"};
  in.push_back(result);
  records::EventRecord cluster;
  cluster.type = records::EventType::kCluster;
  cluster.cluster_facts = R"({"ipv6":false})";
  in.push_back(cluster);
  ASSERT_EQ(Append(in), 1u);
  Reopen();
  for (uint64_t seq = 1; seq <= in.size(); ++seq) {
    auto e = ReadEvent(*store_, seq);
    ASSERT_TRUE(e.ok()) << e.status();
    const records::EventRecord& want = in[seq - 1];
    EXPECT_EQ(e->type, want.type);
    EXPECT_EQ(e->time_ns, want.time_ns);
    EXPECT_EQ(e->body, want.body);
    EXPECT_EQ(e->timer, want.timer);
    EXPECT_EQ(e->probe.name, want.probe.name);
    EXPECT_EQ(e->probe.ok, want.probe.ok);
    EXPECT_EQ(e->probe.status, want.probe.status);
    EXPECT_EQ(e->probe.detail, want.probe.detail);
    EXPECT_EQ(e->probe.data, want.probe.data);
    EXPECT_EQ(e->action_result.action, want.action_result.action);
    EXPECT_EQ(e->action_result.status, want.action_result.status);
    EXPECT_EQ(e->action_result.error, want.action_result.error);
    EXPECT_EQ(e->cluster_facts, want.cluster_facts);
  }
}

TEST_P(StoreTest, SubscribeAndUnsubscribe) {
  std::vector<uint64_t> seen_a, seen_b;
  uint64_t a = store_->Subscribe([&](uint64_t last) { seen_a.push_back(last); });
  uint64_t b = store_->Subscribe([&](uint64_t last) { seen_b.push_back(last); });
  EXPECT_NE(a, b);
  Append({ConfigMapEvent("a", "1"), ConfigMapEvent("b", "2")});
  Append({ConfigMapEvent("c", "3")});
  ASSERT_TRUE(store_->Append({}).ok());  // nothing new: no call
  store_->Unsubscribe(a);
  Append({ConfigMapEvent("d", "4")});
  EXPECT_THAT(seen_a, ElementsAre(2, 3));
  EXPECT_THAT(seen_b, ElementsAre(2, 3, 4));
  // A failed append notifies nobody.
  EXPECT_FALSE(store_->Append(std::vector{ContentEvent("x", {}, "sha256:unknown")}).ok());
  EXPECT_THAT(seen_b, ElementsAre(2, 3, 4));
}

TEST_P(StoreTest, ActionsByCauseRange) {
  Append({ConfigMapEvent("a", "1"), ConfigMapEvent("b", "2"), ConfigMapEvent("c", "3")});
  ASSERT_TRUE(store_->AppendActions(std::vector{Action(1, 0, "create"), Action(1, 1, "update")}).ok());
  ASSERT_TRUE(store_->AppendActions(std::vector{Action(3, 0, "delete")}).ok());
  ASSERT_TRUE(
      store_->AppendActions(std::vector{Action(2, 0, "updateStatus"), Action(2, 1, "setTimer")}).ok());
  // Recomputing a cause replaces its action under the same key.
  ASSERT_TRUE(store_->AppendActions(std::vector{Action(2, 1, "probe")}).ok());
  Reopen();

  auto read = [&](uint64_t from, uint64_t to) {
    std::vector<std::string> out;
    auto it = store_->ReadActions(from, to);
    EXPECT_TRUE(it.ok()) << it.status();
    for (; (*it)->Valid(); (*it)->Next()) {
      auto a = records::DecodeAction((*it)->payload());
      EXPECT_TRUE(a.ok()) << a.status();
      EXPECT_EQ(a->cause_seq, (*it)->seq());
      EXPECT_EQ(a->index, (*it)->index());
      out.push_back(recon::StrCat((*it)->seq(), ".", (*it)->index(), ":", a->verb));
    }
    EXPECT_TRUE((*it)->status().ok()) << (*it)->status();
    return out;
  };
  EXPECT_THAT(read(1, kEndOfLog),
              ElementsAre("1.0:create", "1.1:update", "2.0:updateStatus", "2.1:probe", "3.0:delete"));
  EXPECT_THAT(read(2, 2), ElementsAre("2.0:updateStatus", "2.1:probe"));
  EXPECT_THAT(read(2, 3), ElementsAre("2.0:updateStatus", "2.1:probe", "3.0:delete"));
  EXPECT_THAT(read(4, kEndOfLog), ElementsAre());

  auto it = store_->ReadActions(1, 1);
  ASSERT_TRUE(it.ok());
  ASSERT_TRUE((*it)->Valid());
  auto a = records::DecodeAction((*it)->payload());
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->domain, "samples");
  EXPECT_EQ(a->object.name, "is-1-0");
  EXPECT_EQ(a->body, R"({"kind":"ImageStream"})");
}

TEST_P(StoreTest, SnapshotPutGetReplaces) {
  ASSERT_TRUE(store_->PutSnapshot(3, "state-at-3").ok());
  ASSERT_TRUE(store_->PutSnapshot(5, std::string("state\0at-5", 10)).ok());
  Reopen();
  auto snap = store_->GetSnapshot();
  ASSERT_TRUE(snap.ok()) << snap.status();
  ASSERT_TRUE(snap->has_value());
  EXPECT_EQ((*snap)->seq, 5u);
  EXPECT_EQ((*snap)->data, std::string("state\0at-5", 10));
}

TEST_P(StoreTest, CompactPrefixOnlyBehindASnapshot) {
  for (int i = 1; i <= 6; ++i) Append({ConfigMapEvent(recon::StrCat("cm", i), recon::StrCat("m", i))});
  ASSERT_TRUE(store_->AppendActions(std::vector{Action(2, 0, "create"), Action(4, 0, "update")}).ok());

  // No snapshot: refused, nothing dropped.
  auto refused = store_->CompactPrefix(4);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(store_->FirstSeq(), 1u);
  // A snapshot that is too old: refused too.
  ASSERT_TRUE(store_->PutSnapshot(2, "s2").ok());
  EXPECT_EQ(store_->CompactPrefix(4).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Seqs(ReadAll(*store_)), ElementsAre(1, 2, 3, 4, 5, 6));

  // Snapshot at 3: events and actions before 4 may go.
  ASSERT_TRUE(store_->PutSnapshot(3, "s3").ok());
  ASSERT_TRUE(store_->CompactPrefix(4).ok());
  EXPECT_EQ(store_->FirstSeq(), 4u);
  EXPECT_EQ(store_->LastSeq(), 6u);
  Reopen();
  EXPECT_EQ(store_->FirstSeq(), 4u);
  EXPECT_EQ(store_->LastSeq(), 6u);
  EXPECT_THAT(Seqs(ReadAll(*store_, 4)), ElementsAre(4, 5, 6));
  EXPECT_EQ(store_->ReadEvents(2, kEndOfLog).status().code(), absl::StatusCode::kOutOfRange);
  {
    auto it = store_->ReadActions(0, kEndOfLog);  // iterators must not outlive the store
    ASSERT_TRUE(it.ok());
    ASSERT_TRUE((*it)->Valid());
    EXPECT_EQ((*it)->seq(), 4u);
    (*it)->Next();
    EXPECT_FALSE((*it)->Valid());
    EXPECT_TRUE((*it)->status().ok());
  }

  // Appends continue the same numbering.
  EXPECT_EQ(Append({ConfigMapEvent("cm7", "m7")}), 7u);
  // Compacting past the end is clamped to the end.
  ASSERT_TRUE(store_->PutSnapshot(7, "s7").ok());
  ASSERT_TRUE(store_->CompactPrefix(kEndOfLog).ok());
  EXPECT_EQ(store_->FirstSeq(), 8u);
  EXPECT_EQ(store_->LastSeq(), 7u);
  Reopen();
  EXPECT_EQ(store_->FirstSeq(), 8u);
  EXPECT_EQ(store_->LastSeq(), 7u);
  EXPECT_EQ(Append({ConfigMapEvent("cm8", "m8")}), 8u);
}

TEST_P(StoreTest, ReopenKeepsEverything) {
  records::ContentFiles files = {{"a", "1"}};
  Append({ConfigMapEvent("a", "1"), ContentEvent("c", files)});
  ASSERT_TRUE(store_->AppendActions(std::vector{Action(1, 0, "create")}).ok());
  ASSERT_TRUE(store_->PutSnapshot(1, "snap").ok());
  auto before = ReadAll(*store_);
  Reopen();
  EXPECT_EQ(store_->LastSeq(), 2u);
  EXPECT_EQ(ReadAll(*store_), before);
  EXPECT_TRUE(store_->GetContent(records::ContentDigest(files)).ok());
  auto snap = store_->GetSnapshot();
  ASSERT_TRUE(snap.ok() && snap->has_value());
  EXPECT_EQ((*snap)->data, "snap");
  {
    auto it = store_->ReadActions(1, 1);
    ASSERT_TRUE(it.ok() && (*it)->Valid());
  }
  EXPECT_EQ(Append({ConfigMapEvent("b", "2")}), 3u);
  if (GetParam() == Kind::kRocksDb) {
    // Flushed to table files, then reopened: still the same bytes.
    ASSERT_TRUE(static_cast<RocksDbStore*>(store_.get())->Flush().ok());
    auto all = ReadAll(*store_);
    Reopen();
    EXPECT_EQ(ReadAll(*store_), all);
  }
}

TEST_P(StoreTest, PayloadsAreByteIdenticalToTheOtherStore) {
  TempDir other_dir;
  std::unique_ptr<EventStore> other;
  if (GetParam() == Kind::kMemory) {
    other = OpenRocks(other_dir.Sub("db"));
  } else {
    other = std::make_unique<MemoryStore>();
  }
  ASSERT_NE(other, nullptr);
  std::vector<std::vector<records::EventRecord>> batches = {
      {ConfigMapEvent("a", "1", 10), ConfigMapEvent("b", "2", 20, records::EventType::kModified)},
      {ContentEvent("inv", {{"z", "1"}, {"a", "2"}})},
      {ConfigMapEvent("c", "3", 30, records::EventType::kDeleted),
       ContentEvent("inv", {}, records::ContentDigest({{"a", "2"}, {"z", "1"}}))}};
  for (const auto& b : batches) {
    auto x = store_->Append(b);
    auto y = other->Append(b);
    ASSERT_TRUE(x.ok() && y.ok());
    EXPECT_EQ(*x, *y);
  }
  ASSERT_TRUE(store_->AppendActions(std::vector{Action(1, 0, "create")}).ok());
  ASSERT_TRUE(other->AppendActions(std::vector{Action(1, 0, "create")}).ok());
  auto mine = ReadAll(*store_);
  EXPECT_EQ(mine.size(), 5u);
  EXPECT_EQ(mine, ReadAll(*other));
  auto a = store_->ReadActions(0, kEndOfLog);
  auto b = other->ReadActions(0, kEndOfLog);
  ASSERT_TRUE(a.ok() && b.ok() && (*a)->Valid() && (*b)->Valid());
  EXPECT_EQ((*a)->payload(), (*b)->payload());
}

// Several threads append batches of different sizes at once. Every batch
// must get a contiguous run of seqs, and together they must cover 1..N.
TEST_P(StoreTest, ConcurrentAppendersGetDenseContiguousBatches) {
  constexpr int kThreads = 6;
  constexpr int kBatchesPerThread = 40;
  struct Done {
    uint64_t first;
    int thread, batch, size;
  };
  std::mutex mu;
  std::vector<Done> done;
  std::atomic<uint64_t> max_notified{0};
  store_->Subscribe([&](uint64_t last) {
    uint64_t cur = max_notified.load();
    while (last > cur && !max_notified.compare_exchange_weak(cur, last)) {
    }
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int b = 0; b < kBatchesPerThread; ++b) {
        int size = 1 + (t * 7 + b * 3) % 9;
        std::vector<records::EventRecord> batch;
        for (int i = 0; i < size; ++i) {
          batch.push_back(ConfigMapEvent(recon::StrCat("t", t), recon::StrCat("t", t, "-b", b, "-i", i)));
        }
        auto r = store_->Append(batch);
        ASSERT_TRUE(r.ok()) << r.status();
        std::lock_guard<std::mutex> l(mu);
        done.push_back({*r, t, b, size});
      }
    });
  }
  for (auto& th : threads) th.join();

  uint64_t total = 0;
  for (const auto& d : done) total += d.size;
  EXPECT_EQ(store_->LastSeq(), total);
  EXPECT_EQ(max_notified.load(), total);
  Reopen();
  auto all = ReadAll(*store_);
  ASSERT_EQ(all.size(), total);
  std::set<uint64_t> covered;
  for (const auto& d : done) {
    for (int i = 0; i < d.size; ++i) {
      uint64_t seq = d.first + i;
      EXPECT_TRUE(covered.insert(seq).second) << "seq " << seq << " given twice";
      ASSERT_GE(seq, 1u);
      ASSERT_LE(seq, total);
      // The event at first+i is this batch's i-th: batches are not interleaved.
      EXPECT_THAT(Marker(all[seq - 1].second),
                  HasSubstr(recon::StrCat("\"t", d.thread, "-b", d.batch, "-i", i, "\"")));
    }
  }
  EXPECT_EQ(covered.size(), total);
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].first, i + 1);
}

// Memory() counts what the store holds: a MemoryStore every record, a
// RocksDbStore its unflushed memtables, an EtcdStore nothing (the records
// are in etcd); compaction gives MemoryStore's back.
TEST_P(StoreTest, MemoryCountsWhatIsHeld) {
  uint64_t before = store_->Memory().memtables;
  std::vector<records::EventRecord> batch;
  for (int i = 0; i < 100; ++i)
    batch.push_back(ConfigMapEvent(recon::StrCat("m", i), std::string(1000, 'x')));
  ASSERT_TRUE(store_->Append(batch).ok());
  uint64_t held = store_->Memory().memtables;
  if (GetParam() == Kind::kEtcd) {
    EXPECT_EQ(held, 0u);
    return;
  }
  EXPECT_GE(held, before + 100u * 1000u);
  if (GetParam() == Kind::kMemory) {
    ASSERT_TRUE(store_->PutSnapshot(50, "s").ok());
    ASSERT_TRUE(store_->CompactPrefix(51).ok());
    EXPECT_LT(store_->Memory().memtables, held * 6 / 10);
  }
}

// Aux records: absent until written, replaced by each write, kept across
// a reopen, independent of the snapshot.
TEST_P(StoreTest, AuxRecordsAreReplacedAndKept) {
  auto none = store_->GetAux("unanswered");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_FALSE(none->has_value());
  ASSERT_TRUE(store_->PutAux("unanswered", "one").ok());
  ASSERT_TRUE(store_->PutAux("unanswered", std::string("two\0bytes", 9)).ok());
  ASSERT_TRUE(store_->PutAux("other", "x").ok());
  ASSERT_TRUE(store_->PutSnapshot(0, "snap").ok());
  Reopen();
  auto got = store_->GetAux("unanswered");
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ(**got, std::string("two\0bytes", 9));
  auto snap = store_->GetSnapshot();
  ASSERT_TRUE(snap.ok() && snap->has_value());
  EXPECT_EQ((*snap)->data, "snap");
}

}  // namespace

#ifdef RECON_STORE_CONTRACT_ON_ETCD
INSTANTIATE_TEST_SUITE_P(Stores, StoreTest, ::testing::Values(Kind::kEtcd),
                         [](const ::testing::TestParamInfo<Kind>&) { return "EtcdCluster"; });
#else
std::shared_ptr<KvBackend> ContractKv() { return std::make_shared<MemoryKv>(); }
INSTANTIATE_TEST_SUITE_P(Stores, StoreTest, ::testing::Values(Kind::kMemory, Kind::kRocksDb, Kind::kEtcd),
                         [](const ::testing::TestParamInfo<Kind>& info) {
                           return info.param == Kind::kMemory ? "Memory" : info.param == Kind::kRocksDb ? "RocksDb"
                                                                                                       : "EtcdOverMemoryKv";
                         });
#endif

}  // namespace recon::store::contract
