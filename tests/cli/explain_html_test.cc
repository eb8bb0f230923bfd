// `recon explain -o html` opened in headless Chromium: after the page's
// script ran, the DOM holds one bar per condition span of the timeline, with
// the same spans, a mark per action with its JSON, and an axis; a
// screenshot is taken. Skipped (with a message) when chromium is absent.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>

#include "base/strings.h"
#include "cli/domains.h"
#include "cli/io.h"
#include "cli/timeline_html.h"
#include "cli/timeline_render.h"
#include "engine/explain.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/run_recon.h"
#include "tests/store/test_util.h"

namespace recon::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Chromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    std::string cmd = recon::StrCat("command -v ", name, " >/dev/null 2>&1");
    if (std::system(cmd.c_str()) == 0) return name;
  }
  return "";
}

std::map<std::string, std::string> Attributes(const std::string& tag) {
  std::map<std::string, std::string> out;
  static const std::regex attr(R"re(([a-z0-9-]+)="([^"]*)")re");
  for (auto it = std::sregex_iterator(tag.begin(), tag.end(), attr); it != std::sregex_iterator(); ++it)
    out[(*it)[1]] = (*it)[2];
  return out;
}

std::vector<std::map<std::string, std::string>> Elements(const std::string& dom, const std::string& start) {
  std::vector<std::map<std::string, std::string>> out;
  for (size_t pos = dom.find(start); pos != std::string::npos; pos = dom.find(start, pos + 1))
    out.push_back(Attributes(dom.substr(pos, dom.find('>', pos) - pos)));
  return out;
}

class ExplainHtmlTest : public ::testing::Test {
 protected:
  // The timeline's own spans, computed here from the log (not from the page).
  TimelineLanes Expected() {
    auto engine = MakeEngine("samples", {});
    EXPECT_TRUE(engine.ok());
    auto records = ReadLog(log_);
    EXPECT_TRUE(records.ok());
    auto timeline = engine::ExplainRecords(**engine, *records, "");
    EXPECT_TRUE(timeline.ok());
    return BuildLanes(*timeline);
  }

  store::testing::TempDir tmp_;
  const std::string log_ =
      recon::StrCat(RECON_SOURCE_DIR, "/tests/scenarios/samples/removal_waits_then_gives_up.jsonl");
};

TEST_F(ExplainHtmlTest, PageIsSelfContained) {
  testing::RunResult r =
      testing::RunRecon(tmp_, recon::StrCat("explain ", log_, " --domains samples -o html"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::StartsWith("<!doctype html>"));
  // Nothing fetched: no src/href attributes, no @import, no url() but
  // the page's own clip path.
  EXPECT_THAT(r.out, Not(HasSubstr(" src=")));
  EXPECT_THAT(r.out, Not(HasSubstr(" href=")));
  EXPECT_THAT(r.out, Not(HasSubstr("@import")));
  EXPECT_EQ(std::regex_search(r.out, std::regex(R"(url\((?!#plot\)))")), false);
  EXPECT_THAT(r.out, Not(HasSubstr("fetch(")));
  // The domain's notes are on the page.
  EXPECT_THAT(r.out, HasSubstr("gave up at seq 16 (10m limit)"));
}

TEST_F(ExplainHtmlTest, ChromiumDrawsTheTimelinesSpans) {
  const std::string chromium = Chromium();
  if (chromium.empty())
    GTEST_SKIP() << "chromium not installed (Debian: apt-get install chromium; scripts/setup does)";
  const std::string page = tmp_.Sub("t.html"), dom_file = tmp_.Sub("dom.html"), png = tmp_.Sub("t.png");
  testing::RunResult r =
      testing::RunRecon(tmp_, recon::StrCat("explain ", log_, " --domains samples -o html"));
  ASSERT_EQ(r.code, 0) << r.err;
  std::ofstream(page) << r.out;
  const std::string flags = recon::StrCat(chromium,
                                          " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage"
                                          " --no-first-run --user-data-dir=",
                                          tmp_.Sub("profile"));
  std::string dump = recon::StrCat(flags, " --virtual-time-budget=2000 --dump-dom file://", page, " >",
                                   dom_file, " 2>", tmp_.Sub("chromium.err"));
  ASSERT_EQ(std::system(dump.c_str()), 0) << testing::ReadFile(tmp_.Sub("chromium.err"));
  const std::string dom = testing::ReadFile(dom_file);
  // The script ran (it marks the chart) and drew an axis.
  ASSERT_THAT(dom, HasSubstr("data-ready=\"1\"")) << dom.substr(0, 2000);
  EXPECT_GE(Elements(dom, "<text class=\"tick\"").size(), 2u);

  TimelineLanes want = Expected();
  auto svg = Elements(dom, "<svg id=\"chart\"");
  ASSERT_EQ(svg.size(), 1u);
  const double total_ms = std::stod(svg[0]["data-total-ms"]), plot_width = std::stod(svg[0]["data-width"]);
  auto bars = Elements(dom, "<rect class=\"bar\"");
  ASSERT_EQ(bars.size(), want.bars.size());
  ASSERT_GE(want.bars.size(), 10u);  // the scenario's conditions, not a trivial page
  for (size_t i = 0; i < bars.size(); ++i) {
    const TimelineBar& b = want.bars[i];
    EXPECT_EQ(bars[i]["data-lane"], b.lane) << i;
    EXPECT_EQ(bars[i]["data-section"], b.section) << i;
    EXPECT_EQ(bars[i]["data-status"], b.status) << i;
    EXPECT_EQ(bars[i]["data-start-ns"], std::to_string(b.start_ns)) << i;
    EXPECT_EQ(bars[i]["data-end-ns"], std::to_string(b.end_ns)) << i;
    // Drawn by the script with a width that matches the span on the time axis.
    double width = std::stod(bars[i]["width"]);
    // A span still held at the end of the log is drawn to the axis' end.
    const double start_ms = b.start_ns / 1e6 - std::stod(svg[0]["data-epoch-ms"]);
    const double span_ms =
        b.end_seq ? std::max<double>((b.end_ns - b.start_ns) / 1e6, 1000) : total_ms - start_ms;
    double expected = std::max(1.0, span_ms / total_ms * plot_width);
    EXPECT_NEAR(width, expected, 1.0) << i << " " << b.lane;
  }
  // SamplesExist True held from the Removed request (10:10:00) to the
  // give-up (10:20:01), not one second.
  bool found = false;
  for (const auto& b : bars) {
    if (b.at("data-lane") == "SamplesExist" && b.at("data-status") == "True") {
      found = true;
      EXPECT_EQ(b.at("data-start-seq"), "11");
      EXPECT_EQ(b.at("data-end-seq"), "16");
    }
  }
  EXPECT_TRUE(found);
  // One mark per action, each carrying the action's JSON.
  testing::RunResult replay = testing::RunRecon(tmp_, recon::StrCat("replay ", log_, " --domains samples"));
  ASSERT_EQ(replay.code, 0);
  auto actions = Elements(dom, "<g class=\"mark action\"");
  EXPECT_EQ(actions.size(), static_cast<size_t>(std::count(replay.out.begin(), replay.out.end(), '\n')));
  for (const auto& a : actions)
    EXPECT_THAT(a.at("data-json"), HasSubstr("&quot;domain&quot;:&quot;samples&quot;"));

  std::string shot =
      recon::StrCat(flags, " --window-size=1400,1000 --virtual-time-budget=2000 --screenshot=", png,
                    " file://", page, " >/dev/null 2>&1");
  ASSERT_EQ(std::system(shot.c_str()), 0);
  EXPECT_GT(std::filesystem::file_size(png), 10'000u);
}

}  // namespace
}  // namespace recon::cli
