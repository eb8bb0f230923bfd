// EtcdStore on a real 3-member etcd cluster, beyond the contract suite
// (tests/store/, built into this program too): a member killed mid-way
// through appends, the whole cluster stopped and started, a reader in
// another client following a writer.
#include "store/etcd_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "adapters/etcd/etcd_kv.h"
#include "base/strings.h"
#include "records/codec.h"
#include "tests/adapters/etcd/shared_cluster.h"
#include "tests/lib/eventually.h"
#include "tests/store/test_util.h"

namespace recon::etcd {
namespace {

using store::EtcdStore;
using store::EtcdStoreOptions;
using ::testing::HasSubstr;

std::unique_ptr<EtcdStore> Open(std::shared_ptr<store::KvBackend> kv, const std::string& prefix,
                                EtcdStoreOptions::Mode mode = EtcdStoreOptions::Mode::kWrite) {
  EtcdStoreOptions o;
  o.prefix = prefix;
  o.mode = mode;
  auto s = EtcdStore::Open(std::move(kv), o);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? std::move(*s) : nullptr;
}

std::vector<records::EventRecord> Batch(uint64_t first, int n) {
  std::vector<records::EventRecord> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(store::testing::ConfigMapEvent(StrCat("cm", first + i), StrCat("seq-", first + i)));
  }
  return out;
}

// Every seq from 1 to `last` is there, in order, each the event written
// for it.
void ExpectWholeLog(store::EventStore& s, uint64_t last) {
  auto it = s.ReadEvents(1, store::kEndOfLog);
  ASSERT_TRUE(it.ok()) << it.status();
  uint64_t expected = 1;
  for (; (*it)->Valid(); (*it)->Next(), ++expected) {
    ASSERT_EQ((*it)->seq(), expected);
    auto e = records::DecodeEvent((*it)->payload());
    ASSERT_TRUE(e.ok()) << e.status();
    ASSERT_THAT(e->body, HasSubstr(StrCat("\"seq-", expected, "\""))) << "seq " << expected;
  }
  ASSERT_TRUE((*it)->status().ok()) << (*it)->status();
  EXPECT_EQ(expected - 1, last);
}

int MemberOf(const testing::EtcdCluster& cluster, const std::string& endpoint) {
  auto all = cluster.endpoints();
  for (int i = 0; i < cluster.size(); ++i) {
    if (all[i] == endpoint) return i;
  }
  return 0;
}

// The member the writer talks to is killed after 3,000 of 10,000 events:
// the appends go on through the others (at most a leader election's
// pause), and the log has every event once, in order.
TEST(EtcdStoreOnACluster, AMemberKilledMidwayThroughTenThousandEventsLosesNothing) {
  auto cluster = testing::SharedCluster();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  auto kv = testing::SharedKv();
  ASSERT_TRUE(kv.ok()) << kv.status();
  auto writer = Open(*kv, "faults/member-killed");
  ASSERT_NE(writer, nullptr);
  int killed = -1;
  for (uint64_t first = 1; first <= 10'000; first += 5) {
    if (first == 3'001) {
      killed = MemberOf(**cluster, (*kv)->current_endpoint());
      (*cluster)->Kill(killed);
    }
    auto r = writer->Append(Batch(first, 5));
    ASSERT_TRUE(r.ok()) << "events from " << first << ": " << r.status();
    ASSERT_EQ(*r, first);
  }
  EXPECT_NE((*kv)->current_endpoint(), (*cluster)->endpoints()[killed]);
  auto other = testing::SharedKv();
  ASSERT_TRUE(other.ok()) << other.status();
  auto reader = Open(*other, "faults/member-killed", EtcdStoreOptions::Mode::kRead);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->LastSeq(), 10'000u);
  ExpectWholeLog(*reader, 10'000);
  ASSERT_TRUE((*cluster)->Restart(killed).ok());
  ASSERT_TRUE((*cluster)->WaitHealthy().ok());
}

// Every member stopped: an append fails as unavailable (and commits
// nothing); once they are back, the same writer goes on from where it was.
TEST(EtcdStoreOnACluster, AllMembersStoppedThenStartedResumesWithNothingLost) {
  auto cluster = testing::SharedCluster();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  EtcdConfig config;
  config.endpoints = (*cluster)->endpoints();
  config.request_timeout_ms = 1'500;
  auto kv = EtcdKv::Connect(config);
  ASSERT_TRUE(kv.ok()) << kv.status();
  std::shared_ptr<store::KvBackend> shared(std::move(*kv));
  auto writer = Open(shared, "faults/all-stopped");
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(writer->Append(Batch(1, 10)).ok());
  for (int i = 0; i < (*cluster)->size(); ++i) (*cluster)->Kill(i);
  auto down = writer->Append(Batch(11, 5));
  EXPECT_EQ(down.status().code(), absl::StatusCode::kUnavailable) << down.status();
  EXPECT_THAT(down.status().message(), HasSubstr("no endpoint answered"));
  for (int i = 0; i < (*cluster)->size(); ++i) ASSERT_TRUE((*cluster)->Restart(i).ok());
  ASSERT_TRUE((*cluster)->WaitHealthy().ok());
  auto up = writer->Append(Batch(11, 5));
  ASSERT_TRUE(up.ok()) << up.status();
  EXPECT_EQ(*up, 11u);
  ExpectWholeLog(*writer, 15);
}

// A reader on another client hears each append of the writer through its
// watch on the head, and reads what was appended.
TEST(EtcdStoreOnACluster, AReaderInAnotherClientFollowsTheWriter) {
  auto wkv = testing::SharedKv();
  auto rkv = testing::SharedKv();
  ASSERT_TRUE(wkv.ok() && rkv.ok());
  auto writer = Open(*wkv, "follow");
  auto reader = Open(*rkv, "follow", EtcdStoreOptions::Mode::kRead);
  ASSERT_TRUE(writer && reader);
  std::atomic<uint64_t> heard{0};
  reader->Subscribe([&](uint64_t last) { heard = last; });
  ASSERT_TRUE(writer->Append(Batch(1, 3)).ok());
  ASSERT_TRUE(writer->Append(Batch(4, 2)).ok());
  ASSERT_TRUE(testlib::Eventually([&] { return heard.load() == 5; }));
  EXPECT_EQ(reader->LastSeq(), 5u);
  ExpectWholeLog(*reader, 5);
}

}  // namespace
}  // namespace recon::etcd
