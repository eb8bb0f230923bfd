// `recon replay --check` from a snapshot and on a store without recorded
// actions (issue 23).
#include <fstream>
#include <sstream>
#include <string>

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
using ::testing::StartsWith;

class ReplayCheckTest : public ::testing::Test {
 protected:
  RunResult Recon(const std::string& args) { return testing::RunRecon(tmp_, args); }
  RunResult MustRecon(const std::string& args) {
    RunResult r = Recon(args);
    EXPECT_EQ(r.code, 0) << "recon " << args << "\n" << r.err;
    return r;
  }

  // A store whose events 1..11 were recorded (actions) and snapshotted with
  // --domains samples, then events 12..16 appended and their actions
  // recorded from the snapshot: what an agent that ran only samples leaves.
  void BuildSnapshottedStore() {
    std::ifstream in(log_);
    std::string line, head, tail;
    for (int n = 1; std::getline(in, line); ++n) (n <= 11 ? head : tail) += line + "\n";
    std::ofstream(tmp_.Sub("head.jsonl")) << head;
    std::ofstream(tmp_.Sub("tail.jsonl")) << tail;
    MustRecon(recon::StrCat("log import ", tmp_.Sub("head.jsonl"), " --store ", store_));
    MustRecon(recon::StrCat("replay --store ", store_, " --domains samples --record"));
    RunResult snap = MustRecon(recon::StrCat("snapshot --store ", store_, " --domains samples"));
    ASSERT_THAT(snap.out, StartsWith("snapshot at seq 11:"));
    MustRecon(recon::StrCat("log import ", tmp_.Sub("tail.jsonl"), " --store ", store_, " --append"));
    MustRecon(recon::StrCat("replay --store ", store_, " --domains samples --from-snapshot --record"));
  }

  store::testing::TempDir tmp_;
  const std::string log_ =
      recon::StrCat(RECON_SOURCE_DIR, "/tests/scenarios/samples/removal_waits_then_gives_up.jsonl");
  const std::string store_ = tmp_.Sub("store");
};

// It used to compare every recorded action with the snapshot's tail only,
// and so always report a divergence.
TEST_F(ReplayCheckTest, FromSnapshotComparesOnlyTheTail) {
  BuildSnapshottedStore();
  RunResult full = Recon(recon::StrCat("replay --check --store ", store_, " --domains samples"));
  ASSERT_EQ(full.code, 0) << full.out << full.err;
  RunResult r = Recon(recon::StrCat("replay --check --store ", store_, " --domains samples --from-snapshot"));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, StartsWith("ok: "));
  EXPECT_THAT(r.out, HasSubstr("events seq 12..16, from the snapshot at seq 11"));
}

// Without --domains it used to restore every domain and fail with
// "snapshot has no state for domain olm".
TEST_F(ReplayCheckTest, FromSnapshotUsesTheSnapshotsDomains) {
  BuildSnapshottedStore();
  RunResult r = Recon(recon::StrCat("replay --check --store ", store_, " --from-snapshot"));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("domains samples)"));
  EXPECT_THAT(r.err, Not(HasSubstr("no state for domain")));
}

// A divergence after the snapshot is still found: the tail's actions
// recorded for another option value differ from those recomputed.
TEST_F(ReplayCheckTest, FromSnapshotStillFindsADivergenceInTheTail) {
  BuildSnapshottedStore();
  RunResult r = Recon(recon::StrCat("replay --check --store ", store_,
                                    " --from-snapshot --set samples.removalImportWait=0s"));
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, StartsWith("first divergence at seq 12 "));
}

TEST_F(ReplayCheckTest, ImportedStoreHasNoRecordedActions) {
  MustRecon(recon::StrCat("log import ", log_, " --store ", store_));
  RunResult r = Recon(recon::StrCat("replay --check --store ", store_));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("this store has no recorded actions"));
  EXPECT_THAT(r.err, Not(HasSubstr("divergence")));
}

}  // namespace
}  // namespace recon::cli
