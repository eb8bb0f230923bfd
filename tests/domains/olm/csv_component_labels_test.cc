// The Operator API's component label (domains/olm/csv/component_labels.h):
// its key, the operators a CSV names, and what counts as a CSV's part.
#include <gtest/gtest.h>

#include "domains/olm/csv/component_labels.h"

namespace recon::olm {
namespace {

using engine::Json;

TEST(ComponentLabels, TheKeyIsCutTo63AndLosesTrailingPunctuation) {
  EXPECT_EQ(ComponentLabelKey("etcd.conf-etcd").value_or(""), "operators.coreos.com/etcd.conf-etcd");
  // 62 characters then '-': the cut at 63 leaves the '-', which goes.
  const std::string long_name = std::string(62, 'a') + "-bcd";
  EXPECT_EQ(ComponentLabelKey(long_name).value_or(""), "operators.coreos.com/" + std::string(62, 'a'));
  EXPECT_EQ(ComponentLabelKey(std::string(70, 'b')).value_or(""),
            "operators.coreos.com/" + std::string(63, 'b'));
  EXPECT_FALSE(ComponentLabelKey("").has_value());
  EXPECT_FALSE(ComponentLabelKey("._-").has_value());
}

TEST(ComponentLabels, ACsvsOperatorsAndItsParts) {
  Json csv = Json::parse(R"({"metadata":{"name":"etcd.v1","namespace":"ops","uid":"u-csv","labels":{
      "operators.coreos.com/etcd.ops":"","operators.coreos.com/":"","olm.copiedFrom":"x","other":"y"}}})");
  EXPECT_EQ(CsvComponentKeys(csv), std::vector<std::string>{"operators.coreos.com/etcd.ops"});
  EXPECT_TRUE(IsCsvComponent(Json::parse(R"({"metadata":{"ownerReferences":[{"uid":"u-csv"}]}})"), csv));
  EXPECT_FALSE(IsCsvComponent(Json::parse(R"({"metadata":{"ownerReferences":[{"uid":"u-other"}]}})"), csv));
  EXPECT_TRUE(IsCsvComponent(Json::parse(R"({"metadata":{"labels":{"olm.owner":"etcd.v1",
      "olm.owner.namespace":"ops","olm.owner.kind":"ClusterServiceVersion"}}})"),
                             csv));
  EXPECT_FALSE(IsCsvComponent(Json::parse(R"({"metadata":{"labels":{"olm.owner":"etcd.v1",
      "olm.owner.namespace":"ops","olm.owner.kind":"OperatorGroup"}}})"),
                              csv));
  EXPECT_TRUE(HasLabel(csv, "other"));
  EXPECT_FALSE(HasLabel(csv, "none"));
}

}  // namespace
}  // namespace recon::olm
