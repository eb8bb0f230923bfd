// The Cluster's status as upstream's setters write it (issue 53, step 2):
// each write is the Cluster as observed with only the writing controller's
// conditions set, carrying the observed resourceVersion. A condition
// another writer changed is never put back from recon's memory, and a
// conflict writes the same conditions again over the newer Cluster.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "tests/domains/aro/aro_lines.h"

namespace recon::aro {
namespace {

using engine::Json;

class AroStatusWrites : public ::testing::Test {
 protected:
  void SetUp() override {
    // The Cluster of a scenario (the checkers on), with a condition recon
    // does not own.
    cluster_ = testing::AroLines::ScenarioCluster();
    cluster_["status"]["conditions"] = Json::array({Cond("DefaultClusterDNS", "True")});
  }

  static Json Cond(std::string_view type, std::string_view status) {
    return {{"type", type}, {"status", status}, {"lastTransitionTime", "2026-11-21T09:00:00Z"}};
  }
  Json ClusterAt(std::string_view rv, Json conditions) const {
    Json c = cluster_;
    c["metadata"]["resourceVersion"] = rv;
    c["status"]["conditions"] = std::move(conditions);
    return c;
  }
  std::vector<records::ActionRecord> Line(const Json& event) { return lines_.Line(event); }
  std::vector<records::ActionRecord> Observe(std::string_view type, const Json& object) {
    return Line({{"time", Time()}, {"type", type}, {"object", object}});
  }
  std::vector<records::ActionRecord> Answer(const records::ActionRecord& a, int status,
                                            std::string_view rv = "") {
    Json r = {{"time", Time()},
              {"type", "ActionResult"},
              {"action", engine::ActionId(a.cause_seq, a.index)},
              {"ok", status < 300},
              {"status", status}};
    if (!rv.empty()) r["resourceVersion"] = rv;
    if (status >= 300) r["error"] = "Conflict";
    return Line(r);
  }
  // One round of the master's internet check, every URL answering `ok`.
  std::vector<records::ActionRecord> ProbeRound(bool ok) {
    std::vector<records::ActionRecord> all;
    for (const char* url :
         {"https://arosvc.azurecr.io/", "https://login.microsoftonline.com/", "https://management.azure.com/",
          "https://gcs.prod.monitoring.core.windows.net/"}) {
      Json probe = {
          {"time", Time()}, {"type", "Probe"}, {"probe", "aro/internet/master"}, {"target", url}, {"ok", ok}};
      if (!ok) probe["detail"] = "dial tcp: i/o timeout";
      auto out = Line(probe);
      all.insert(all.end(), out.begin(), out.end());
    }
    return all;
  }
  static std::vector<records::ActionRecord> StatusWrites(const std::vector<records::ActionRecord>& actions) {
    std::vector<records::ActionRecord> out;
    for (const auto& a : actions)
      if (a.object.kind == "Cluster" && a.verb == "updateStatus") out.push_back(a);
    return out;
  }
  static std::string StatusOf(const records::ActionRecord& a, std::string_view type) {
    auto body = engine::ParseJson(a.body);
    for (const Json& c : (*body)["status"]["conditions"])
      if (engine::GetString(c, {"type"}) == type) return engine::GetString(c, {"status"});
    return "(absent)";
  }
  static std::string Rv(const records::ActionRecord& a) {
    return engine::GetString(*engine::ParseJson(a.body), {"metadata", "resourceVersion"});
  }
  // 10:00:00 plus a second for each event so far, plus whatever was skipped.
  std::string Time() const {
    int64_t t = 10 * 3600 + static_cast<int64_t>(lines_.seq()) + skipped_s_;
    char buf[64];
    std::snprintf(buf, sizeof buf, "2026-11-21T%02lld:%02lld:%02lldZ", static_cast<long long>(t / 3600),
                  static_cast<long long>(t / 60 % 60), static_cast<long long>(t % 60));
    return buf;
  }
  // The checker's next round: an hour after a round that passed.
  void NextRound() {
    skipped_s_ += 3700;
    Line({{"time", Time()}, {"type", "Timer"}, {"timer", "aro/internet"}});
  }

  testing::AroLines lines_;
  Json cluster_;
  int64_t skipped_s_ = 0;
};

TEST_F(AroStatusWrites, NeverPutsBackAConditionAnotherWriterChanged) {
  Observe("Added", ClusterAt("5", Json::array({Cond("DefaultClusterDNS", "True")})));
  auto writes = StatusWrites(ProbeRound(true));
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(StatusOf(writes[0], "InternetReachableFromMaster"), "True");
  EXPECT_EQ(StatusOf(writes[0], "DefaultClusterDNS"), "True");
  Answer(writes[0], 200, "6");
  Observe("Modified", ClusterAt("6", Json::array({Cond("DefaultClusterDNS", "True"),
                                                  Cond("InternetReachableFromMaster", "True")})));
  // Another writer (the real operator's checker, an admin) changes both.
  EXPECT_TRUE(
      StatusWrites(
          Observe("Modified", ClusterAt("7", Json::array({Cond("DefaultClusterDNS", "False"),
                                                          Cond("InternetReachableFromMaster", "False")}))))
          .empty());
  // recon's checker finds the internet reachable again: it sets its own
  // condition over the Cluster as it is now, and nothing else.
  NextRound();
  writes = StatusWrites(ProbeRound(true));
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(Rv(writes[0]), "7");
  EXPECT_EQ(StatusOf(writes[0], "InternetReachableFromMaster"), "True");
  EXPECT_EQ(StatusOf(writes[0], "DefaultClusterDNS"), "False");
}

TEST_F(AroStatusWrites, AConflictWritesTheSameConditionsOverTheNewerCluster) {
  Observe("Added", ClusterAt("5", Json::array({Cond("DefaultClusterDNS", "True")})));
  auto writes = StatusWrites(ProbeRound(false));
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(StatusOf(writes[0], "InternetReachableFromMaster"), "False");
  // Another writer got there first: 409, then its Cluster.
  EXPECT_TRUE(StatusWrites(Answer(writes[0], 409)).empty());
  writes = StatusWrites(Observe("Modified", ClusterAt("8", Json::array({Cond("DefaultClusterDNS", "False"),
                                                                        Cond("MachineValid", "True")}))));
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(Rv(writes[0]), "8");
  EXPECT_EQ(StatusOf(writes[0], "InternetReachableFromMaster"), "False");
  EXPECT_EQ(StatusOf(writes[0], "DefaultClusterDNS"), "False");
  EXPECT_EQ(StatusOf(writes[0], "MachineValid"), "True");
  // Shown by the world: nothing owed any more.
  Answer(writes[0], 200, "9");
  EXPECT_TRUE(
      StatusWrites(
          Observe("Modified", ClusterAt("9", Json::array({Cond("DefaultClusterDNS", "False"),
                                                          Cond("MachineValid", "True"),
                                                          Cond("InternetReachableFromMaster", "False")}))))
          .empty());
}

}  // namespace
}  // namespace recon::aro
