// One flag vocabulary and one exit-code rule for every sub-command (issue
// 23): 0 ok, 1 failure or finding, 2 usage.
#include <filesystem>
#include <regex>
#include <string>

#include "base/strings.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/run_recon.h"
#include "tests/store/test_util.h"

namespace recon::cli {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::RunResult;
using ::testing::StartsWith;

class FlagsTest : public ::testing::Test {
 protected:
  RunResult Recon(const std::string& args) { return testing::RunRecon(tmp_, args); }
  store::testing::TempDir tmp_;
  const std::string src_ = RECON_SOURCE_DIR;
  const std::string log_ = recon::StrCat(src_, "/tests/scenarios/samples/removal_waits_then_gives_up.jsonl");
};

// Every sub-command, each with an otherwise valid command line, so the
// unknown option is the only thing wrong.
// --tls serves ARM and AAD: alone it is a usage error, before anything is served.
TEST_F(FlagsTest, SimServeTlsNeedsArm) {
  RunResult r = Recon(recon::StrCat("sim serve --port 0 --tls ", tmp_.Sub("tls")));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--tls"));
  EXPECT_FALSE(std::filesystem::exists(tmp_.Sub("tls")));
}

TEST_F(FlagsTest, UnknownOptionIsAUsageErrorEverywhere) {
  const std::string store = tmp_.Sub("store");
  ASSERT_EQ(Recon(recon::StrCat("log import ", log_, " --store ", store)).code, 0);
  const std::string commands[] = {
      recon::StrCat("agent --cluster sim --scenario ", src_, "/examples/scenarios/samples-removed.json"),
      recon::StrCat("replay ", log_),
      recon::StrCat("explain ", log_),
      recon::StrCat("sim --scenario ", src_, "/examples/scenarios/samples-removed.json"),
      "sim serve --port 0",
      recon::StrCat("snapshot --store ", store),
      recon::StrCat("log import ", log_, " --store ", tmp_.Sub("other")),
      recon::StrCat("log export --store ", store),
      recon::StrCat("log stat --store ", store),
      recon::StrCat("catalog channels ", src_, "/examples"),
      "mirror-list --package p --catalog x",
      "bench store",
      "soak --events 10",
      "rbac",
  };
  for (const std::string& cmd : commands) {
    for (const std::string bad : {"--bogus", "-x"}) {
      RunResult r = Recon(recon::StrCat(cmd, " ", bad));
      EXPECT_EQ(r.code, 2) << cmd << " " << bad << ": " << r.err;
      EXPECT_THAT(r.err, HasSubstr(recon::StrCat("unknown option ", bad))) << cmd;
    }
  }
  EXPECT_FALSE(std::filesystem::exists(tmp_.Sub("other")));
}

// `--olm-operator` (session 30) is gone since recon is always both of OLM's
// operators in the soak and the bench: a script that still passes it gets
// a usage error before anything runs.
TEST_F(FlagsTest, TheOlmOperatorFlagIsGone) {
  const std::string dir = tmp_.Sub("soak");
  for (const std::string cmd : {recon::StrCat("soak --events 1000 --olm-operator --dir ", dir),
                                std::string("bench olm --olm-operator --subscriptions 1")}) {
    RunResult r = Recon(cmd);
    EXPECT_EQ(r.code, 2) << cmd << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("unknown option --olm-operator")) << cmd;
  }
  EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST_F(FlagsTest, ErrorsNameTheOptionAsTyped) {
  RunResult short_o = Recon(recon::StrCat("explain ", log_, " -o svg"));
  EXPECT_EQ(short_o.code, 2);
  EXPECT_THAT(short_o.err, HasSubstr("-o svg: expected text, json, mermaid"));
  EXPECT_THAT(short_o.err, Not(HasSubstr("--output")));
  RunResult long_o = Recon(recon::StrCat("explain ", log_, " --output svg"));
  EXPECT_EQ(long_o.code, 2);
  EXPECT_THAT(long_o.err, HasSubstr("--output svg: expected"));
  RunResult graph = Recon(recon::StrCat("catalog graph ", src_, "/examples --package p -o svg"));
  EXPECT_EQ(graph.code, 2);
  EXPECT_THAT(graph.err, HasSubstr("-o must be dot or mermaid"));
  RunResult no_value = Recon(recon::StrCat("explain ", log_, " -o"));
  EXPECT_EQ(no_value.code, 2);
  EXPECT_THAT(no_value.err, HasSubstr("-o needs a value"));
}

TEST_F(FlagsTest, ExplainTakesDomainsLikeEveryOtherCommand) {
  RunResult plural = Recon(recon::StrCat("explain ", log_, " --domains samples"));
  RunResult alias = Recon(recon::StrCat("explain ", log_, " --domain samples"));
  ASSERT_EQ(plural.code, 0) << plural.err;
  ASSERT_EQ(alias.code, 0) << alias.err;
  EXPECT_EQ(plural.out, alias.out);
  EXPECT_THAT(plural.out, HasSubstr("samples  Config cluster"));
  EXPECT_THAT(Recon("explain --help").out, HasSubstr("--domain D is the same"));
  EXPECT_EQ(Recon(recon::StrCat("explain ", log_, " --domains nope")).code, 2);
}

TEST_F(FlagsTest, ExportOfAnEmptyRangeIsAUsageError) {
  const std::string store = tmp_.Sub("store");
  ASSERT_EQ(Recon(recon::StrCat("log import ", log_, " --store ", store)).code, 0);
  RunResult r = Recon(recon::StrCat("log export --store ", store, " --from 9 --to 3"));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("--from 9 is after --to 3"));
  EXPECT_EQ(Recon(recon::StrCat("log export --store ", store, " --from 3 --to 3")).code, 0);
}

TEST_F(FlagsTest, BadOptionValuesAreUsageErrors) {
  // Values that can never run (not a number, zero rounds, no such domain):
  // 2, as for an unknown option, and nothing measured or written.
  for (const std::string cmd :
       {"bench olm --subscriptions abc", "bench store --rounds 0", "bench samples --rounds 0",
        "bench catalog --rounds 0", "bench arm --subnets 0", "bench replay --events x",
        "bench replay --domains nope", "rbac --domains nope", "bench olm --race-only",
        "bench olm --subscriptions 0", "replay no-such.jsonl --jobs 3", "replay no-such.jsonl --jobs 0",
        "replay --store no-such-dir --jobs 2 --record"}) {
    RunResult r = Recon(cmd);
    EXPECT_EQ(r.code, 2) << cmd << ": " << r.err;
    EXPECT_EQ(r.out, "") << cmd;
  }
}

TEST_F(FlagsTest, CatalogSubcommandHelpIsItsOwn) {
  RunResult graph = Recon("catalog graph --help");
  EXPECT_EQ(graph.code, 0);
  EXPECT_THAT(graph.out, StartsWith("usage: recon catalog graph DIR --package P [-o dot|mermaid]\n"));
  EXPECT_THAT(graph.out, Not(HasSubstr("related-images")));
  RunResult all = Recon("catalog --help");
  EXPECT_THAT(all.out, HasSubstr("related-images"));
  EXPECT_THAT(all.out, HasSubstr("upgrade-path"));
  EXPECT_EQ(Recon("catalog frobnicate --help").code, 2);
}

// stdout and stderr into one file, as on a terminal: the summary (stderr)
// comes after every finding (stdout), not inside one (it used to, at line
// 1714 of 1732, mid-line).
TEST_F(FlagsTest, RelatedImagesCheckSummaryComesLast) {
  const std::string catalog = recon::StrCat(src_, "/datasets/olm/community-v4.19");
  if (!std::filesystem::exists(catalog)) FAIL() << catalog << " not found (datasets/ of the repository)";
  const std::string both = tmp_.Sub("both");
  const std::string cmd =
      recon::StrCat(testing::ReconBinary(), " catalog related-images ", catalog, " --check >", both, " 2>&1");
  EXPECT_EQ(WEXITSTATUS(std::system(cmd.c_str())), 1);  // findings
  const std::string out = testing::ReadFile(both);
  const size_t summary = out.find("checked 757 bundles");
  ASSERT_NE(summary, std::string::npos);
  EXPECT_TRUE(summary == 0 || out[summary - 1] == '\n') << "the summary starts mid-line";
  EXPECT_EQ(out.find('\n', summary), out.size() - 1) << "findings after the summary";
}

TEST_F(FlagsTest, VersionNamesCommitAndLibraries) {
  RunResult r = Recon("--version");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, ContainsRegex("^recon [0-9]+\\.[0-9]+\\.[0-9]+\ncommit ([0-9a-f]{40}|unknown)"));
  for (const char* lib : {"RocksDB", "Cap'n Proto", "libuv", "libcurl", "simdjson", "spdlog", "abseil"}) {
    EXPECT_THAT(r.out, ContainsRegex(recon::StrCat("\n  ", lib, " +[^\n]*[0-9]"))) << lib;
  }
}

}  // namespace
}  // namespace recon::cli
