// The openshift_samples_* series (reference §16), derived from state and
// the world after a scenario log, rendered and (if installed) checked with
// `promtool check metrics`.
#include "runtime/metrics.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "absl/strings/escaping.h"
#include "domains/samples/reducer.h"
#include "tests/domains/samples/scenario_util.h"

namespace recon::samples {
namespace {

using testing::SamplesEngine;
using testing::ScenarioEvents;

// Reduces `events` (plus `extra`) and exports the samples series.
std::string Export(engine::Engine& engine, const std::vector<records::EventRecord>& events,
                   runtime::Metrics& m) {
  for (uint64_t seq = 1; seq <= events.size(); ++seq) {
    std::vector<records::ActionRecord> out;
    auto s = engine.Step(engine::Event::FromRecord(seq, events[seq - 1]), &out);
    EXPECT_TRUE(s.ok()) << s;
  }
  engine.reducers()[0]->ExportMetrics(engine.world(), m);
  return m.Render();
}

// One "Added" event for `object_json`, read as a JSONL line.
records::EventRecord Added(const std::string& object_json) {
  engine::JsonlReader reader;
  auto e =
      reader.ParseLine(R"({"time":"2026-11-21T11:00:00Z","type":"Added","object":)" + object_json + "}", 1);
  EXPECT_TRUE(e.ok()) << e.status();
  return e.ok() ? *e : records::EventRecord{};
}

TEST(SamplesMetrics, ImportFailureAndRetry) {
  auto engine = SamplesEngine();
  ASSERT_TRUE(engine);
  runtime::Metrics m;
  std::string text = Export(*engine, ScenarioEvents("import_failure_retry_and_report"), m);
  EXPECT_EQ(m.Value("openshift_samples_failed_imagestream_import_info", {{"name", "ruby"}}), 1) << text;
  EXPECT_NE(text.find("openshift_samples_failed_imagestream_import_info{name=\"nodejs\"} 0"),
            std::string::npos);
  EXPECT_NE(text.find("openshift_samples_failed_imagestream_import_info{name=\"jenkins\"} 0"),
            std::string::npos);
  EXPECT_EQ(m.Value("openshift_samples_retry_imagestream_import_total", {{"imagestreamname", "ruby"}}), 1)
      << text;
  EXPECT_NE(text.find("# TYPE openshift_samples_retry_imagestream_import_total counter"), std::string::npos);
  EXPECT_EQ(m.Value("openshift_samples_invalidconfig_info"), 0);
  EXPECT_EQ(m.Value("openshift_samples_degraded_info"), 0);
  EXPECT_EQ(m.Value("openshift_samples_tbr_inaccessible_info"), 0);
  EXPECT_EQ(m.Value("openshift_samples_invalidsecret_info", {{"reason", "missing_secret"}}), 0);
  // No openshift-config/pull-secret in this log.
  EXPECT_EQ(m.Value("openshift_samples_invalidsecret_info", {{"reason", "missing_tbr_credential"}}), 1);
}

TEST(SamplesMetrics, PullSecretWithTbrCredential) {
  auto engine = SamplesEngine();
  ASSERT_TRUE(engine);
  auto events = ScenarioEvents("bootstrap_managed");
  std::string auths = absl::Base64Escape(R"({"auths":{"registry.redhat.io":{"auth":"eDp5"}}})");
  events.push_back(Added(
      R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"pull-secret","namespace":"openshift-config"},"data":{".dockerconfigjson":")" +
      auths + R"("}})"));
  runtime::Metrics m;
  std::string text = Export(*engine, events, m);
  EXPECT_NE(text.find("openshift_samples_invalidsecret_info{reason=\"missing_tbr_credential\"} 0"),
            std::string::npos)
      << text;
}

TEST(SamplesMetrics, RemovedHidesScrapeSeriesAndTbrFlagShows) {
  auto engine = SamplesEngine();
  ASSERT_TRUE(engine);
  runtime::Metrics m;
  std::string text = Export(*engine, ScenarioEvents("bootstrap_disconnected_tbr"), m);
  EXPECT_EQ(m.Value("openshift_samples_tbr_inaccessible_info"), 1) << text;
  // Bootstrapped as Removed: neither per-IS failures nor secret checks.
  EXPECT_EQ(text.find("openshift_samples_failed_imagestream_import_info{"), std::string::npos) << text;
  EXPECT_EQ(text.find("openshift_samples_invalidsecret_info{"), std::string::npos) << text;
}

TEST(SamplesMetrics, InvalidConfigFollowsTheObservedConfigurationValid) {
  auto engine = SamplesEngine();
  ASSERT_TRUE(engine);
  auto events = ScenarioEvents("bootstrap_managed");
  // The Config as the agent would see it after an invalid spec was reported.
  events.push_back(Added(
      R"({"apiVersion":"samples.operator.openshift.io/v1","kind":"Config","metadata":{"name":"cluster","resourceVersion":"900"},)"
      R"("spec":{"managementState":"Managed","architectures":["x86_64"]},"status":{"managementState":"Managed",)"
      R"("conditions":[{"type":"ConfigurationValid","status":"False","reason":"X"}]}})"));
  runtime::Metrics m;
  std::string text = Export(*engine, events, m);
  EXPECT_EQ(m.Value("openshift_samples_invalidconfig_info"), 1) << text;
  // missing_secret: ImportCredentialsExist is not True in that status.
  EXPECT_EQ(m.Value("openshift_samples_invalidsecret_info", {{"reason", "missing_secret"}}), 1) << text;
}

TEST(SamplesMetrics, PromtoolAcceptsTheRendering) {
  const char* promtool = "/usr/bin/promtool";
  if (!std::filesystem::exists(promtool)) GTEST_SKIP() << "promtool not installed";
  auto engine = SamplesEngine();
  ASSERT_TRUE(engine);
  runtime::Metrics m;
  std::string text = Export(*engine, ScenarioEvents("import_failure_retry_and_report"), m);
  std::string path = ::testing::TempDir() + "/samples_metrics.prom";
  std::ofstream(path) << text;
  std::string cmd = std::string(promtool) + " check metrics < " + path + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[512];
  while (fgets(buf, sizeof(buf), p)) out += buf;
  int rc = pclose(p);
  EXPECT_EQ(rc, 0) << out << "\n" << text;
  EXPECT_EQ(out, "") << text;
}

}  // namespace
}  // namespace recon::samples
