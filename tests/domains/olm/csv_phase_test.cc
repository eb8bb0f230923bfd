// A CSV's phase as upstream's SetPhase sets it (domains/olm/csv/phase.h;
// reference olm-operator.md §B.2.1): the times, the history and its cap.
#include "domains/olm/csv/phase.h"

#include <gtest/gtest.h>

#include <string>

namespace recon::olm {
namespace {

using engine::Json;

constexpr char kT1[] = "2026-12-06T10:00:00Z";
constexpr char kT2[] = "2026-12-06T10:00:05Z";
constexpr char kT3[] = "2026-12-06T10:00:09Z";

TEST(CsvPhase, TheFirstPhaseStartsTheHistory) {
  Json status;
  SetCsvPhase(status, {"Pending", "RequirementsUnknown", "requirements not yet checked"}, kT1);
  // Key order aside (Go writes struct order): compared as unordered JSON.
  EXPECT_EQ(nlohmann::json::parse(status.dump()), nlohmann::json::parse(R"({"phase":"Pending","reason":"RequirementsUnknown",
    "message":"requirements not yet checked","lastUpdateTime":"2026-12-06T10:00:00Z",
    "lastTransitionTime":"2026-12-06T10:00:00Z","conditions":[{"phase":"Pending","reason":"RequirementsUnknown",
    "message":"requirements not yet checked","lastUpdateTime":"2026-12-06T10:00:00Z",
    "lastTransitionTime":"2026-12-06T10:00:00Z"}]})"));
}

TEST(CsvPhase, AReasonChangeKeepsTheTransitionTimeAndAddsAnEntry) {
  Json status;
  SetCsvPhase(status, {"Pending", "RequirementsUnknown", "requirements not yet checked"}, kT1);
  SetCsvPhase(status, {"Pending", "RequirementsNotMet", "one or more requirements couldn't be found"}, kT2);
  EXPECT_EQ(status["lastTransitionTime"], kT1);
  EXPECT_EQ(status["lastUpdateTime"], kT2);
  ASSERT_EQ(status["conditions"].size(), 2u);
  EXPECT_EQ(status["conditions"][1]["lastTransitionTime"], kT1);
  EXPECT_EQ(status["conditions"][1]["lastUpdateTime"], kT2);
  // A phase change moves the transition time, in the status and its entry.
  SetCsvPhase(status, {"InstallReady", "AllRequirementsMet", "all requirements found, attempting install"}, kT3);
  EXPECT_EQ(status["lastTransitionTime"], kT3);
  EXPECT_EQ(status["conditions"].back()["lastTransitionTime"], kT3);
}

TEST(CsvPhase, AMessageOnlyChangeEditsNoEntry) {
  Json status;
  SetCsvPhase(status, {"Installing", "InstallWaiting", "installing: waiting for deployment a"}, kT1);
  SetCsvPhase(status, {"Installing", "InstallWaiting", "installing: waiting for deployment b"}, kT2);
  EXPECT_EQ(status["message"], "installing: waiting for deployment b");
  ASSERT_EQ(status["conditions"].size(), 1u);
  EXPECT_EQ(status["conditions"][0]["message"], "installing: waiting for deployment a");
}

TEST(CsvPhase, IfChangedSetsNothingWhenAllThreeAreTheSame) {
  Json status;
  EXPECT_TRUE(SetCsvPhaseIfChanged(status, {"Succeeded", "InstallSucceeded", "done"}, kT1));
  Json before = status;
  EXPECT_FALSE(SetCsvPhaseIfChanged(status, {"Succeeded", "InstallSucceeded", "done"}, kT2));
  EXPECT_EQ(status, before);
  EXPECT_TRUE(SetCsvPhaseIfChanged(status, {"Succeeded", "InstallSucceeded", "done again"}, kT2));
  EXPECT_EQ(status["lastUpdateTime"], kT2);
}

TEST(CsvPhase, TheHistoryKeepsTheNewestTwenty) {
  Json status;
  for (int i = 0; i < 25; ++i)
    SetCsvPhase(status, {i % 2 ? "Pending" : "Failed", "R" + std::to_string(i), ""}, kT1);
  ASSERT_EQ(status["conditions"].size(), kCsvConditionsLimit);
  EXPECT_EQ(status["conditions"][0]["reason"], "R5");
  EXPECT_EQ(status["conditions"].back()["reason"], "R24");
  EXPECT_FALSE(status.contains("message")) << "omitted when empty, as Go's omitempty";
}

}  // namespace
}  // namespace recon::olm
