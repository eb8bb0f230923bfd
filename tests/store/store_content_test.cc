// The EventStore contract on content: files stored once per digest, and
// Content events that name them (fixture: store_contract.h).
#include "tests/store/store_contract.h"

namespace recon::store::contract {
namespace {

using testing::ConfigMapEvent;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

TEST_P(StoreTest, ContentIsStoredOncePerDigest) {
  records::ContentFiles files = {{"ruby/b.json", "{\"b\":1}"}, {"ruby/a.json", "{\"a\":1}"}};
  const std::string digest = records::ContentDigest(files);
  ASSERT_EQ(Append({ContentEvent("samples/inventory", files)}), 1u);
  // The same files again (under another name, with the digest given): still one record.
  ASSERT_EQ(Append({ContentEvent("samples/other", files, digest), ConfigMapEvent("x", "y")}), 2u);
  // A reference by digest alone.
  ASSERT_EQ(Append({ContentEvent("samples/inventory", {}, digest)}), 4u);
  for (uint64_t seq : {1, 2, 4}) {
    auto e = ReadEvent(*store_, seq);
    ASSERT_TRUE(e.ok()) << e.status();
    EXPECT_EQ(e->type, records::EventType::kContent);
    EXPECT_EQ(e->content_digest, digest) << "seq " << seq;
    EXPECT_TRUE(e->content_files.empty());  // files live in the content table
  }
  EXPECT_EQ(ContentRecords(), 1u);
  auto got = store_->GetContent(digest);
  ASSERT_TRUE(got.ok()) << got.status();
  // Sorted by path.
  EXPECT_THAT(*got, ElementsAre(Pair("ruby/a.json", "{\"a\":1}"), Pair("ruby/b.json", "{\"b\":1}")));
  EXPECT_EQ(store_->GetContent("sha256:nope").status().code(), absl::StatusCode::kNotFound);

  // Other files make a second record; an empty file set is content too.
  ASSERT_EQ(Append({ContentEvent("olm/catalog/ns/c", {{"index.yaml", "x"}})}), 5u);
  ASSERT_EQ(Append({ContentEvent("olm/catalog/ns/empty", {})}), 6u);
  EXPECT_EQ(ContentRecords(), 3u);
  // ... also when its digest is given (as JSONL import does for "files":{}).
  ASSERT_EQ(Append({ContentEvent("olm/catalog/ns/empty", {}, records::ContentDigest({}))}), 7u);
  MemoryStore fresh;
  EXPECT_TRUE(fresh.Append(std::vector{ContentEvent("e", {}, records::ContentDigest({}))}).ok());
  EXPECT_EQ(fresh.ContentCountForTest(), 1u);
}

TEST_P(StoreTest, ContentReferenceWithinOneBatch) {
  records::ContentFiles files = {{"f", "data"}};
  const std::string digest = records::ContentDigest(files);
  ASSERT_EQ(Append({ContentEvent("a", files), ContentEvent("b", {}, digest)}), 1u);
  EXPECT_EQ(ContentRecords(), 1u);
}

TEST_P(StoreTest, UnknownDigestFailsAndAppendsNothing) {
  Append({ConfigMapEvent("a", "1")});
  const std::string unknown = records::ContentDigest({{"never", "stored"}});
  auto r =
      store_->Append(std::vector{ConfigMapEvent("b", "2"), ContentEvent("samples/inventory", {}, unknown)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Sv(r.status().message()), HasSubstr(unknown));
  EXPECT_THAT(Sv(r.status().message()), HasSubstr("samples/inventory"));
  // The whole batch was refused, including the good event before the bad one.
  EXPECT_EQ(store_->LastSeq(), 1u);
  Reopen();
  EXPECT_EQ(store_->LastSeq(), 1u);
  EXPECT_THAT(Seqs(ReadAll(*store_)), ElementsAre(1));
  EXPECT_EQ(Append({ConfigMapEvent("c", "3")}), 2u);
}

TEST_P(StoreTest, DigestThatDoesNotMatchItsFilesIsRefused) {
  auto r = store_->Append(
      std::vector{ContentEvent("x", {{"f", "data"}}, records::ContentDigest({{"f", "other"}}))});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Sv(r.status().message()), HasSubstr("does not match"));
  auto nameless = store_->Append(std::vector{ContentEvent("", {{"f", "data"}})});
  EXPECT_EQ(nameless.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->LastSeq(), 0u);
  EXPECT_EQ(ContentRecords(), 0u);
}

}  // namespace
}  // namespace recon::store::contract
