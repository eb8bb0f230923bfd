// A refused command never changes a store (issue 23): `sim`, `agent` and
// `log import` check every option and input before their first append.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "base/strings.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/run_recon.h"
#include "tests/store/test_util.h"

namespace recon::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::RunResult;

class RefusedCommandTest : public ::testing::Test {
 protected:
  RunResult Recon(const std::string& args) { return testing::RunRecon(tmp_, args); }
  std::string Stat(const std::string& store) {
    std::string s = testing::StoreStat(tmp_, store);
    EXPECT_FALSE(s.empty()) << "log stat --store " << store << " failed";
    return s;
  }
  std::string Sim(const std::string& store, const std::string& extra) {
    return recon::StrCat("sim --scenario ", scenario_, " --store ", store, " --until-converged ", extra);
  }
  std::string Agent(const std::string& store, const std::string& extra) {
    return recon::StrCat("agent --cluster sim --scenario ", scenario_, " --store ", store,
                         " --durability nosync --until-converged ", extra);
  }

  store::testing::TempDir tmp_;
  const std::string scenario_ = recon::StrCat(RECON_SOURCE_DIR, "/examples/scenarios/samples-removed.json");
  const std::string log_ = recon::StrCat(RECON_SOURCE_DIR, "/examples/samples-removed-hang.jsonl");
};

// The case: a bad domain option used to fail at the seq of the
// Cluster event, after 4 events were appended, and every rerun then said
// "the store already holds 4 events".
TEST_F(RefusedCommandTest, SimBadDomainOptionAppendsNothing) {
  const std::string store = tmp_.Sub("sim");
  for (const std::string bad :
       {"--set samples.removalImportWait=xyz", "--set samples.nope=1", "--set nodomain.key=1",
        "--set samples.removalImportWait", "--set samples.inventory=/nonexistent/inventory"}) {
    RunResult r = Recon(Sim(store, bad));
    EXPECT_NE(r.code, 0) << bad;
    EXPECT_THAT(r.err, Not(HasSubstr("seq "))) << bad << ": " << r.err;  // refused before any seq
    EXPECT_FALSE(std::filesystem::exists(store)) << bad << ": the store was created";
  }
  RunResult domain = Recon(Sim(store, "--set samples.removalImportWait=xyz"));
  EXPECT_EQ(domain.code, 2);
  EXPECT_THAT(domain.err, HasSubstr("--set samples.removalImportWait=xyz: "));
  // Nothing poisoned: the corrected run starts on the same path.
  RunResult ok = Recon(Sim(store, "--set samples.removalImportWait=0s"));
  EXPECT_EQ(ok.code, 0) << ok.err;
}

TEST_F(RefusedCommandTest, AgentBadOptionsCreateNoStore) {
  const std::string store = tmp_.Sub("agent");
  for (const std::string bad : {"--set samples.removalImportWait=xyz", "--speed fast", "--speed 0",
                                "--set samples.nope=1", "--max-time soon", "--port 70000"}) {
    RunResult r = Recon(Agent(store, bad));
    EXPECT_EQ(r.code, 2) << bad << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(store)) << bad << ": the store was created";
  }
  RunResult speed = Recon(Agent(store, "--speed fast"));
  EXPECT_THAT(speed.err, HasSubstr("--speed fast: expected a positive number or max"));
}

// On a store that holds events, a refused agent start leaves it as it was
// (the option is named, not the store's state).
TEST_F(RefusedCommandTest, AgentBadOptionLeavesAnExistingStoreUnchanged) {
  const std::string store = tmp_.Sub("existing");
  ASSERT_EQ(Recon(recon::StrCat("log import ", log_, " --store ", store)).code, 0);
  const std::string before = Stat(store);
  RunResult r = Recon(Agent(store, "--set samples.removalImportWait=xyz"));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("samples.removalImportWait=xyz"));
  EXPECT_EQ(Stat(store), before);
}

// The store's files by name: opening a RocksDB store writes new MANIFEST,
// OPTIONS and LOG files, so an unchanged list means it was not opened.
std::string FilesIn(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  std::string out;
  for (const auto& n : names) recon::StrAppend(&out, n, "\n");
  return out;
}

TEST_F(RefusedCommandTest, SnapshotBadOptionsAreUsageErrorsAndOpenNoStore) {
  const std::string store = tmp_.Sub("snap");
  ASSERT_EQ(Recon(recon::StrCat("log import ", log_, " --store ", store)).code, 0);
  const std::string files = FilesIn(store);
  for (const std::string bad : {"--set samples.bogus=1", "--domains sample", "--set samples.removalImportWait=xyz"}) {
    RunResult r = Recon(recon::StrCat("snapshot --store ", store, " ", bad));
    EXPECT_EQ(r.code, 2) << bad << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("recon snapshot: ")) << bad;
    EXPECT_EQ(FilesIn(store), files) << bad << ": the store was opened";
  }
  RunResult ok = Recon(recon::StrCat("snapshot --store ", store));
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_THAT(ok.out, HasSubstr("snapshot at seq 10"));
}

TEST_F(RefusedCommandTest, ImportingIntoAStoreThatHoldsEventsNeedsAppend) {
  const std::string store = tmp_.Sub("import");
  ASSERT_EQ(Recon(recon::StrCat("log import ", log_, " --store ", store)).code, 0);
  const std::string before = Stat(store);
  RunResult again = Recon(recon::StrCat("log import ", log_, " --store ", store));
  EXPECT_EQ(again.code, 1);
  EXPECT_EQ(again.out, "");
  EXPECT_THAT(again.err, HasSubstr("was already imported into"));
  EXPECT_THAT(again.err, HasSubstr("--append"));
  EXPECT_EQ(Stat(store), before);

  // Another file into a store with events: refused too, also without --append.
  const std::string other = tmp_.Sub("other.jsonl");
  std::ofstream(other) << "{\"time\":\"2026-11-21T11:00:00Z\",\"type\":\"Timer\",\"timer\":\"t\"}\n";
  RunResult different = Recon(recon::StrCat("log import ", other, " --store ", store));
  EXPECT_EQ(different.code, 1);
  EXPECT_THAT(different.err, HasSubstr("already holds 10 events (seq 1..10)"));
  EXPECT_EQ(Stat(store), before);

  RunResult meant = Recon(recon::StrCat("log import ", log_, " --store ", store, " --append"));
  EXPECT_EQ(meant.code, 0) << meant.err;
  EXPECT_THAT(meant.out, HasSubstr("(seq 11..20)"));
}

}  // namespace
}  // namespace recon::cli
