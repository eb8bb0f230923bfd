// OLM's own series under upstream's names (reference olm-operator.md §B.8),
// derived from the world: csv_count without copies, csv_succeeded per CSV,
// csv_abnormal for a CSV not Succeeded (its phase and reason), the counts of
// plans, subscriptions and catalogs; rendered as Prometheus text.
#include "runtime/metrics.h"

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "domains/olm/reducer.h"
#include "engine/engine.h"
#include "engine/jsonl_reader.h"
#include "engine/world.h"

namespace recon::olm {
namespace {

void Put(engine::World& w, std::string kind, std::string ns, std::string name, const std::string& body) {
  static uint64_t seq = 0;
  w.PutObject(engine::ObjectKey{std::string(kGroup), std::move(kind), std::move(ns), std::move(name)}, "v1alpha1",
              body, ++seq, 0);
}

std::string Csv(const std::string& name, const std::string& version, const std::string& phase,
                const std::string& reason, bool copied = false) {
  return R"({"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":")" +
         name + R"(","namespace":"ops")" + (copied ? R"(,"labels":{"olm.copiedFrom":"ops"})" : "") +
         R"(},"spec":{"version":")" + version + R"("},"status":{"phase":")" + phase + R"(","reason":")" + reason +
         R"("}})";
}

TEST(OlmMetrics, UpstreamsSeriesFromTheWorld) {
  engine::World w;
  Put(w, "ClusterServiceVersion", "ops", "etcd.v2", Csv("etcd.v2", "0.9.2", "Succeeded", "InstallSucceeded"));
  Put(w, "ClusterServiceVersion", "ops", "db.v1", Csv("db.v1", "1.0.0", "Pending", "RequirementsNotMet"));
  Put(w, "ClusterServiceVersion", "apps", "etcd.v2", Csv("etcd.v2", "0.9.2", "Succeeded", "Copied", true));
  Put(w, "InstallPlan", "ops", "install-a", "{}");
  Put(w, "InstallPlan", "ops", "install-b", "{}");
  Put(w, "Subscription", "ops", "etcd", "{}");
  Put(w, "CatalogSource", "olm", "community", "{}");
  OlmReducer r;
  runtime::Metrics m;
  r.ExportMetrics(w, m);
  const std::string text = m.Render();
  EXPECT_EQ(m.Value("csv_count"), 2) << text;
  EXPECT_EQ(m.Value("csv_succeeded", {{"namespace", "ops"}, {"name", "etcd.v2"}, {"version", "0.9.2"}}), 1);
  EXPECT_EQ(m.Value("csv_succeeded", {{"namespace", "ops"}, {"name", "db.v1"}, {"version", "1.0.0"}}), 0);
  EXPECT_EQ(m.Value("csv_abnormal", {{"namespace", "ops"},
                                     {"name", "db.v1"},
                                     {"version", "1.0.0"},
                                     {"phase", "Pending"},
                                     {"reason", "RequirementsNotMet"}}),
            1);
  EXPECT_EQ(text.find("csv_abnormal{name=\"etcd.v2\""), std::string::npos) << text;
  EXPECT_EQ(text.find("namespace=\"apps\""), std::string::npos) << "a copy is not counted";
  EXPECT_EQ(m.Value("install_plan_count"), 2);
  EXPECT_EQ(m.Value("subscription_count"), 1);
  EXPECT_EQ(m.Value("catalog_source_count"), 1);
  EXPECT_NE(text.find("# TYPE csv_succeeded gauge"), std::string::npos);

  // The CSV succeeds: its abnormal series goes.
  Put(w, "ClusterServiceVersion", "ops", "db.v1", Csv("db.v1", "1.0.0", "Succeeded", "InstallSucceeded"));
  r.ExportMetrics(w, m);
  EXPECT_EQ(m.Render().find("csv_abnormal{"), std::string::npos) << m.Render();
}

// The counters and catalogsource_ready, after a recorded log of recon
// alone upgrading a real package twice (scenario csv_lifecycle, recorded by
// OlmCsvLifecycle.ReconAloneInstallsAndUpgradesARealPackage).
TEST(OlmMetrics, CountersAfterARecordedUpgrade) {
  auto owned = std::make_unique<OlmReducer>();
  OlmReducer* r = owned.get();
  ASSERT_TRUE(r->SetOption("csvLifecycle", "true").ok());
  std::vector<std::unique_ptr<engine::Reducer>> reducers;
  reducers.push_back(std::move(owned));
  engine::Engine eng(std::move(reducers));
  const std::string path = std::string(RECON_SOURCE_DIR) + "/tests/scenarios/olm/csv_lifecycle.jsonl";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  engine::JsonlReader reader;
  auto records = reader.ParseAll(text.str(), path);
  ASSERT_TRUE(records.ok()) << records.status();
  uint64_t seq = 0;
  for (const auto& rec : *records) {
    std::vector<records::ActionRecord> actions;
    ASSERT_TRUE(eng.Step(engine::Event::FromRecord(++seq, rec.event), &actions).ok());
  }
  runtime::Metrics m;
  r->ExportMetrics(eng.world(), m);
  const std::string out = m.Render();
  EXPECT_EQ(m.Value("csv_upgrade_count"), 2) << out;  // v1.3.2 -> v1.4.0 -> v1.4.1
  EXPECT_NE(out.find("# TYPE csv_upgrade_count counter"), std::string::npos);
  EXPECT_EQ(m.Value("catalogsource_ready", {{"namespace", "openshift-marketplace"}, {"name", "community"}}),
            1);
  // One series for the subscription, with the CSV it ended at.
  const size_t at = out.find("subscription_sync_total{");
  ASSERT_NE(at, std::string::npos) << out;
  EXPECT_EQ(out.find("subscription_sync_total{", at + 1), std::string::npos) << out;
  EXPECT_NE(out.find("installed=\"ack-acmpca-controller.v1.4.1\""), std::string::npos) << out;
  EXPECT_NE(out.find("package=\"ack-acmpca-controller\""), std::string::npos) << out;
}

}  // namespace
}  // namespace recon::olm
