#include "engine/initial_lists.h"

#include <gtest/gtest.h>

namespace recon::engine {
namespace {

Event Cluster(std::string_view facts) {
  Event e;
  e.type = records::EventType::kCluster;
  e.facts = facts;
  return e;
}

TEST(InitialLists, OnlyTheClusterEventWithSyncedTrueEndsThem) {
  EXPECT_TRUE(EndsInitialLists(Cluster(R"({"synced":true})")));
  EXPECT_TRUE(EndsInitialLists(Cluster(R"({"architecture":"x86_64","synced":true})")));
  EXPECT_FALSE(EndsInitialLists(Cluster(R"({"synced":false})")));
  EXPECT_FALSE(EndsInitialLists(Cluster(R"({"architecture":"x86_64"})")));  // a fact change
  EXPECT_FALSE(EndsInitialLists(Cluster(R"({"synced":"true"})")));          // not a boolean
  EXPECT_FALSE(EndsInitialLists(Cluster("not json")));
  Event object = Cluster(R"({"synced":true})");
  object.type = records::EventType::kModified;
  EXPECT_FALSE(EndsInitialLists(object));
}

}  // namespace
}  // namespace recon::engine
