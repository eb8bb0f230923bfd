// Golden tests on the real catalogs in datasets/olm.
#include <gtest/gtest.h>

#include <filesystem>

#include "base/strings.h"
#include "domains/olm/catalog/graph.h"
#include "domains/olm/catalog/loader.h"
#include "domains/olm/catalog/model.h"
#include "io/disk_file_source.h"
#include "io/thread_pool_executor.h"

namespace recon::olm {
namespace {

std::string DataDir(const char* sub) { return StrCat(RECON_SOURCE_DIR, "/datasets/olm/", sub); }

struct Loaded {
  DeclarativeConfig cfg;
  Model model;
  ErrorNode errors;
};

std::unique_ptr<Loaded> LoadDir(const char* sub) {
  std::string dir = DataDir(sub);
  if (!std::filesystem::exists(dir)) return nullptr;
  io::DiskFileSource src(dir);
  io::ThreadPoolExecutor pool(2);
  LoadOptions opts;
  opts.executor = &pool;
  opts.keep_payloads = false;
  auto cfg = LoadCatalog(src, opts);
  EXPECT_TRUE(cfg.ok()) << cfg.status();
  if (!cfg.ok()) return nullptr;
  auto l = std::make_unique<Loaded>();
  l->cfg = std::move(*cfg);
  l->model = BuildModel(l->cfg, &l->errors);
  return l;
}

#define LOAD_OR_SKIP(var, sub) \
  auto var = LoadDir(sub);     \
  if (!var) FAIL() << "real catalog data not found at " << DataDir(sub);

std::string Head(const Model& m, std::string_view pkg, std::string_view ch) {
  const ModelPackage* p = m.FindPackage(pkg);
  if (!p) return "no package";
  const ModelChannel* c = m.FindChannel(*p, ch);
  if (!c) return "no channel";
  auto h = ChannelHead(*c);
  return h.ok() ? *h : std::string(Sv(h.status().message()));
}

TEST(Golden, CommunityV419) {
  LOAD_OR_SKIP(l, "community-v4.19");
  EXPECT_EQ(l->cfg.files.size(), 37u);
  EXPECT_EQ(l->model.packages.size(), 37u);
  size_t channels = 0;
  for (const auto& p : l->model.packages) channels += p.channels.size();
  EXPECT_EQ(channels, 81u);
  EXPECT_EQ(l->cfg.bundles.size(), 757u);
  EXPECT_TRUE(l->errors.Empty()) << l->errors.Render();
  EXPECT_EQ(Head(l->model, "kube-green", "alpha"), "kube-green.v0.7.1");
  // Every bundle version read as written (YAML 1.1 would turn 1.10 into 1.1).
  for (const auto& b : l->model.bundles) EXPECT_TRUE(b.version.has_value()) << b.blob->name;
  // Every channel of a valid catalog has a head.
  for (const auto& p : l->model.packages) {
    for (const auto& c : p.channels) EXPECT_TRUE(ChannelHead(c).ok()) << p.name << "/" << c.name;
  }
}

TEST(Golden, CommunityV419PayloadsAreSpans) {
  std::string dir = DataDir("community-v4.19");
  if (!std::filesystem::exists(dir)) FAIL() << "real catalog data not found at " << dir;
  io::DiskFileSource src(dir);
  auto cut = LoadCatalog(src);
  LoadOptions full_opts;
  full_opts.excise_payloads = false;
  auto full = LoadCatalog(src, full_opts);
  ASSERT_TRUE(cut.ok() && full.ok());
  ASSERT_EQ(cut->bundles.size(), full->bundles.size());
  size_t spans = 0;
  for (size_t i = 0; i < cut->bundles.size(); ++i) {
    const Bundle &a = cut->bundles[i], &b = full->bundles[i];
    ASSERT_EQ(a.name, b.name);
    ASSERT_EQ(a.properties.size(), b.properties.size());
    EXPECT_EQ(a.has_objects, b.has_objects);
    for (size_t k = 0; k < a.properties.size(); ++k) {
      if (!a.properties[k].is_span) {
        EXPECT_EQ(a.properties[k].value, b.properties[k].value);
        continue;
      }
      ++spans;
      if (spans % 50 != 0) continue;  // spot-check: parse the span, compare with the full parse
      auto node = ParseSpan(*cut, a.properties[k].span);
      ASSERT_TRUE(node.ok()) << node.status();
      std::string json;
      AppendJson(&json, *node);
      EXPECT_EQ(json, b.properties[k].value) << a.name;
    }
  }
  EXPECT_GT(spans, 700u);
}

TEST(Golden, CommunityDerived) {
  LOAD_OR_SKIP(l, "community-derived");
  EXPECT_EQ(l->model.packages.size(), 289u);
  size_t channels = 0, entries = 0, replaces = 0, skips = 0, ranges = 0;
  for (const auto& p : l->model.packages) {
    channels += p.channels.size();
    for (const auto& c : p.channels) {
      for (const auto& b : c.bundles) {
        ++entries;
        replaces += !b.replaces.empty();
        skips += b.skips.size();
        ranges += !b.skip_range.empty();
      }
    }
  }
  EXPECT_EQ(channels, 534u);
  EXPECT_EQ(l->cfg.bundles.size(), 5494u);
  EXPECT_EQ(entries, 6959u);
  EXPECT_EQ(replaces, 6485u);
  EXPECT_EQ(ranges, 847u);
  EXPECT_GT(skips, 0u);
  EXPECT_TRUE(l->errors.Empty()) << l->errors.Render().substr(0, 4000);
}

TEST(Golden, CommunityDerivedUnprunedInvalidPackages) {
  LOAD_OR_SKIP(l, "community-derived-unpruned");
  ASSERT_FALSE(l->errors.Empty());
  std::string tree = l->errors.Render();
  for (const char* want : {"invalid package \"alibaba-cloud-csi-operator\":\n│   └── invalid channel "
                           "\"stable\":\n│       └── channel "
                           "contains one or more stranded bundles: alibaba-cloud-csi-operator.v0.1.10, "
                           "alibaba-cloud-csi-operator.v0.1.9",
                           "invalid package \"camel-k\":\n│   └── invalid channel \"stable\":\n│       └── "
                           "multiple channel heads found in "
                           "graph: camel-k-operator.v1.12.0, camel-k-operator.v1.5.0",
                           "invalid skipRange \"<=v0.10.1\": Could not parse Range \"<=v0.10.1\": Could not "
                           "parse comparator \"<=v\" in "
                           "\"<=v0.10.1\""}) {
    EXPECT_NE(tree.find(want), std::string::npos) << want;
  }
  // 31 skipRanges that blang cannot parse (e.g. "<v1.14.0", curly quotes).
  size_t bad_ranges = 0;
  for (size_t pos = 0; (pos = tree.find("invalid skipRange", pos)) != std::string::npos; ++pos) ++bad_ranges;
  EXPECT_EQ(bad_ranges, 31u);
  // Deterministic: a second build renders byte-identically.
  ErrorNode again;
  BuildModel(l->cfg, &again);
  EXPECT_EQ(again.Render(), tree);
}

}  // namespace
}  // namespace recon::olm
