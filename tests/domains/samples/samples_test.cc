#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/strings.h"
#include "cli/domains.h"
#include "domains/samples/inventory.h"
#include "domains/samples/reducer.h"
#include "domains/samples/registry.h"
#include "engine/engine.h"
#include "engine/jsonl_reader.h"
#include "engine/jsonl_writer.h"
#include "engine/replay.h"
#include "records/record.h"

namespace recon::samples {
namespace {

using engine::Json;

const char* kRealInventory = RECON_SOURCE_DIR "/datasets/samples/ocp-x86_64";

TEST(RegistryOverride, ReferenceRules) {
  EXPECT_EQ(OverrideRegistry("registry.redhat.io/ubi8/ruby-25:latest", "mirror.local:5000/ns"),
            "mirror.local:5000/ns/ubi8/ruby-25:latest");
  EXPECT_EQ(OverrideRegistry("quay.io.example/a/b", "R"), "R.example/a/b");  // plain text replace
  EXPECT_EQ(OverrideRegistry("other.host/a/b", "R"), "R/a/b");
  EXPECT_EQ(OverrideRegistry("library/ruby", "R"), "R/library/ruby");
  EXPECT_EQ(OverrideRegistry("registry.redhat.io", "R"), "R/registry.redhat.io");
  EXPECT_EQ(OverrideRegistry("a/b/c/d", "R"), "R/a/b/c/d");
  EXPECT_EQ(OverrideRegistry("", "R"), "R/");
  EXPECT_EQ(OverrideRegistry("R/x/y", "R"), "R/x/y");  // already prefixed
  EXPECT_EQ(OverrideRegistry("registry.redhat.io/a/b", ""), "registry.redhat.io/a/b");
}

TEST(ImageConfig, BlocksRegistry) {
  Json none = Json::object();
  EXPECT_FALSE(ImageConfigBlocks(none, ""));
  auto cfg = [](const char* text) { return *engine::ParseJson(text); };
  Json import_quay = cfg(R"({"spec":{"allowedRegistriesForImport":[{"domainName":"quay.io"}]}})");
  EXPECT_TRUE(ImageConfigBlocks(import_quay, "registry.redhat.io"));
  EXPECT_FALSE(ImageConfigBlocks(import_quay, "quay.io"));
  EXPECT_TRUE(ImageConfigBlocks(import_quay, ""));
  Json import_both =
      cfg(R"({"spec":{"allowedRegistriesForImport":[{"domainName":"redhat.io"},{"domainName":"quay.io"}]}})");
  EXPECT_FALSE(ImageConfigBlocks(import_both, ""));
  Json allowed =
      cfg(R"({"spec":{"registrySources":{"allowedRegistries":[" registry.redhat.io ","quay.io"]}}})");
  EXPECT_FALSE(ImageConfigBlocks(allowed, ""));
  EXPECT_TRUE(ImageConfigBlocks(allowed, "mirror"));
  Json blocked = cfg(R"({"spec":{"registrySources":{"blockedRegistries":["mirror"]}}})");
  EXPECT_TRUE(ImageConfigBlocks(blocked, "mirror"));
  EXPECT_FALSE(ImageConfigBlocks(blocked, ""));
}

TEST(Inventory, BadFileNamesThePath) {
  records::ContentFiles files = {{"ruby/imagestreams/ruby.json", "{not json"}, {"README.md", "ignored"}};
  auto inv = LoadInventory(files);
  ASSERT_FALSE(inv.ok());
  EXPECT_NE(std::string(inv.status().message()).find("error reading file [ruby/imagestreams/ruby.json]"),
            std::string::npos);
}

TEST(Inventory, RealInventoryCounts) {
  if (!std::filesystem::is_directory(kRealInventory))
    FAIL() << "real inventory absent: " << kRealInventory;
  auto files = cli::LoadDirectory(kRealInventory);
  ASSERT_TRUE(files.ok()) << files.status();
  auto inv = LoadInventory(*files);
  ASSERT_TRUE(inv.ok()) << inv.status();
  EXPECT_EQ(inv->streams.size(), 50u);
  EXPECT_EQ(inv->templates.size(), 50u);
  EXPECT_EQ(inv->ist_to_image.size(), 265u);
  EXPECT_TRUE(inv->ist_to_image.contains("ruby_2.5-ubi8"));
  for (const auto& [k, v] : inv->ist_to_image) EXPECT_FALSE(k.starts_with("jenkins")) << k;
}

TEST(Options, RemovalImportWait) {
  SamplesReducer r;
  EXPECT_TRUE(r.SetOption("removalImportWait", "0s").ok());
  EXPECT_EQ(r.removal_import_wait_ns(), 0);
  EXPECT_TRUE(r.SetOption("removalImportWait", "forever").ok());
  EXPECT_EQ(r.removal_import_wait_ns(), kWaitForever);
  EXPECT_TRUE(r.SetOption("removalImportWait", "90s").ok());
  EXPECT_EQ(r.removal_import_wait_ns(), 90'000'000'000LL);
  auto bad = r.SetOption("removalImportWait", "soon");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.message()).find("forever"), std::string::npos);
  EXPECT_FALSE(r.SetOption("nope", "1").ok());
}

std::unique_ptr<engine::Engine> NewEngine() {
  std::vector<std::unique_ptr<engine::Reducer>> rs;
  rs.push_back(MakeReducer());
  return std::make_unique<engine::Engine>(std::move(rs));
}

// Bootstrap to converged on the real inventory: 50 imagestreams, 50
// templates, the ist→image ConfigMap with 265 entries.
TEST(RealInventory, FullUpsert) {
  if (!std::filesystem::is_directory(kRealInventory))
    FAIL() << "real inventory absent: " << kRealInventory;
  auto files = cli::LoadDirectory(kRealInventory);
  ASSERT_TRUE(files.ok());
  auto e = NewEngine();
  e->SetContent("samples/inventory", records::ContentDigest(*files),
                std::make_shared<const records::ContentFiles>(std::move(*files)));
  engine::JsonlReader reader;
  std::vector<records::EventRecord> events;
  for (
      const char* line : {
          R"({"time":"2026-11-21T10:00:00Z","type":"Cluster","facts":{"architecture":"x86_64","ipv6":false,"disconnected":false,"version":"4.16.0"}})",
          R"({"time":"2026-11-21T10:00:01Z","type":"Added","object":{"apiVersion":"samples.operator.openshift.io/v1","kind":"Config","metadata":{"name":"cluster","finalizers":["samples.operator.openshift.io/finalizer"]},"spec":{"managementState":"Managed","architectures":["x86_64"]},"status":{"managementState":"Managed"}}})",
      }) {
    auto r = reader.ParseLine(line, events.size() + 1);
    ASSERT_TRUE(r.ok()) << r.status();
    events.push_back(std::move(*r));
  }
  std::vector<records::ActionRecord> actions;
  ASSERT_TRUE(engine::ReplayRecords(*e, events, events.size(), [&](const records::ActionRecord& a) {
                actions.push_back(a);
              }).ok());
  int streams = 0, templates = 0, pending = 0;
  size_t ist_entries = 0;
  for (const auto& a : actions) {
    if (a.verb != "create") continue;
    if (a.object.kind == "ImageStream") ++streams;
    if (a.object.kind == "Template") ++templates;
    if (a.object.kind == "ConfigMap" && a.object.name == "imagestreamtag-to-image") {
      ist_entries = engine::Path(*engine::ParseJson(a.body), {"data"}).size();
    } else if (a.object.kind == "ConfigMap") {
      ++pending;
    }
  }
  EXPECT_EQ(streams, 50);
  EXPECT_EQ(templates, 50);
  EXPECT_EQ(pending, 50);
  EXPECT_EQ(ist_entries, 265u);
}

}  // namespace
}  // namespace recon::samples
