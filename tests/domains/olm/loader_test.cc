#include "domains/olm/catalog/loader.h"

#include <gtest/gtest.h>

#include "base/strings.h"
#include "domains/olm/catalog/ignore.h"
#include "domains/olm/catalog/yaml_doc.h"

namespace recon::olm {
namespace {

absl::StatusOr<DeclarativeConfig> Load(std::map<std::string, std::string> files, LoadOptions opts = {}) {
  engine::MemoryFileSource src(std::move(files));
  return LoadCatalog(src, opts);
}

std::string Err(const absl::StatusOr<DeclarativeConfig>& c) {
  return c.ok() ? "ok" : std::string(Sv(c.status().message()));
}

TEST(Loader, JsonStreamWithoutNewlines) {
  auto c = Load(
      {{"a.json",
        R"({"schema":"olm.package","name":"a"}{"schema":"unexpected"}{"schema":"olm.bundle","name":"b","package":"a"})"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->packages.size(), 1u);
  EXPECT_EQ(c->bundles.size(), 1u);
  ASSERT_EQ(c->others.size(), 1u);
  EXPECT_EQ(c->others[0].schema, "unexpected");
}

TEST(Loader, YamlMultiDocAnyExtensionAndLeadingSeparator) {
  auto c = Load({{"pkg/catalog.txt",
                  "---\nschema: olm.package\nname: a\n---\n---\nschema: olm.channel\npackage: a\nname: "
                  "s\nentries:\n- name: a.v1\n"}});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->channels.size(), 1u);
  EXPECT_EQ(c->channels[0].entries[0].name, "a.v1");
  EXPECT_EQ(c->channels[0].loc.line, 6u);
}

TEST(Loader, Yaml11ScalarsStayAsWritten) {
  auto c =
      Load({{"c.yaml",
             "schema: olm.bundle\nname: a.v1\npackage: a\nproperties:\n- type: olm.package\n  value:\n    "
             "packageName: a\n    version: 1.10\n- type: olm.label\n  value:\n    label: on\n"}});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->bundles[0].package_props.size(), 1u);
  EXPECT_EQ(c->bundles[0].package_props[0].version, "1.10");
  EXPECT_EQ(c->bundles[0].properties[1].value, R"({"label":"on"})");
}

TEST(Loader, MetaKeysCaseInsensitiveAndDuplicates) {
  auto c = Load({{"a.json", R"({"Schema":"olm.package","NAME":"a"})"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->packages[0].name, "a");
  EXPECT_NE(Err(Load({{"a.json", R"({"schema":"olm.package","name":"a","Name":"b"})"}}))
                .find("duplicate keys for key \"name\": [Name name]"),
            std::string::npos);
}

TEST(Loader, BadDocuments) {
  EXPECT_NE(Err(Load({{"a.yaml", "hello: world\n"}})).find("is missing root schema field"),
            std::string::npos);
  EXPECT_NE(Err(Load({{"a.yaml", "[]\n"}})), "ok");
  EXPECT_NE(Err(Load({{"a.yaml", "[This is not yaml or json.}\n"}})), "ok");
  EXPECT_NE(Err(Load({{"a.yaml", "schema: x\n--- junk\nschema: y\n"}}))
                .find("invalid Yaml document separator: junk"),
            std::string::npos);
  EXPECT_NE(Err(Load({{"a.json", R"({"schema":"olm.bundle","relatedImages":{}})"}})).find("parse bundle"),
            std::string::npos);
  EXPECT_NE(Err(Load({{"README.md", "hello world\n"}})), "ok");  // no ignore rule: hard error
}

TEST(Loader, JsonEscapesAreOrdinary) {
  auto c = Load({{"a.json", R"({"schema":"olm.package","name":"a","description":"\u003cb\u003e \u0026"})"}});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->packages[0].description, "<b> &");
}

TEST(Loader, IndexIgnoreUpstreamExample) {
  auto c = Load({{".indexignore", "*\n!*.json\n!*.yaml\n*.clusterserviceversion.yaml\n"},
                 {"README.md", "not fbc"},
                 {"x/foo.clusterserviceversion.yaml", "not: fbc"},
                 {"x/catalog.yaml", "schema: olm.package\nname: a\n"},
                 {"y.json", R"({"schema":"olm.package","name":"b"})"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->packages.size(), 2u);
}

TEST(Ignore, GoGitSemantics) {
  IgnoreMatcher m;
  m.AddPattern("", "foo");
  EXPECT_TRUE(m.Ignored("a/foo/x.json"));
  IgnoreMatcher d;
  d.AddPattern("", "foo/");
  EXPECT_TRUE(d.Ignored("foo/x.json"));
  EXPECT_FALSE(d.Ignored("foo"));  // dir-only never matches the file itself
  IgnoreMatcher g;
  g.AddPattern("sub", "a/b");
  EXPECT_TRUE(g.Ignored("sub/a/b/c.json"));
  EXPECT_FALSE(g.Ignored("a/b/c.json"));  // scoped to its folder
  IgnoreMatcher s;
  s.AddPattern("", "**/x.json");
  EXPECT_TRUE(s.Ignored("p/q/x.json"));
  EXPECT_TRUE(GoFilepathMatch("[a-c]?.json", "bz.json"));
  EXPECT_FALSE(GoFilepathMatch("[^a-c]?.json", "bz.json"));
}

TEST(Loader, WalkOrderIsComponentWise) {
  EXPECT_TRUE(engine::WalkOrderLess("a/x", "a.json"));  // WalkDir visits dir "a" before "a.json"
  EXPECT_FALSE(engine::WalkOrderLess("a.json", "a/x"));
}

constexpr char kPayloadBundle[] =
    "schema: olm.bundle\nname: a.v1\npackage: a\nproperties:\n- type: olm.bundle.object\n  value:\n    data: "
    "eyJraW5kIjoiQ1NWIn0=\n- type: olm.csv.metadata\n  value:\n    annotations:\n      alm-examples: |-\n    "
    "    "
    "[1,\n         2]\n    displayName: A\n- type: olm.package\n  value:\n    packageName: a\n    version: "
    "1.0.0\n";

TEST(Loader, YamlPayloadsBecomeSpans) {
  auto c = Load({{"a.yaml", kPayloadBundle}});
  ASSERT_TRUE(c.ok()) << c.status();
  const Bundle& b = c->bundles[0];
  ASSERT_EQ(b.properties.size(), 3u);
  EXPECT_TRUE(b.has_objects);
  EXPECT_TRUE(b.properties[0].is_span);
  EXPECT_TRUE(b.properties[1].is_span);
  EXPECT_FALSE(b.properties[2].is_span);
  EXPECT_EQ(c->SpanText(b.properties[0].span), "    data: eyJraW5kIjoiQ1NWIn0=\n");
  auto meta = ParseSpan(*c, b.properties[1].span);
  ASSERT_TRUE(meta.ok()) << meta.status();
  std::string json;
  AppendJson(&json, *meta);
  EXPECT_EQ(json, R"({"annotations":{"alm-examples":"[1,\n 2]"},"displayName":"A"})");
  // Same result with the shortcut off.
  LoadOptions full;
  full.excise_payloads = false;
  auto c2 = Load({{"a.yaml", kPayloadBundle}}, full);
  ASSERT_TRUE(c2.ok());
  EXPECT_FALSE(c2->bundles[0].properties[1].is_span);
  EXPECT_EQ(c2->bundles[0].properties[1].value, json);
  EXPECT_EQ(c2->bundles[0].package_props[0].version, "1.0.0");
}

TEST(Loader, JsonPayloadsBecomeSpansAndCanBeDropped) {
  std::string text =
      R"({"schema":"olm.bundle","name":"a.v1","package":"a","properties":[{"type":"olm.csv.metadata","value":{"k": [1, 2]}},{"type":"olm.package","value":{"packageName":"a","version":"1.0.0"}}]})";
  auto c = Load({{"a.json", text}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->bundles[0].properties[0].is_span);
  EXPECT_EQ(c->SpanText(c->bundles[0].properties[0].span), R"({"k": [1, 2]})");
  LoadOptions drop;
  drop.keep_payloads = false;
  auto d = Load({{"a.json", text}}, drop);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->bundles[0].properties[0].dropped);
  EXPECT_TRUE(d->SpanText(d->bundles[0].properties[0].span).empty());
}

TEST(Loader, ParallelMergeIsInWalkOrder) {
  std::map<std::string, std::string> files;
  for (int i = 0; i < 20; ++i) {
    files[StrCat("p", i < 10 ? "0" : "", i, "/c.json")] = StrCat(
        R"({"schema":"olm.package","name":"p)", i, R"("})", std::string(static_cast<size_t>(i) * 100, ' '));
  }
  auto c = Load(files);
  ASSERT_TRUE(c.ok());
  for (int i = 0; i < 20; ++i) EXPECT_EQ(c->packages[i].name, StrCat("p", i));
}

}  // namespace
}  // namespace recon::olm
