// The aro writes of kinds with a status subresource as a real API server
// takes them (issue 18): ClusterOperator `aro` created with `spec: {}` and
// no status, its status written by an updateStatus with the observed
// resourceVersion once the create has been observed; the Cluster status
// written with the Cluster's resourceVersion.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/domains/aro/aro_lines.h"

namespace recon::aro {
namespace {

using engine::Json;

class AroCoWrites : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = testing::AroLines::ScenarioCluster();
    cluster_["metadata"]["resourceVersion"] = "5";
  }

  std::vector<records::ActionRecord> Line(const Json& event) { return lines_.Line(event); }
  Json At(std::string_view time, std::string_view type, const Json& object) const {
    return Json{{"time", time}, {"type", type}, {"object", object}};
  }
  static std::vector<Json> Writes(const std::vector<records::ActionRecord>& actions, std::string_view kind,
                                  std::string_view verb) {
    std::vector<Json> out;
    for (const auto& a : actions)
      if (a.object.kind == kind && a.verb == verb) out.push_back(*engine::ParseJson(a.body));
    return out;
  }
  static Json Co(std::string_view rv, const Json& owner_refs) {
    return {{"apiVersion", "config.openshift.io/v1"},
            {"kind", "ClusterOperator"},
            {"metadata", {{"name", "aro"}, {"resourceVersion", rv}, {"ownerReferences", owner_refs}}},
            {"spec", Json::object()}};
  }

  testing::AroLines lines_;
  Json cluster_;
};

TEST_F(AroCoWrites, CreatedWithASpecThenStatusOnceObserved) {
  auto out = Line(At("2026-11-21T10:00:00Z", "Added", cluster_));
  auto creates = Writes(out, "ClusterOperator", "create");
  ASSERT_EQ(creates.size(), 1u);
  EXPECT_EQ(creates[0]["spec"], Json::object());
  EXPECT_FALSE(creates[0].contains("status"));
  EXPECT_EQ(engine::GetString(creates[0]["metadata"]["ownerReferences"][0], {"uid"}), "cluster-uid");
  EXPECT_TRUE(Writes(out, "ClusterOperator", "updateStatus").empty());

  // Until the create is observed: no CO write at all.
  Json probe = {{"time", "2026-11-21T10:00:01Z"},
                {"type", "Probe"},
                {"probe", "aro/internet/master"},
                {"target", "https://management.azure.com/"},
                {"ok", false},
                {"detail", "dial tcp: i/o timeout"}};
  out = Line(probe);
  EXPECT_TRUE(Writes(out, "ClusterOperator", "create").empty());
  EXPECT_TRUE(Writes(out, "ClusterOperator", "updateStatus").empty());

  // Observed: its status, through /status, with its resourceVersion.
  out = Line(At("2026-11-21T10:00:02Z", "Added", Co("7", creates[0]["metadata"]["ownerReferences"])));
  EXPECT_TRUE(Writes(out, "ClusterOperator", "update").empty());  // already owned
  auto status = Writes(out, "ClusterOperator", "updateStatus");
  ASSERT_EQ(status.size(), 1u);
  EXPECT_EQ(engine::GetString(status[0], {"metadata", "resourceVersion"}), "7");
  std::vector<std::string> types;
  for (const Json& c : status[0]["status"]["conditions"]) {
    types.push_back(engine::GetString(c, {"type"}));
    EXPECT_FALSE(engine::GetString(c, {"lastTransitionTime"}).empty());  // required by the CRD
  }
  EXPECT_EQ(types, (std::vector<std::string>{"Available", "Progressing", "Degraded"}));

  // Deleted behind our back: created again, without status.
  out = Line(At("2026-11-21T10:00:03Z", "Deleted", Co("8", Json::array())));
  creates = Writes(out, "ClusterOperator", "create");
  ASSERT_EQ(creates.size(), 1u);
  EXPECT_FALSE(creates[0].contains("status"));
}

TEST_F(AroCoWrites, ClusterStatusCarriesTheClusterResourceVersion) {
  Line(At("2026-11-21T10:00:00Z", "Added", cluster_));
  std::vector<records::ActionRecord> all;
  for (const char* url : {"https://arosvc.azurecr.io/", "https://login.microsoftonline.com/",
                          "https://management.azure.com/", "https://gcs.prod.monitoring.core.windows.net/"}) {
    auto out = Line(Json{{"time", "2026-11-21T10:00:01Z"},
                         {"type", "Probe"},
                         {"probe", "aro/internet/master"},
                         {"target", url},
                         {"ok", true}});
    all.insert(all.end(), out.begin(), out.end());
  }
  auto status = Writes(all, "Cluster", "updateStatus");
  ASSERT_EQ(status.size(), 1u);
  EXPECT_EQ(engine::GetString(status[0], {"metadata", "resourceVersion"}), "5");
  EXPECT_FALSE(status[0].contains("spec"));
}

}  // namespace
}  // namespace recon::aro
