// The Cluster status writer's state across a snapshot.
#include "domains/aro/cluster_status.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace recon::aro {
namespace {

using engine::Json;

// A snapshot read back through simdjson holds signed integers: the history's
// seqs were read only when unsigned, so a restored agent's explain lost
// them (found by the snapshot check that compares state, issue 20).
TEST(ClusterStatus, HistorySeqsSurviveASnapshotWithSignedIntegers) {
  Json state = {{"owned", Json::array()},
                {"pruned", Json::array()},
                {"version", ""},
                {"rewrite", false},
                {"history", Json::array({Json{{"seq", int64_t{42}},
                                              {"writer", "internet"},
                                              {"type", "InternetReachableFromMaster"},
                                              {"status", "True"},
                                              {"reason", "CheckDone"},
                                              {"message", "ok"}}})}};
  ClusterStatus status;
  status.FromJson(state);
  ASSERT_EQ(status.history().size(), 1u);
  EXPECT_EQ(status.history()[0].seq, 42u);
  ClusterStatus again;
  again.FromJson(status.ToJson());
  EXPECT_EQ(again.ToJson(), status.ToJson());
}

}  // namespace
}  // namespace recon::aro
