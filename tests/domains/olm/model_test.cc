#include "domains/olm/catalog/model.h"

#include <gtest/gtest.h>

#include "base/strings.h"
#include "domains/olm/catalog/graph.h"
#include "domains/olm/catalog/loader.h"
#include "domains/olm/catalog/render.h"

namespace recon::olm {
namespace {

// A tiny FBC writer for tests: entries are "name[>replaces][|skip,skip][@range]".
std::string Channel(std::string_view pkg, std::string_view name, std::vector<std::string> entries) {
  std::string out =
      StrCat(R"({"schema":"olm.channel","package":")", pkg, R"(","name":")", name, R"(","entries":[)");
  for (size_t i = 0; i < entries.size(); ++i) {
    std::string e = entries[i], range, skips, replaces;
    if (auto at = e.find('@'); at != std::string::npos) range = e.substr(at + 1), e = e.substr(0, at);
    if (auto bar = e.find('|'); bar != std::string::npos) skips = e.substr(bar + 1), e = e.substr(0, bar);
    if (auto gt = e.find('>'); gt != std::string::npos) replaces = e.substr(gt + 1), e = e.substr(0, gt);
    StrAppend(&out, i ? "," : "", R"({"name":")", e, "\"");
    if (!replaces.empty()) StrAppend(&out, R"(,"replaces":")", replaces, "\"");
    if (!skips.empty()) {
      out += R"(,"skips":[)";
      size_t k = 0;
      for (size_t pos = 0; pos <= skips.size();) {
        size_t c = skips.find(',', pos);
        if (c == std::string::npos) c = skips.size();
        StrAppend(&out, k++ ? "," : "", "\"", skips.substr(pos, c - pos), "\"");
        pos = c + 1;
      }
      out += "]";
    }
    if (!range.empty()) StrAppend(&out, R"(,"skipRange":")", range, "\"");
    out += "}";
  }
  return out + "]}\n";
}

std::string Bundle(std::string_view pkg, std::string_view name, std::string_view version,
                   std::string_view image = "img") {
  return StrCat(R"({"schema":"olm.bundle","package":")", pkg, R"(","name":")", name, R"(","image":")", image,
                R"(","properties":[{"type":"olm.package","value":{"packageName":")", pkg, R"(","version":")",
                version, R"("}}]})", "\n");
}

std::string Package(std::string_view name, std::string_view def = "stable") {
  return StrCat(R"({"schema":"olm.package","name":")", name, R"(","defaultChannel":")", def, R"("})", "\n");
}

struct Built {
  DeclarativeConfig cfg;
  Model model;
  ErrorNode errors;
  std::string tree;
};

std::unique_ptr<Built> Build(const std::string& text) {
  auto b = std::make_unique<Built>();
  engine::MemoryFileSource src({{"catalog.json", text}});
  auto cfg = LoadCatalog(src);
  EXPECT_TRUE(cfg.ok()) << cfg.status();
  if (!cfg.ok()) return b;
  b->cfg = std::move(*cfg);
  b->model = BuildModel(b->cfg, &b->errors);
  b->tree = b->errors.Empty() ? "" : b->errors.Render();
  return b;
}

std::string Bundles(std::string_view pkg, std::vector<std::pair<std::string, std::string>> nv) {
  std::string out;
  for (auto& [n, v] : nv) out += Bundle(pkg, n, v);
  return out;
}

TEST(Validate, ValidCatalogHasNoErrors) {
  auto b = Build(Package("a") + Channel("a", "stable", {"a.v1", "a.v2>a.v1"}) +
                 Bundles("a", {{"a.v1", "1.0.0"}, {"a.v2", "2.0.0"}}));
  EXPECT_EQ(b->tree, "");
}

TEST(Validate, CycleSelfReplace) {
  auto b = Build(Package("anakin") +
                 Channel("anakin", "stable", {"anakin.v0.0.4>anakin.v0.0.4", "anakin.v0.0.5>anakin.v0.0.4"}) +
                 Bundles("anakin", {{"anakin.v0.0.4", "0.0.4"}, {"anakin.v0.0.5", "0.0.5"}}));
  EXPECT_NE(b->tree.find("detected cycle in replaces chain of upgrade graph: anakin.v0.0.4 -> anakin.v0.0.4"),
            std::string::npos)
      << b->tree;
}

TEST(Validate, CycleLong) {
  auto b = Build(Package("anakin") +
                 Channel("anakin", "stable",
                         {"anakin.v0.0.1>anakin.v0.0.3", "anakin.v0.0.2>anakin.v0.0.1",
                          "anakin.v0.0.3>anakin.v0.0.2", "anakin.v0.0.4>anakin.v0.0.3"}) +
                 Bundles("anakin", {{"anakin.v0.0.1", "0.0.1"},
                                    {"anakin.v0.0.2", "0.0.2"},
                                    {"anakin.v0.0.3", "0.0.3"},
                                    {"anakin.v0.0.4", "0.0.4"}}));
  EXPECT_NE(
      b->tree.find("detected cycle in replaces chain of upgrade graph: anakin.v0.0.3 -> anakin.v0.0.2 -> "
                   "anakin.v0.0.1 -> anakin.v0.0.3"),
      std::string::npos)
      << b->tree;
}

TEST(Validate, StrandedWhenReplacesTargetIsSkipped) {
  auto b = Build(
      Package("anakin") +
      Channel("anakin", "stable",
              {"anakin.v0.0.1", "anakin.v0.0.2>anakin.v0.0.1", "anakin.v0.0.3>anakin.v0.0.2|anakin.v0.0.2"}) +
      Bundles("anakin",
              {{"anakin.v0.0.1", "0.0.1"}, {"anakin.v0.0.2", "0.0.2"}, {"anakin.v0.0.3", "0.0.3"}}));
  EXPECT_NE(b->tree.find("channel contains one or more stranded bundles: anakin.v0.0.1"), std::string::npos)
      << b->tree;
}

TEST(Validate, MultipleHeadsEvenIfSkipRangeCovers) {
  auto b = Build(Package("a") + Channel("a", "stable", {"a.v1", "a.v2@<2.0.0"}) +
                 Bundles("a", {{"a.v1", "1.0.0"}, {"a.v2", "2.0.0"}}));
  EXPECT_NE(b->tree.find("multiple channel heads found in graph: a.v1, a.v2"), std::string::npos) << b->tree;
}

TEST(Validate, NoHead) {
  auto b = Build(Package("a") + Channel("a", "stable", {"a.v1>a.v2", "a.v2>a.v1"}) +
                 Bundles("a", {{"a.v1", "1.0.0"}, {"a.v2", "2.0.0"}}));
  EXPECT_NE(b->tree.find("no channel head found in graph"), std::string::npos) << b->tree;
}

TEST(Validate, MissingDefaultChannelIsSynthesizedEmpty) {
  auto b = Build(Package("a", "fast") + Channel("a", "stable", {"a.v1"}) + Bundles("a", {{"a.v1", "1.0.0"}}));
  EXPECT_NE(b->tree.find("invalid channel \"fast\":\n        └── channel must contain at least one bundle"),
            std::string::npos)
      << b->tree;
  auto c = Build(Package("a", "") + Channel("a", "stable", {"a.v1"}) + Bundles("a", {{"a.v1", "1.0.0"}}));
  EXPECT_NE(c->tree.find("default channel must be set"), std::string::npos) << c->tree;
}

TEST(Validate, ConversionErrors) {
  auto b = Build(Package("a") + Package("a") + Package("foo.bar") + Channel("zz", "stable", {"x"}) +
                 Channel("a", "stable", {"a.v1", "a.v1"}) + Channel("a", "stable", {"a.v9"}) +
                 Bundles("a", {{"a.v1", "0.1.0.1"}, {"a.v2", "1.0.0"}}) + Bundle("nope", "n.v1", "1.0.0") +
                 Bundle("", "e.v1", "1.0.0"));
  for (const char* want :
       {"duplicate package \"a\"", "invalid package name \"foo.bar\": [must not contain dots]",
        "unknown package \"zz\" for channel \"stable\"", "package \"a\" has duplicate channel \"stable\"",
        "invalid package \"a\", channel \"stable\": duplicate entry \"a.v1\"",
        "error parsing bundle \"a.v1\" version \"0.1.0.1\": Invalid character(s) found in patch number "
        "\"0.1\"",
        "package \"a\", bundle \"a.v2\" not found in any channel entries",
        "unknown package \"nope\" for bundle \"n.v1\"", "package name must be set for bundle \"e.v1\""}) {
    EXPECT_NE(b->tree.find(want), std::string::npos) << want << "\n" << b->tree;
  }
}

TEST(Validate, BundleLevelErrors) {
  std::string no_prop = R"({"schema":"olm.bundle","package":"a","name":"a.v3","image":"img"})"
                        "\n";
  auto b = Build(Package("a") + Channel("a", "stable", {"a.v1", "a.v2>a.v1|x,", "a.v3>a.v2@>v1.0.0"}) +
                 Bundle("a", "a.v1", "1.0.0", "") + Bundle("a", "a.v2", "2.0.0") + no_prop);
  for (const char* want :
       {"bundle image must be set", "skip[1] is empty",
        "invalid skipRange \">v1.0.0\": Could not parse Range \">v1.0.0\": Could not parse comparator \">v\" "
        "in "
        "\">v1.0.0\"",
        "package \"a\" bundle \"a.v3\" must have exactly 1 \"olm.package\" property, found 0",
        "must be exactly one property with type \"olm.package\""}) {
    EXPECT_NE(b->tree.find(want), std::string::npos) << want << "\n" << b->tree;
  }
}

TEST(Validate, EntriesWithoutBundlesLastChannelQuirk) {
  auto b = Build(Package("a") + Channel("a", "beta", {"a.v0"}) +
                 Channel("a", "stable", {"a.v1", "a.v2>a.v1"}) + Bundles("a", {{"a.v1", "1.0.0"}}));
  EXPECT_NE(b->tree.find("no olm.bundle blobs found in package \"a\" for olm.channel entries [a.v2]"),
            std::string::npos)
      << b->tree;
  // a.v0 (first channel) is caught by bundle validation instead.
  EXPECT_NE(b->tree.find("invalid bundle \"a.v0\""), std::string::npos) << b->tree;
}

TEST(Validate, DuplicateVersionsAndDeprecations) {
  std::string dep =
      R"({"schema":"olm.deprecations","package":"a","entries":[{"reference":{"schema":"olm.bundle","name":"a.v9"},"message":"x"},{"reference":{"schema":"olm.channel","name":"stable"},"message":""}]})"
      "\n";
  auto b = Build(Package("a") + Channel("a", "stable", {"a.v1", "a.v2>a.v1"}) +
                 Bundles("a", {{"a.v1", "1.0.0"}, {"a.v2", "1.0.0"}}) + dep);
  EXPECT_NE(b->tree.find("duplicate versions found in bundles: [{1.0.0: [a.v1, a.v2]}]"), std::string::npos)
      << b->tree;
  EXPECT_NE(b->tree.find("cannot deprecate bundle \"a.v9\" for package \"a\": bundle not found"),
            std::string::npos);
  EXPECT_NE(b->tree.find("invalid deprecation: message must be set"), std::string::npos);
}

TEST(ErrorTree, SortedAndRenderedLikeUpstream) {
  auto b = Build(Package("b") + Channel("b", "stable", {"b.v1", "b.v2"}) +
                 Bundles("b", {{"b.v1", "1.0.0"}, {"b.v2", "2.0.0"}}) + Package("a") +
                 Channel("a", "z", {"a.v1", "a.v3"}) + Channel("a", "stable", {"a.v2"}) +
                 Bundles("a", {{"a.v1", "1.0.0"}, {"a.v2", "2.0.0"}, {"a.v3", "3.0.0"}}));
  const std::string& t = b->tree;
  EXPECT_EQ(t.find("invalid index:\n├── invalid package \"a\":"), 0u) << t;
  EXPECT_LT(t.find("invalid package \"a\""), t.find("invalid package \"b\""));
  EXPECT_NE(t.find("└── invalid package \"b\":\n    └── invalid channel \"stable\":\n        └── multiple "
                   "channel heads"),
            std::string::npos)
      << t;
}

TEST(Graph, HeadsEdgesAndVirtualNodes) {
  auto b =
      Build(Package("a") +
            Channel("a", "stable",
                    {"a.v1.0.0>a.v0.9.0", "a.v1.1.0>a.v1.0.0", "a.v1.2.0>a.v1.1.0|a.v1.1.5@>=1.0.0 <1.2.0"}) +
            Bundles("a", {{"a.v1.0.0", "1.0.0"}, {"a.v1.1.0", "1.1.0"}, {"a.v1.2.0", "1.2.0"}}));
  EXPECT_EQ(b->tree, "");
  const ModelChannel& c = b->model.packages[0].channels[0];
  EXPECT_EQ(*ChannelHead(c), "a.v1.2.0");
  ChannelGraph g = BuildChannelGraph(b->model, c);
  size_t replaces = 0, skips = 0, ranges = 0;
  for (const auto& e : g.edges) {
    replaces += e.kind == EdgeKind::kReplaces;
    skips += e.kind == EdgeKind::kSkips;
    ranges += e.kind == EdgeKind::kSkipRange;
  }
  EXPECT_EQ(replaces, 3u);
  EXPECT_EQ(skips, 1u);
  EXPECT_EQ(ranges, 2u);  // 1.0.0 and 1.1.0 are in range
  EXPECT_EQ(g.virtual_nodes, (std::vector<std::string_view>{"a.v0.9.0", "a.v1.1.5"}));
  EXPECT_NE(GraphDot(b->model, b->model.packages[0]).find("style=dashed, color=gray"), std::string::npos);
  EXPECT_NE(GraphMermaid(b->model, b->model.packages[0]).find("(virtual)"), std::string::npos);
}

TEST(Graph, UpgradePathPrefersNewestAndExplains) {
  auto b = Build(Package("a") +
                 Channel("a", "stable", {"a.v1", "a.v2>a.v1", "a.v3>a.v2|a.v1", "a.v4>a.v3@>=1.0.0 <3.0.0"}) +
                 Bundles("a", {{"a.v1", "1.0.0"}, {"a.v2", "2.0.0"}, {"a.v3", "3.0.0"}, {"a.v4", "4.0.0"}}));
  const ModelPackage& p = b->model.packages[0];
  auto steps = UpgradePath(b->model, p, p.channels[0], "a.v1");
  ASSERT_TRUE(steps.ok()) << steps.status();
  ASSERT_EQ(steps->size(), 1u);  // a.v4's skipRange covers 1.0.0: straight to the head
  EXPECT_EQ((*steps)[0].to, "a.v4");
  EXPECT_EQ((*steps)[0].why, EdgeKind::kSkipRange);
  auto s3 = UpgradePath(b->model, p, p.channels[0], "a.v3");
  ASSERT_TRUE(s3.ok());
  ASSERT_EQ(s3->size(), 1u);
  EXPECT_EQ((*s3)[0].why, EdgeKind::kReplaces);
  // A virtual predecessor: not in the catalog, reached by name only.
  auto b2 = Build(Package("z") + Channel("z", "stable", {"z.v2>z.v1", "z.v3>z.v2"}) +
                  Bundles("z", {{"z.v2", "2.0.0"}, {"z.v3", "3.0.0"}}));
  const ModelPackage& p2 = b2->model.packages[0];
  auto s = UpgradePath(b2->model, p2, p2.channels[0], "z.v1");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->size(), 2u);
}

TEST(Graph, ChannelOrderErrors) {
  auto b = Build(Package("a") + Channel("a", "stable", {"a.v1", "a.v2"}) +
                 Bundles("a", {{"a.v1", "1.0.0"}, {"a.v2", "2.0.0"}}));
  auto order = ChannelOrder(b->model.packages[0].channels[0], "a");
  ASSERT_FALSE(order.ok());
  EXPECT_NE(std::string(Sv(order.status().message()))
                .find("2 replacement chains were found in channel \"stable\" of package \"a\": a.v1, a.v2"),
            std::string::npos)
      << order.status();
}

TEST(Render, SortedOneBlobPerLineAndYaml) {
  auto b = Build(Bundle("a", "a.v2", "2.0.0") + Channel("a", "stable", {"a.v1", "a.v2>a.v1"}) +
                 Bundle("a", "a.v1", "1.0.0") + Package("a"));
  auto json = RenderJson(b->cfg);
  ASSERT_TRUE(json.ok());
  EXPECT_EQ(json->find(R"({"schema":"olm.package","name":"a")"), 0u) << *json;
  EXPECT_LT(json->find("\"name\":\"a.v1\",\"package\""), json->find("\"name\":\"a.v2\",\"package\""))
      << *json;
  auto yaml = RenderYaml(b->cfg);
  ASSERT_TRUE(yaml.ok());
  EXPECT_NE(yaml->find("---\ndefaultChannel: stable\nname: a\nschema: olm.package\n"), std::string::npos)
      << *yaml;
  EXPECT_NE(yaml->find("    version: 1.0.0\n"), std::string::npos) << *yaml;
  // Rendered YAML loads back to the same JSON.
  engine::MemoryFileSource src({{"c.yaml", *yaml}});
  auto again = LoadCatalog(src);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*RenderJson(*again), *json);
}

}  // namespace
}  // namespace recon::olm
