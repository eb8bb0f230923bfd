// The ClusterOperator `openshift-samples` as a real API server takes it
// (issue 18): created with `spec: {}` and no status (the CRD requires the
// spec; a create's status is dropped under a status subresource), its
// status written by an updateStatus carrying the observed resourceVersion
// once the create has been observed, and never before.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "domains/samples/names.h"
#include "engine/jsonl_reader.h"
#include "tests/domains/samples/scenario_util.h"

namespace recon::samples {
namespace {

using engine::Json;

class CoWrites : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = testing::SamplesEngine();
    ASSERT_NE(engine_, nullptr);
    // Inventory, facts, the default Config observed, its first status echo.
    lines_ = testing::ScenarioEvents("bootstrap_managed");
    ASSERT_EQ(lines_.size(), 4u);
  }

  std::vector<records::ActionRecord> Step(records::EventRecord r) {
    std::vector<records::ActionRecord> out;
    EXPECT_TRUE(engine_->Step(engine::Event::FromRecord(++seq_, r), &out).ok());
    return out;
  }
  std::vector<records::ActionRecord> Line(const Json& event) {
    engine::JsonlReader reader;
    auto r = reader.ParseLine(engine::Dump(event), seq_ + 1);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? Step(std::move(*r)) : std::vector<records::ActionRecord>{};
  }
  static std::vector<records::ActionRecord> CoWritesIn(const std::vector<records::ActionRecord>& actions) {
    std::vector<records::ActionRecord> out;
    for (const auto& a : actions)
      if (a.object.kind == "ClusterOperator") out.push_back(a);
    return out;
  }
  static Json Co(std::string_view type, std::string_view rv, const Json& status) {
    Json o = {{"apiVersion", kConfigApiVersion},
              {"kind", "ClusterOperator"},
              {"metadata", {{"name", kClusterOperatorName}, {"resourceVersion", rv}}},
              {"spec", Json::object()}};
    if (!status.is_null()) o["status"] = status;
    return Json{{"time", "2026-11-21T10:00:04Z"}, {"type", type}, {"object", o}};
  }

  std::unique_ptr<engine::Engine> engine_;
  std::vector<records::EventRecord> lines_;
  uint64_t seq_ = 0;
};

TEST_F(CoWrites, CreatedWithASpecAndNoStatusThenStatusThroughUpdateStatus) {
  std::vector<records::ActionRecord> all;
  for (size_t i = 0; i < 3; ++i) {
    auto out = Step(lines_[i]);
    all.insert(all.end(), out.begin(), out.end());
  }
  auto co = CoWritesIn(all);
  ASSERT_EQ(co.size(), 1u);
  EXPECT_EQ(co[0].verb, "create");
  EXPECT_EQ(
      engine::Dump(*engine::ParseJson(co[0].body)),
      R"({"apiVersion":"config.openshift.io/v1","kind":"ClusterOperator","metadata":{"name":"openshift-samples"},"spec":{}})");

  // The create is not observed yet: the next Config event writes nothing
  // to the CO (no status write to an object the server may not have).
  EXPECT_TRUE(CoWritesIn(Step(lines_[3])).empty());

  // Its Added event (no status: the server dropped nothing, there was none).
  // A Config write is in flight, so the Config reconcile waits for its echo,
  // but the CO is brought up to the Config as observed, as upstream computes
  // it at each Config event: its first status, before any upsert, over the
  // CO's resourceVersion.
  co = CoWritesIn(Line(Co("Added", "7", Json())));
  ASSERT_EQ(co.size(), 1u);
  EXPECT_EQ(co[0].verb, "updateStatus");
  Json body = *engine::ParseJson(co[0].body);
  EXPECT_EQ(engine::GetString(body, {"metadata", "resourceVersion"}), "7");
  EXPECT_FALSE(body.contains("spec"));
  std::vector<std::string> types;
  for (const Json& c : body["status"]["conditions"]) {
    types.push_back(engine::GetString(c, {"type"}));
    EXPECT_EQ(engine::GetString(c, {"lastTransitionTime"}), "2026-11-21T10:00:04Z");
  }
  EXPECT_EQ(types, (std::vector<std::string>{"Available", "Progressing", "Degraded"}));
  // The pre-upsert state upstream passes through (issue 36).
  EXPECT_EQ(
      engine::Dump(body["status"]["conditions"][0]),
      R"({"type":"Available","status":"False","lastTransitionTime":"2026-11-21T10:00:04Z","reason":"SampleUpsertsPending"})");
  EXPECT_EQ(body["status"]["relatedObjects"].size(), 4u);

  // Its echo, then the next Config event: nothing changed, nothing written.
  EXPECT_TRUE(CoWritesIn(Line(Co("Modified", "8", body["status"]))).empty());
  Json cfg = *engine::ParseJson(lines_[3].body);
  cfg["metadata"]["resourceVersion"] = "102";
  EXPECT_TRUE(CoWritesIn(Line(Json{{"time", "2026-11-21T10:00:05Z"}, {"type", "Modified"}, {"object", cfg}}))
                  .empty());
}

TEST_F(CoWrites, ADeletedClusterOperatorIsCreatedAgainWithoutStatus) {
  for (size_t i = 0; i < 4; ++i) Step(lines_[i]);
  Line(Co("Added", "7", Json()));
  // The Deleted event, then the next Config event (the reconcile waits for
  // the echo of the Config write in flight).
  auto co = CoWritesIn(Line(Co("Deleted", "9", Json())));
  Json cfg = *engine::ParseJson(lines_[3].body);
  cfg["metadata"]["resourceVersion"] = "102";
  auto more = CoWritesIn(Line(Json{{"time", "2026-11-21T10:00:05Z"}, {"type", "Modified"}, {"object", cfg}}));
  co.insert(co.end(), more.begin(), more.end());
  ASSERT_EQ(co.size(), 1u);
  EXPECT_EQ(co[0].verb, "create");
  Json body = *engine::ParseJson(co[0].body);
  EXPECT_FALSE(body.contains("status"));
  EXPECT_EQ(body["spec"], Json::object());
}

}  // namespace
}  // namespace recon::samples
