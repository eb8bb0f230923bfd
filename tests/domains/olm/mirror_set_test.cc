// The mirror set of subscriptions (recon mirror-list's computation): the
// bundles from a subscription's CSV to its channel head, the head alone
// without one, the lowest start per channel, the subscription's own
// catalog first, and the errors that name the subscription.
#include "domains/olm/catalog/mirror_set.h"

#include <gtest/gtest.h>

#include <memory>

#include "cli/catalog_dir.h"

namespace recon::olm {
namespace {

constexpr char kTiny[] = R"(---
defaultChannel: stable
name: tiny
schema: olm.package
---
entries:
- name: tiny.v1.0.0
- name: tiny.v1.1.0
  replaces: tiny.v1.0.0
- name: tiny.v1.2.0
  replaces: tiny.v1.1.0
name: stable
package: tiny
schema: olm.channel
---
entries:
- name: tiny.v1.2.0
name: fast
package: tiny
schema: olm.channel
---
image: example.com/tiny@sha256:0000000000000000000000000000000000000000000000000000000000000000
name: tiny.v1.0.0
package: tiny
properties:
- type: olm.package
  value:
    packageName: tiny
    version: 1.0.0
relatedImages:
- image: example.com/helper:1
  name: helper
schema: olm.bundle
---
image: example.com/tiny:v1.1.0
name: tiny.v1.1.0
package: tiny
properties:
- type: olm.package
  value:
    packageName: tiny
    version: 1.1.0
schema: olm.bundle
---
image: example.com/tiny:v1.2.0
name: tiny.v1.2.0
package: tiny
properties:
- type: olm.package
  value:
    packageName: tiny
    version: 1.2.0
schema: olm.bundle
)";

class MirrorSetTest : public ::testing::Test {
 protected:
  const MirrorCatalog& Add(const std::string& name) {
    auto c = cli::LoadCatalogFiles(name, {{"catalog.yaml", kTiny}}, /*keep_payloads=*/true);
    EXPECT_TRUE(c.ok()) << c.status();
    loaded_.push_back(std::move(*c));
    views_.push_back({name, &loaded_.back()->cfg, &loaded_.back()->model});
    return views_.back();
  }
  static MirrorSubscription Sub(std::string package, std::string channel = "", std::string from = "",
                                std::string source = "") {
    return {"sub " + package, package, channel, from, source};
  }

  std::vector<std::unique_ptr<cli::LoadedCatalog>> loaded_;
  std::vector<MirrorCatalog> views_;
};

TEST_F(MirrorSetTest, FromTheInstalledCsvToTheChannelHead) {
  Add("cat");
  MirrorSet set;
  ASSERT_TRUE(ComputeMirrorSet({Sub("tiny", "stable", "tiny.v1.0.0")}, views_, &set).ok());
  EXPECT_EQ(set.images,
            (std::vector<std::string>{
                "example.com/tiny@sha256:0000000000000000000000000000000000000000000000000000000000000000",
                "example.com/helper:1", "example.com/tiny:v1.1.0", "example.com/tiny:v1.2.0"}));
  EXPECT_EQ(set.channels["cat"]["tiny"]["stable"], "1.0.0");
  EXPECT_TRUE(set.warnings.empty());
}

TEST_F(MirrorSetTest, WithoutACsvTheHeadOnlyOfTheDefaultChannel) {
  Add("cat");
  MirrorSet set;
  ASSERT_TRUE(ComputeMirrorSet({Sub("tiny")}, views_, &set).ok());
  EXPECT_EQ(set.images, std::vector<std::string>{"example.com/tiny:v1.2.0"});
  ASSERT_TRUE(set.channels["cat"]["tiny"].contains("stable"));
  EXPECT_EQ(set.channels["cat"]["tiny"]["stable"], "");
}

TEST_F(MirrorSetTest, TheLowestStartOfAChannelWins) {
  Add("cat");
  MirrorSet set;
  ASSERT_TRUE(ComputeMirrorSet({Sub("tiny", "stable", "tiny.v1.1.0"), Sub("tiny", "stable", "tiny.v1.0.0"),
                                Sub("tiny", "stable")},
                               views_, &set)
                  .ok());
  EXPECT_EQ(set.channels["cat"]["tiny"]["stable"], "1.0.0");
}

TEST_F(MirrorSetTest, TheSubscriptionsOwnCatalogFirst) {
  Add("olm/catalog/ns/a");
  Add("olm/catalog/ns/b");
  MirrorSet set;
  ASSERT_TRUE(ComputeMirrorSet({Sub("tiny", "", "", "ns/b")}, views_, &set).ok());
  EXPECT_FALSE(set.channels.contains("olm/catalog/ns/a"));
  EXPECT_TRUE(set.channels.contains("olm/catalog/ns/b"));
  set = MirrorSet();
  ASSERT_TRUE(ComputeMirrorSet({Sub("tiny", "", "", "ns/elsewhere")}, views_, &set).ok());
  EXPECT_TRUE(set.channels.contains("olm/catalog/ns/a")) << "then the catalogs in order";
}

TEST_F(MirrorSetTest, ErrorsNameTheSubscriptionAndKeepWhatCameBefore) {
  Add("cat");
  MirrorSet set;
  absl::Status s = ComputeMirrorSet({Sub("tiny"), Sub("nope")}, views_, &set);
  EXPECT_TRUE(absl::IsNotFound(s));
  EXPECT_EQ(s.message(), "sub nope: package \"nope\" not found in cat");
  EXPECT_EQ(set.images.size(), 1u);
  s = ComputeMirrorSet({Sub("tiny", "beta")}, views_, &set);
  EXPECT_EQ(s.message(), "sub tiny: package \"tiny\" has no channel \"beta\" (channels: fast, stable)");
  EXPECT_FALSE(ComputeMirrorSet({Sub("tiny", "fast", "tiny.v1.0.0")}, views_, &set).ok());
}

TEST(MirrorSubscriptionOf, ReadsPackageChannelCsvAndSource) {
  engine::Json sub = {
      {"metadata", {{"namespace", "ops"}, {"name", "t"}}},
      {"spec",
       {{"name", "tiny"}, {"channel", "fast"}, {"startingCSV", "tiny.v1.0.0"}, {"source", "community"}}},
      {"status", {{"installedCSV", "tiny.v1.1.0"}}}};
  auto s = MirrorSubscriptionOf(sub, "here");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->package, "tiny");
  EXPECT_EQ(s->channel, "fast");
  EXPECT_EQ(s->from, "tiny.v1.1.0") << "the installed CSV before the starting one";
  EXPECT_EQ(s->source, "ops/community") << "the subscription's namespace without sourceNamespace";
  sub["status"] = engine::Json::object();
  sub["spec"]["sourceNamespace"] = "openshift-marketplace";
  s = MirrorSubscriptionOf(sub, "here");
  EXPECT_EQ(s->from, "tiny.v1.0.0");
  EXPECT_EQ(s->source, "openshift-marketplace/community");
  sub["spec"].erase("name");
  EXPECT_EQ(MirrorSubscriptionOf(sub, "here").status().message(),
            "here: spec.name (the package) is required");
}

}  // namespace
}  // namespace recon::olm
