// `recon log import|export|stat`, run as the real binary.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "base/strings.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/run_recon.h"
#include "tests/store/test_util.h"

namespace recon::cli {
namespace {

using testing::ReadFile;
using testing::RunResult;

using store::testing::TempDir;
using ::testing::HasSubstr;
using ::testing::StartsWith;

void WriteFile(const std::string& path, std::string_view data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

class LogCliTest : public ::testing::Test {
 protected:
  RunResult Recon(const std::string& args) { return testing::RunRecon(tmp_, args); }
  std::string Stat(const std::string& store) {
    std::string s = testing::StoreStat(tmp_, store);
    EXPECT_FALSE(s.empty()) << "log stat --store " << store << " failed";
    return s;
  }

  TempDir tmp_;
  const std::string sample_ = recon::StrCat(RECON_SOURCE_DIR, "/examples/samples-removed-hang.jsonl");
  const std::string store_ = tmp_.Sub("store");
};

TEST_F(LogCliTest, ImportExportStat) {
  RunResult imp = Recon(recon::StrCat("log import ", sample_, " --store ", store_));
  ASSERT_EQ(imp.code, 0) << imp.err;
  EXPECT_EQ(imp.out, recon::StrCat("imported 10 events from ", sample_, " into ", store_, " (seq 1..10)\n"));
  EXPECT_EQ(imp.err, "");  // quiet when not on a terminal

  RunResult exp = Recon(recon::StrCat("log export --store ", store_));
  ASSERT_EQ(exp.code, 0) << exp.err;
  std::istringstream lines(exp.out);
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    ++n;
    EXPECT_THAT(line, StartsWith(recon::StrCat("{\"seq\":", n, ",\"time\":\"2026-11-21T")));
  }
  EXPECT_EQ(n, 10);
  // Object bodies exactly as in the sample.
  EXPECT_THAT(
      exp.out,
      HasSubstr(
          R"("object":{"apiVersion":"samples.operator.openshift.io/v1","kind":"Config","metadata":{"name":"cluster","uid":"5d1c7a0e-1","resourceVersion":"101","finalizers":["samples.operator.openshift.io/finalizer"]},"spec":{"managementState":"Managed","architectures":["x86_64"]}}})"));

  RunResult range = Recon(recon::StrCat("log export --store ", store_, " --from 3 --to 5"));
  ASSERT_EQ(range.code, 0) << range.err;
  EXPECT_THAT(range.out, StartsWith("{\"seq\":3,"));
  EXPECT_EQ(std::count(range.out.begin(), range.out.end(), '\n'), 3);

  // export -> import -> export is byte-identical.
  const std::string exported = tmp_.Sub("exported.jsonl");
  WriteFile(exported, exp.out);
  const std::string second = tmp_.Sub("second");
  ASSERT_EQ(Recon(recon::StrCat("log import ", exported, " --store ", second)).code, 0);
  RunResult again = Recon(recon::StrCat("log export --store ", second));
  ASSERT_EQ(again.code, 0);
  EXPECT_EQ(again.out, exp.out);

  RunResult stat = Recon(recon::StrCat("log stat --store ", store_));
  ASSERT_EQ(stat.code, 0) << stat.err;
  EXPECT_THAT(stat.out, HasSubstr("events      10 (seq 1..10)\n"));
  EXPECT_THAT(stat.out, HasSubstr("time        2026-11-21T10:00:00Z .. 2026-11-21T10:15:02Z\n"));
  EXPECT_THAT(stat.out, HasSubstr("  Added          4\n"));
  EXPECT_THAT(stat.out, HasSubstr("  ImageStream.image.openshift.io           4\n"));
  RunResult json = Recon(recon::StrCat("log stat --json --store ", store_));
  ASSERT_EQ(json.code, 0);
  EXPECT_THAT(json.out,
              StartsWith(R"({"events":10,"first_seq":1,"last_seq":10,"first_time":"2026-11-21T10:00:00Z")"));
  EXPECT_THAT(
      json.out,
      HasSubstr(R"("types":{"ActionResult":1,"Added":4,"Cluster":1,"Modified":2,"Probe":1,"Timer":1})"));

  // A second import appends after what is there when asked to (--append).
  RunResult more = Recon(recon::StrCat("log import ", sample_, " --store ", store_, " --append"));
  ASSERT_EQ(more.code, 0) << more.err;
  EXPECT_THAT(more.out, HasSubstr("(seq 11..20)"));
}

TEST_F(LogCliTest, ImportFromStdin) {
  const std::string cmd = recon::StrCat("cat ", sample_, " | ", RECON_BINARY, " log import - --store ",
                                        store_, " >", tmp_.Sub("o"), " 2>&1");
  ASSERT_EQ(std::system(cmd.c_str()), 0) << ReadFile(tmp_.Sub("o"));
  EXPECT_EQ(ReadFile(tmp_.Sub("o")),
            recon::StrCat("imported 10 events from - into ", store_, " (seq 1..10)\n"));
}

TEST_F(LogCliTest, HelpOnEverySubcommand) {
  for (const std::string sub : {"", "import ", "export ", "stat "}) {
    RunResult r = Recon(recon::StrCat("log ", sub, "--help"));
    EXPECT_EQ(r.code, 0) << sub << r.err;
    EXPECT_THAT(r.out,
                HasSubstr(recon::StrCat("usage: recon log ", sub.empty() ? "<import|export|stat|copy>" : sub)))
        << sub;
    EXPECT_EQ(r.err, "");
  }
  EXPECT_EQ(Recon("log").code, 2);
  EXPECT_EQ(Recon("log frobnicate").code, 2);
  EXPECT_EQ(Recon("log import --store x").code, 2);  // no file
  EXPECT_EQ(Recon("log export").code, 2);            // no store
}

TEST_F(LogCliTest, BadInputExitsOneNamingTheLineAndLeavesTheStoreUnchanged) {
  ASSERT_EQ(Recon(recon::StrCat("log import ", sample_, " --store ", store_)).code, 0);
  const std::string before = Stat(store_);
  const std::string export_before = Recon(recon::StrCat("log export --store ", store_)).out;
  ASSERT_THAT(before, HasSubstr("\"events\":10"));

  const std::string sample = ReadFile(sample_);
  const std::string first_two = sample.substr(0, sample.find('\n', sample.find('\n') + 1) + 1);
  struct Case {
    std::string name, content, message;
  };
  const Case cases[] = {
      {"malformed", first_two + "{\"time\":\"2026-11-21T10:00:00Z\",\"type\":\n", "line 3: malformed JSON"},
      {"type", first_two + "\n{\"time\":\"2026-11-21T10:00:00Z\",\"type\":\"Create\"}\n",
       "line 4: \"type\": expected one of Added, Modified, Deleted, Timer, Probe, ActionResult, Cluster, "
       "Content"},
      {"time", "{\"time\":\"noon\",\"type\":\"Timer\",\"timer\":\"t\"}\n",
       "line 1: \"time\": expected an RFC 3339"},
      {"object", first_two + "{\"time\":\"2026-11-21T10:00:00Z\",\"type\":\"Added\"}\n",
       "line 3: \"object\": missing; an Added event needs it"},
      {"name",
       first_two + "{\"time\":\"2026-11-21T10:00:00Z\",\"type\":\"Added\",\"object\":{\"apiVersion\":\"v1\","
                   "\"kind\":\"X\"}}\n",
       "line 3: \"object.metadata.name\": missing"},
      {"truncated", first_two + "{\"time\":\"2026-11-21T10:00:00Z\",\"type\":\"Timer\",\"ti",
       "line 3: malformed JSON"},
      {"utf8", first_two + "{\"time\":\"2026-11-21T10:00:00Z\",\"type\":\"Timer\",\"timer\":\"\xc0\xaf\"}\n",
       "line 3: invalid UTF-8"},
      {"unknown_field",
       first_two + "{\"time\":\"2026-11-21T10:00:00Z\",\"type\":\"Timer\",\"timer\":\"t\",\"x\":1}\n",
       "line 3: \"x\": unknown field"},
      {"unknown_digest",
       first_two + "{\"time\":\"2026-11-21T10:00:00Z\",\"type\":\"Content\",\"name\":\"c\",\"digest\":"
                   "\"sha256:00\"}\n",
       "line 3: \"digest\": sha256:00 is neither in the store"},
      {"empty", "", "no events (the file is empty)"},
  };
  for (const Case& c : cases) {
    const std::string path = tmp_.Sub(c.name + ".jsonl");
    WriteFile(path, c.content);
    RunResult r = Recon(recon::StrCat("log import ", path, " --store ", store_, " --append"));
    EXPECT_EQ(r.code, 1) << c.name;
    EXPECT_THAT(r.err, HasSubstr(recon::StrCat(path, ": ", c.message))) << c.name;
    EXPECT_EQ(r.out, "") << c.name;
    EXPECT_EQ(Stat(store_), before) << c.name;
  }
  EXPECT_EQ(Recon(recon::StrCat("log export --store ", store_)).out, export_before);

  RunResult missing = Recon(recon::StrCat("log import ", tmp_.Sub("nope.jsonl"), " --store ", store_));
  EXPECT_EQ(missing.code, 1);
  EXPECT_THAT(missing.err, HasSubstr("cannot open"));
  RunResult no_store = Recon(recon::StrCat("log export --store ", tmp_.Sub("no-store")));
  EXPECT_EQ(no_store.code, 1);
  EXPECT_THAT(no_store.err, HasSubstr("no store at"));
  EXPECT_FALSE(std::filesystem::exists(tmp_.Sub("no-store")));
  EXPECT_EQ(Recon(recon::StrCat("log stat --store ", tmp_.Sub("no-store"))).code, 1);
  EXPECT_EQ(Recon(recon::StrCat("log export --store ", store_, " --from x")).code, 2);  // usage
}

}  // namespace
}  // namespace recon::cli
