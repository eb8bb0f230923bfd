// MemoryKv keeps etcd v3's semantics (revisions, versions, compares on a
// missing key, request limits, watches): the EtcdStore built on KvBackend
// (store/FORMAT-etcd.md) runs its contract suite over it. The texts, codes
// and revision numbers below are what Debian's etcd-server 3.4.23 answered
// through its JSON gateway to the same requests (session 25, by hand; the
// etcd backend's own tests will run both side by side).
#include "store/memory_kv.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "store/etcd_keys.h"

namespace recon::store {
namespace {

using etcd_keys::ValueIs;
using etcd_keys::VersionIs;
std::vector<std::string> Keys(const RangeResult& r) {
  std::vector<std::string> out;
  for (const KeyValue& kv : r.kvs) out.push_back(kv.key);
  return out;
}

TEST(MemoryKv, RangesReadKeysInOrderByKeyPrefixOrToTheEnd) {
  MemoryKv kv;
  ASSERT_TRUE(kv.Txn({}, {TxnOp::Put("p/e/0002", "b"), TxnOp::Put("p/e/0001", "a"), TxnOp::Put("p/head", "2"),
                          TxnOp::Put("q/x", "other")})
                  .ok());
  auto one = kv.Range({"p/head", ""});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(Keys(*one), std::vector<std::string>{"p/head"});
  auto prefix = kv.Range({"p/e/", KeyRange::PrefixEnd("p/e/")});
  ASSERT_TRUE(prefix.ok());
  EXPECT_EQ(Keys(*prefix), (std::vector<std::string>{"p/e/0001", "p/e/0002"}));
  EXPECT_FALSE(prefix->more);
  auto limited = kv.Range({"p/", KeyRange::PrefixEnd("p/")}, 2);
  ASSERT_TRUE(limited.ok());
  EXPECT_EQ(Keys(*limited), (std::vector<std::string>{"p/e/0001", "p/e/0002"}));
  EXPECT_TRUE(limited->more);
  auto rest = kv.Range({"p/f", std::string(1, '\0')});
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(Keys(*rest), (std::vector<std::string>{"p/head", "q/x"}));
  auto none = kv.Range({"nothing", ""});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->kvs.empty());
}

TEST(MemoryKv, PrefixEndIsEtcdsRangeEnd) {
  EXPECT_EQ(KeyRange::PrefixEnd("a/"), "a0");
  EXPECT_EQ(KeyRange::PrefixEnd("a\xff"), "b");
  EXPECT_EQ(KeyRange::PrefixEnd("\xff\xff"), std::string(1, '\0'));
}

TEST(MemoryKv, EachWritingTransactionIsOneRevisionAndVersionsCountChanges) {
  MemoryKv kv;
  auto t1 = kv.Txn({}, {TxnOp::Put("a", "1"), TxnOp::Put("b", "1")});
  ASSERT_TRUE(t1.ok());
  EXPECT_EQ(t1->revision, 2);  // etcd starts at revision 1
  ASSERT_TRUE(kv.Txn({}, {TxnOp::Put("a", "2")}).ok());
  auto a = kv.Range({"a", ""});
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->kvs.size(), 1u);
  EXPECT_EQ(a->kvs[0].value, "2");
  EXPECT_EQ(a->kvs[0].create_revision, 2);
  EXPECT_EQ(a->kvs[0].mod_revision, 3);
  EXPECT_EQ(a->kvs[0].version, 2);
  // A transaction that writes nothing moves no revision.
  auto quiet = kv.Txn({ValueIs("a", "nope")}, {TxnOp::Put("a", "3")});
  ASSERT_TRUE(quiet.ok());
  EXPECT_FALSE(quiet->succeeded);
  EXPECT_EQ(quiet->revision, 3);
  // Deleted and created again: a new life, version 1.
  ASSERT_TRUE(kv.Txn({}, {TxnOp::Delete("a")}).ok());
  ASSERT_TRUE(kv.Txn({}, {TxnOp::Put("a", "again")}).ok());
  a = kv.Range({"a", ""});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->kvs[0].version, 1);
  EXPECT_EQ(a->kvs[0].create_revision, 5);
}

TEST(MemoryKv, ComparesChooseTheBranchAndAMissingKeysValueNeverMatches) {
  MemoryKv kv;
  // Create-if-absent, the store's idiom for content and the format key.
  auto first = kv.Txn({VersionIs("fmt", 0)}, {TxnOp::Put("fmt", "recon-store-etcd-1")});
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(first->succeeded);
  auto second = kv.Txn({VersionIs("fmt", 0)}, {TxnOp::Put("fmt", "other")}, {TxnOp::Put("lost", "1")});
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->succeeded);
  auto fmt = kv.Range({"fmt", ""});
  ASSERT_TRUE(fmt.ok());
  EXPECT_EQ(fmt->kvs[0].value, "recon-store-etcd-1");
  EXPECT_EQ(kv.Range({"lost", ""})->kvs.size(), 1u);  // the failure branch ran
  // A value compare on a key that does not exist is false, even against "".
  auto missing = kv.Txn({ValueIs("absent", "")}, {TxnOp::Put("x", "1")});
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->succeeded);
  Compare greater = VersionIs("fmt", 0);
  greater.result = Compare::Result::kGreater;
  Compare less = ValueIs("fmt", "s");
  less.result = Compare::Result::kLess;
  auto both = kv.Txn({greater, less}, {TxnOp::Put("y", "1")});
  ASSERT_TRUE(both.ok());
  EXPECT_TRUE(both->succeeded);  // "recon-…" < "s"
}

TEST(MemoryKv, RequestsOverEtcdsLimitsAreRefusedWholeWithEtcdsWords) {
  MemoryKv kv;
  std::vector<TxnOp> many;
  for (int i = 0; i < 129; ++i) many.push_back(TxnOp::Put("k" + std::to_string(i), "v"));
  auto too_many = kv.Txn({}, many);
  EXPECT_EQ(too_many.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(too_many.status().message(), "etcdserver: too many operations in txn request");
  many.pop_back();
  EXPECT_TRUE(kv.Txn({}, many).ok());  // 128 is allowed
  auto big = kv.Txn({}, {TxnOp::Put("big", std::string(1536 * 1024, 'x'))});
  EXPECT_EQ(big.status().message(), "etcdserver: request is too large");
  auto twice = kv.Txn({}, {TxnOp::Put("d", "1"), TxnOp::Put("d", "2")});
  EXPECT_EQ(twice.status().message(), "etcdserver: duplicate key given in txn request");
  auto overlap = kv.Txn({}, {TxnOp::Put("k1", "1"), TxnOp::Delete("k", KeyRange::PrefixEnd("k"))});
  EXPECT_EQ(overlap.status().message(), "etcdserver: duplicate key given in txn request");
  // Nothing of a refused request was written.
  EXPECT_TRUE(kv.Range({"big", ""})->kvs.empty());
  EXPECT_TRUE(kv.Range({"d", ""})->kvs.empty());
  EXPECT_EQ(kv.Range({"k", KeyRange::PrefixEnd("k")})->kvs.size(), 128u);
}

TEST(MemoryKv, AWatchSeesEachChangeOfItsKeyOnly) {
  MemoryKv kv;
  std::vector<std::string> seen;
  uint64_t id = kv.Watch("head", [&](const KeyValue& v) {
    seen.push_back(v.version == 0 ? "(deleted)" : v.value);
  });
  ASSERT_TRUE(kv.Txn({}, {TxnOp::Put("head", "1"), TxnOp::Put("other", "x")}).ok());
  ASSERT_TRUE(kv.Txn({}, {TxnOp::Put("other", "y")}).ok());
  ASSERT_TRUE(kv.Txn({ValueIs("head", "0")}, {TxnOp::Put("head", "never")}).ok());
  ASSERT_TRUE(kv.Txn({}, {TxnOp::Put("head", "2")}).ok());
  ASSERT_TRUE(kv.Txn({}, {TxnOp::Delete("a", std::string(1, '\0'))}).ok());
  kv.Unwatch(id);
  ASSERT_TRUE(kv.Txn({}, {TxnOp::Put("head", "3")}).ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"1", "2", "(deleted)"}));
}

TEST(MemoryKv, CompactionIsRefusedInTheFutureAndTwiceAtTheSameRevision) {
  MemoryKv kv;
  ASSERT_TRUE(kv.Txn({}, {TxnOp::Put("a", "1")}).ok());
  EXPECT_EQ(kv.Compact(9).code(), absl::StatusCode::kOutOfRange);
  EXPECT_TRUE(kv.Compact(2).ok());
  EXPECT_EQ(kv.Compact(2).message(), "etcdserver: mvcc: required revision has been compacted");
  auto st = kv.Status();
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->revision, 2);
  EXPECT_EQ(st->db_size_in_use, 2);
}

}  // namespace
}  // namespace recon::store
