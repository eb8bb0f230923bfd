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

// Scenario csv_lifecycle (recorded by
// OlmCsvLifecycle.ReconAloneInstallsAndUpgradesARealPackage): recon alone
// upgrading a real package twice.
std::vector<engine::ParsedLine> RecordedUpgrade() {
  const std::string path = std::string(RECON_SOURCE_DIR) + "/tests/scenarios/olm/csv_lifecycle.jsonl";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  engine::JsonlReader reader;
  auto records = reader.ParseAll(text.str(), path);
  EXPECT_TRUE(records.ok()) << records.status();
  return records.ok() ? std::move(*records) : std::vector<engine::ParsedLine>();
}

// The log through a fresh olm reducer: the engine, the reducer, the actions.
struct Replayed {
  std::unique_ptr<engine::Engine> engine;
  OlmReducer* reducer = nullptr;
  std::vector<records::ActionRecord> actions;
};
Replayed Replay(const std::vector<engine::ParsedLine>& records) {
  Replayed out;
  auto owned = std::make_unique<OlmReducer>();
  out.reducer = owned.get();
  std::vector<std::unique_ptr<engine::Reducer>> reducers;
  reducers.push_back(std::move(owned));
  out.engine = std::make_unique<engine::Engine>(std::move(reducers));
  uint64_t seq = 0;
  for (const auto& rec : records) {
    std::vector<records::ActionRecord> actions;
    EXPECT_TRUE(out.engine->Step(engine::Event::FromRecord(++seq, rec.event), &actions).ok());
    out.actions.insert(out.actions.end(), actions.begin(), actions.end());
  }
  return out;
}

// The counters and catalogsource_ready, after the recorded upgrade.
TEST(OlmMetrics, CountersAfterARecordedUpgrade) {
  Replayed run = Replay(RecordedUpgrade());
  runtime::Metrics m;
  run.reducer->ExportMetrics(run.engine->world(), m);
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

// installplan_warnings_total: the same recorded log, with the server's
// warnings put on the answer to the plan's create of the CSV (a step) and
// on the answer to the CSV's first status write (not a step): one counted.
TEST(OlmMetrics, StepWarningsCountOncePerStepWrite) {
  std::vector<engine::ParsedLine> records = RecordedUpgrade();
  Replayed plain = Replay(records);
  std::string step, status;
  for (const auto& a : plain.actions) {
    if (a.object.kind != "ClusterServiceVersion") continue;
    if (a.verb == "create" && step.empty()) step = engine::ActionId(a.cause_seq, a.index);
    if (a.verb == "updateStatus" && status.empty()) status = engine::ActionId(a.cause_seq, a.index);
  }
  ASSERT_FALSE(step.empty());
  ASSERT_FALSE(status.empty());
  int marked = 0;
  for (auto& rec : records)
    if (rec.event.type == records::EventType::kActionResult &&
        (rec.event.action_result.action == step || rec.event.action_result.action == status)) {
      rec.event.action_result.warnings = R"(["unknown field \"spec.foo\""])";
      ++marked;
    }
  ASSERT_EQ(marked, 2);
  runtime::Metrics before;
  plain.reducer->ExportMetrics(plain.engine->world(), before);
  EXPECT_EQ(before.Value("installplan_warnings_total"), 0) << before.Render();
  Replayed warned = Replay(records);
  EXPECT_EQ(warned.actions.size(), plain.actions.size()) << "warnings change no decision";
  runtime::Metrics m;
  warned.reducer->ExportMetrics(warned.engine->world(), m);
  EXPECT_EQ(m.Value("installplan_warnings_total"), 1) << m.Render();
  EXPECT_NE(m.Render().find("# TYPE installplan_warnings_total counter"), std::string::npos);
}

}  // namespace
}  // namespace recon::olm
