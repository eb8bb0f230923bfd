// `recon explain -o mermaid` (issue 23): bars span until the next change of
// their own condition, labels are cut at words and never inside a UTF-8
// character, ':' survives, actions are drawn, an empty timeline says so.
#include "cli/timeline_render.h"

#include <string>

#include "base/strings.h"
#include "engine/time_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/run_recon.h"
#include "tests/store/test_util.h"

namespace recon::cli {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

int64_t At(const char* rfc3339) { return *engine::ParseRfc3339(rfc3339); }

// The shape of removal_waits_then_gives_up: SamplesExist set at 10:10:00
// and changed at 10:20:01; RemovePending's message changes in between.
engine::Timeline RemovalTimeline() {
  engine::Timeline t;
  const std::string cfg = "Config cluster";
  t.Add(9, At("2026-11-21T10:00:01Z"), "samples", "", "action", "create Config");
  t.Add(11, At("2026-11-21T10:10:00Z"), "samples", cfg, "condition", "SamplesExist unset -> True");
  t.Add(11, At("2026-11-21T10:10:00Z"), "samples", cfg, "condition", "RemovePending unset -> True");
  t.Add(11, At("2026-11-21T10:10:00Z"), "samples", cfg, "state", "Removed requested at 10:10:00");
  t.Add(12, At("2026-11-21T10:10:01Z"), "samples", cfg, "condition",
        "RemovePending still True: Waiting for 2 in-progress imagestream imports");
  t.Add(12, At("2026-11-21T10:10:01Z"), "samples", cfg, "wait",
        "Removed waiting on 2 in-progress imports (jenkins, nodejs) since seq 12 (10:10:01)");
  t.Add(16, At("2026-11-21T10:20:01Z"), "samples", cfg, "condition", "SamplesExist True -> False");
  t.Add(16, At("2026-11-21T10:20:01Z"), "samples", "", "action", "delete 3 x ImageStream, 2 x Template");
  return t;
}

TEST(TimelineLanesTest, ABarLastsUntilItsOwnConditionChanges) {
  TimelineLanes lanes = BuildLanes(RemovalTimeline());
  ASSERT_EQ(lanes.bars.size(), 3u);
  const TimelineBar& exists = lanes.bars[0];
  EXPECT_EQ(exists.lane, "SamplesExist");
  EXPECT_EQ(exists.status, "True");
  EXPECT_EQ(exists.start_ns, At("2026-11-21T10:10:00Z"));
  EXPECT_EQ(exists.end_ns, At("2026-11-21T10:20:01Z"));  // not 10:10:00 + 1s (the next entry)
  EXPECT_EQ(exists.end_seq, 16u);
  // "still True" is no transition: one RemovePending bar to the end.
  const TimelineBar& pending = lanes.bars[1];
  EXPECT_EQ(pending.lane, "RemovePending");
  EXPECT_EQ(pending.end_seq, 0u);
  EXPECT_EQ(pending.end_ns, At("2026-11-21T10:20:01Z"));
  EXPECT_EQ(lanes.bars[2].status, "False");
  ASSERT_EQ(lanes.marks.size(), 4u);
  EXPECT_EQ(lanes.marks[0].section, "samples actions");
}

TEST(TimelineMermaidTest, DrawsSpansActionsAndKeepsColons) {
  std::string m = TimelineMermaid(RemovalTimeline());
  EXPECT_THAT(m, StartsWith("gantt\n"));
  EXPECT_THAT(m,
              HasSubstr("  SamplesExist True seq 11..16 :done, 2026-11-21T10:10:00, 2026-11-21T10:20:01\n"));
  EXPECT_THAT(m,
              HasSubstr("  RemovePending True seq 11.. :active, 2026-11-21T10:10:00, 2026-11-21T10:20:01\n"));
  EXPECT_THAT(m, Not(HasSubstr("True -> True")));
  EXPECT_THAT(m,
              HasSubstr("  section samples actions\n  seq 9 create Config :milestone, 2026-11-21T10:00:01"));
  EXPECT_THAT(m, HasSubstr("delete 3 x ImageStream, 2 x Template :milestone"));
  EXPECT_THAT(m, HasSubstr("seq 11 Removed requested at 10#58;10#58;00 :milestone"));  // ':' kept, escaped
}

TEST(TimelineMermaidTest, EmptyTimelineSaysSo) {
  std::string m = TimelineMermaid(engine::Timeline());
  EXPECT_THAT(m, StartsWith("%% "));
  EXPECT_THAT(m, HasSubstr("nothing to explain"));
  EXPECT_THAT(m, Not(HasSubstr("gantt\n")));
}

bool ValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    unsigned char c = s[i];
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

TEST(CutLabelTest, AtWordsAndNeverInsideACharacter) {
  EXPECT_EQ(CutLabel("short", 60), "short");
  std::string words = "Waiting for 2 in-progress imagestream imports to finish before removing samples";
  std::string cut = CutLabel(words, 40);
  EXPECT_LE(cut.size(), 40u);
  EXPECT_EQ(cut, "Waiting for 2 in-progress imagestream\xe2\x80\xa6");
  // One long word of 2-byte characters: every odd byte limit falls inside one.
  std::string accents;
  for (int i = 0; i < 50; ++i) accents += "\xc3\xa9";  // é
  for (size_t limit = 5; limit < 40; ++limit) {
    std::string c = CutLabel(accents, limit);
    EXPECT_TRUE(ValidUtf8(c)) << limit;
    EXPECT_LE(c.size(), limit);
    EXPECT_THAT(c, EndsWith("\xe2\x80\xa6"));
  }
}

// The binary end to end on a scenario log.
TEST(TimelineMermaidTest, ExplainPrintsIt) {
  store::testing::TempDir tmp;
  testing::RunResult r = testing::RunRecon(
      tmp, recon::StrCat(
               "explain ", RECON_SOURCE_DIR,
               "/tests/scenarios/samples/removal_waits_then_gives_up.jsonl --domains samples -o mermaid"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out,
              HasSubstr("  SamplesExist True seq 11..16 :done, 2026-11-21T10:10:00, 2026-11-21T10:20:01\n"));
  EXPECT_THAT(r.out, HasSubstr(" :milestone, 2026-11-21T10:20:01, 2026-11-21T10:20:01\n"));
}

}  // namespace
}  // namespace recon::cli
