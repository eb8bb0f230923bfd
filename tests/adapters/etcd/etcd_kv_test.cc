// EtcdKv against a real 3-member etcd cluster, side by side with MemoryKv
// (its twin, which the store's own tests stand on): the same requests get
// the same answers, limits and errors included. Then what only a real
// cluster has: endpoints that stop answering, and bad configuration.
#include "adapters/etcd/etcd_kv.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "base/strings.h"
#include "store/etcd_keys.h"
#include "store/memory_kv.h"
#include "tests/adapters/etcd/shared_cluster.h"
#include "tests/lib/eventually.h"

namespace recon::etcd {
namespace {

using store::Compare;
using store::KeyRange;
using store::KvBackend;
using store::TxnOp;
using ::testing::HasSubstr;

std::shared_ptr<EtcdKv> Kv() {
  auto kv = testing::SharedKv();
  EXPECT_TRUE(kv.ok()) << kv.status();
  return kv.ok() ? *kv : nullptr;
}

using store::etcd_keys::ValueIs;
using store::etcd_keys::VersionIs;
// What a backend answers to one script of requests, revisions made
// relative to the first, errors as their text.
std::vector<std::string> Script(KvBackend& kv, const std::string& p) {
  std::vector<std::string> out;
  int64_t base = 0;
  auto txn = [&](const std::vector<Compare>& c, const std::vector<TxnOp>& s,
                 const std::vector<TxnOp>& f = {}) {
    auto r = kv.Txn(c, s, f);
    if (!r.ok()) {
      // etcd's own words; EtcdKv puts the endpoint before them.
      std::string m(r.status().message());
      return out.push_back(
          StrCat("txn error ", r.status().code(), " ", m.substr(std::min(m.find("etcdserver:"), m.size()))));
    }
    if (!base) base = r->revision - 1;
    out.push_back(StrCat("txn ", r->succeeded, " rev+", r->revision - base));
  };
  auto range = [&](const KeyRange& r, int64_t limit = 0) {
    auto got = kv.Range(r, limit);
    if (!got.ok()) return out.push_back(StrCat("range error ", got.status().message()));
    std::string line = StrCat("range more=", got->more, " rev+", got->revision - base);
    for (const auto& e : got->kvs) {
      StrAppend(&line, " ", e.key.substr(p.size()), "=", e.value, "@c", e.create_revision - base, "m",
                e.mod_revision - base, "v", e.version);
    }
    out.push_back(line);
  };
  txn({VersionIs(p + "k", 0)}, {TxnOp::Put(p + "k", "1"), TxnOp::Put(p + "l", "x")});
  txn({VersionIs(p + "k", 0)}, {TxnOp::Put(p + "k", "2")}, {TxnOp::Put(p + "m", "lost")});
  txn({ValueIs(p + "absent", "")}, {TxnOp::Put(p + "n", "no")});  // a value compare on a missing key fails
  txn({ValueIs(p + "k", "1")}, {TxnOp::Put(p + "k", "3"), TxnOp::Delete(p + "l")});
  range({p, KeyRange::PrefixEnd(p)});
  range({p, KeyRange::PrefixEnd(p)}, 1);
  txn({}, {TxnOp::Put(p + "d", "1"), TxnOp::Delete(p + "d")});  // a key twice
  std::vector<TxnOp> many;
  for (int i = 0; i < 129; ++i) many.push_back(TxnOp::Put(StrCat(p, "many/", i), "v"));
  txn({}, many);
  txn({}, {TxnOp::Put(p + "big", std::string(1536 * 1024 + 1, 'b'))});
  txn({}, {TxnOp::Delete(p + "a", p + "z")});
  range({p, KeyRange::PrefixEnd(p)});
  return out;
}

TEST(EtcdKv, AnswersAsItsInMemoryTwin) {
  auto kv = Kv();
  ASSERT_NE(kv, nullptr);
  store::MemoryKv twin;
  std::vector<std::string> real = Script(*kv, "twin/");
  std::vector<std::string> mem = Script(twin, "twin/");
  EXPECT_EQ(real, mem);
}

TEST(EtcdKv, AWatchSeesEachChangeOfItsKeyUntilUnwatched) {
  auto kv = Kv();
  ASSERT_NE(kv, nullptr);
  std::mutex mu;
  std::vector<std::string> seen;
  uint64_t id = kv->Watch("watched/head", [&](const store::KeyValue& e) {
    std::lock_guard<std::mutex> l(mu);
    seen.push_back(StrCat(e.value, "/v", e.version));
  });
  ASSERT_TRUE(kv->Txn({}, {TxnOp::Put("watched/head", "1")}).ok());
  ASSERT_TRUE(kv->Txn({}, {TxnOp::Put("watched/other", "x")}).ok());
  ASSERT_TRUE(kv->Txn({}, {TxnOp::Put("watched/head", "2")}).ok());
  ASSERT_TRUE(kv->Txn({}, {TxnOp::Delete("watched/head")}).ok());
  auto three = [&] {
    std::lock_guard<std::mutex> l(mu);
    return seen.size() >= 3;
  };
  ASSERT_TRUE(testlib::Eventually(three));
  kv->Unwatch(id);
  ASSERT_TRUE(kv->Txn({}, {TxnOp::Put("watched/head", "after")}).ok());
  // A later write on the same client is seen by a new watch, not the old.
  std::atomic<bool> later{false};
  uint64_t id2 = kv->Watch("watched/head", [&](const store::KeyValue&) { later = true; });
  ASSERT_TRUE(kv->Txn({}, {TxnOp::Put("watched/head", "again")}).ok());
  ASSERT_TRUE(testlib::Eventually([&] { return later.load(); }));
  kv->Unwatch(id2);
  std::lock_guard<std::mutex> l(mu);
  EXPECT_EQ(seen, (std::vector<std::string>{"1/v1", "2/v2", "/v0"}));
}

// A member killed: calls go on through the others; a client that named
// only dead endpoints says which and why.
TEST(EtcdKv, CallsFailOverWhenAMemberDies) {
  auto cluster = testing::SharedCluster();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  auto kv = Kv();
  ASSERT_NE(kv, nullptr);
  ASSERT_TRUE(kv->Txn({}, {TxnOp::Put("failover/k", "before")}).ok());
  EXPECT_EQ(kv->current_endpoint(), (*cluster)->endpoints()[0]);
  (*cluster)->Kill(0);
  auto r = kv->Txn({}, {TxnOp::Put("failover/k", "after")});
  EXPECT_TRUE(r.ok()) << r.status();
  EXPECT_NE(kv->current_endpoint(), (*cluster)->endpoints()[0]);
  auto got = kv->Range({"failover/k", ""});
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->kvs.size(), 1u);
  EXPECT_EQ(got->kvs[0].value, "after");

  EtcdConfig dead;
  dead.endpoints = {(*cluster)->endpoints()[0]};
  dead.request_timeout_ms = 1'000;
  auto refused = EtcdKv::Connect(dead);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(refused.status().message(),
              HasSubstr(StrCat("no endpoint answered (", dead.endpoints[0], ": ")));

  ASSERT_TRUE((*cluster)->Restart(0).ok());
  ASSERT_TRUE((*cluster)->WaitHealthy().ok());
}

TEST(EtcdKv, BadConfigurationIsAClearError) {
  auto cluster = testing::SharedCluster();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  EtcdConfig config;
  config.endpoints = {(*cluster)->endpoints()[1]};
  config.user = "recon";
  config.password = "s3cret-planted";
  auto auth = EtcdKv::Connect(config);  // authentication is not enabled on this cluster
  ASSERT_FALSE(auth.ok());
  EXPECT_THAT(auth.status().message(), HasSubstr("authenticating as etcd user recon"));
  EXPECT_THAT(std::string(auth.status().message()), ::testing::Not(HasSubstr("s3cret-planted")));
  EXPECT_EQ(config.Describe(), StrCat("etcd ", config.endpoints[0], " (user recon)"));

  EtcdConfig tls;
  tls.endpoints = {StrCat("https://127.0.0.1:", (*cluster)->endpoints()[1].substr(17))};
  tls.request_timeout_ms = 1'000;
  auto plain = EtcdKv::Connect(tls);  // the member speaks plain HTTP
  EXPECT_FALSE(plain.ok());
  EXPECT_THAT(plain.status().message(), HasSubstr(tls.endpoints[0]));
}

TEST(EtcdUrl, ParsesEndpointsAndPrefix) {
  auto u = ParseEtcdUrl("etcd://10.0.0.1:2379,10.0.0.2:2379/recon/prod/", false);
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ(u->endpoints, (std::vector<std::string>{"http://10.0.0.1:2379", "http://10.0.0.2:2379"}));
  EXPECT_EQ(u->prefix, "recon/prod");
  auto t = ParseEtcdUrl("etcd://h:1/p", true);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->endpoints[0], "https://h:1");
  for (const char* bad : {"http://h:1/p", "etcd://h:1", "etcd://h:1/", "etcd://h/p", "etcd://h:x/p",
                          "etcd://user:pw@h:1/p", "etcd://h:1,/p"}) {
    auto r = ParseEtcdUrl(bad, false);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(r.status().message(), HasSubstr("expected etcd://HOST:PORT[,HOST:PORT...]/PREFIX")) << bad;
    EXPECT_THAT(r.status().message(), ::testing::Not(HasSubstr("pw@"))) << bad;
  }
}

}  // namespace
}  // namespace recon::etcd
