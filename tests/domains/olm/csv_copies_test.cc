// Copied CSVs as the olm operator makes and collects them
// (domains/olm/csv/copies.h; reference olm-operator.md §B.5).
#include <gtest/gtest.h>

#include <string>

#include "domains/olm/csv/copies.h"

namespace recon::olm {
namespace {

using engine::Json;

Json Parent() {
  return Json::parse(R"({"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion",
    "metadata":{"name":"etcd.v1","namespace":"ops","uid":"u1","resourceVersion":"7",
      "ownerReferences":[{"kind":"Subscription","name":"s"}],
      "labels":{"operators.coreos.com/etcd.ops":"","olm.api.abc":"provided","team":"a"},
      "annotations":{"olm.operatorGroup":"og","olm.operatorNamespace":"ops","olm.targetNamespaces":"t1,t2",
        "kubectl.kubernetes.io/last-applied-configuration":"{}","capabilities":"Basic Install"}},
    "spec":{"version":"1.0.0","replaces":"etcd.v0"},
    "status":{"phase":"Succeeded","reason":"InstallSucceeded","message":"install strategy completed with no errors",
      "lastUpdateTime":"2026-12-06T10:00:00Z","requirementStatus":[{"kind":"ServiceAccount","name":"etcd"}]}})");
}

TEST(CsvCopies, ACopyKeepsSpecAndStatusAndDropsWhatUpstreamDrops) {
  // Keys sorted, as a Go map is written; olm.copiedFrom last.
  Json copy = CsvCopy(Parent(), "t1");
  EXPECT_EQ(copy["metadata"], Json::parse(R"({"name":"etcd.v1","namespace":"t1",
    "labels":{"olm.api.abc":"provided","team":"a","olm.copiedFrom":"ops"},
    "annotations":{"capabilities":"Basic Install","olm.operatorGroup":"og","olm.operatorNamespace":"ops"}})"));
  EXPECT_EQ(copy["spec"], Parent()["spec"]);
  EXPECT_EQ(copy["status"]["phase"], "Succeeded");
  EXPECT_EQ(copy["status"]["reason"], "Copied");
  EXPECT_EQ(copy["status"]["message"], "The operator is running in ops but is managing this namespace");
  EXPECT_EQ(copy["status"]["requirementStatus"], Parent()["status"]["requirementStatus"]);
  EXPECT_EQ(copy["status"]["lastUpdateTime"], "2026-12-06T10:00:00Z");
}

TEST(CsvCopies, OnlyAPhaseWithoutAGroupFailureIsCopied) {
  Json csv = Parent();
  EXPECT_TRUE(CsvCopiable(csv));
  for (const char* reason :
       {"Copied", "InvalidInstallModes", "NoTargetNamespaces", "UnsupportedOperatorGroup", "NoOperatorGroup",
        "TooManyOperatorGroups", "InterOperatorGroupOwnerConflict",
        "CannotModifyStaticOperatorGroupProvidedAPIs"}) {
    csv["status"]["reason"] = reason;
    EXPECT_FALSE(CsvCopiable(csv)) << reason;
  }
  csv["status"] = {{"reason", "InstallSucceeded"}};
  EXPECT_FALSE(CsvCopiable(csv));  // no phase yet
  csv["status"]["phase"] = "Pending";
  EXPECT_TRUE(CsvCopiable(csv));
}

TEST(CsvCopies, AnUpdateIsAskedForOnlyWhatChanged) {
  Json want = CsvCopy(Parent(), "t1");
  Json live = want;
  live["metadata"]["resourceVersion"] = "12";  // server fields are not compared
  live["metadata"]["uid"] = "u9";
  EXPECT_FALSE(CopyMetadataDiffers(want, live));
  EXPECT_FALSE(CopyStatusDiffers(want, live));
  live["metadata"]["labels"]["team"] = "b";
  EXPECT_TRUE(CopyMetadataDiffers(want, live));
  EXPECT_FALSE(CopyStatusDiffers(want, live));
  live = want;
  live.erase("status");  // just created: the status goes in its own write
  EXPECT_FALSE(CopyMetadataDiffers(want, live));
  EXPECT_TRUE(CopyStatusDiffers(want, live));
  live = want;
  live["spec"]["version"] = "0.9.0";
  EXPECT_TRUE(CopyMetadataDiffers(want, live));
}

TEST(CsvCopies, ADanglingCopyIsDeletedAndSaysWhy) {
  Json parent = Parent();
  Json copy = CsvCopy(parent, "t1");
  EXPECT_EQ(DanglingCopyReason(copy, &parent), "");
  EXPECT_EQ(DanglingCopyReason(copy, nullptr), "its parent ops/etcd.v1 is gone");
  parent["metadata"]["annotations"]["olm.targetNamespaces"] = "t2";
  EXPECT_EQ(DanglingCopyReason(copy, &parent), "its parent no longer targets t1");
  parent["metadata"]["annotations"]["olm.targetNamespaces"] = "";  // all namespaces
  EXPECT_EQ(DanglingCopyReason(copy, &parent), "");
  parent["metadata"]["annotations"].erase("olm.targetNamespaces");  // missing: all namespaces too
  EXPECT_EQ(DanglingCopyReason(copy, &parent), "");
  parent["status"]["phase"] = "Failed";
  parent["status"]["reason"] = "InterOperatorGroupOwnerConflict";
  EXPECT_EQ(DanglingCopyReason(copy, &parent), "its parent failed with InterOperatorGroupOwnerConflict");
  parent = Parent();
  Json home = CsvCopy(parent, "ops");
  parent["metadata"]["annotations"]["olm.targetNamespaces"] = "ops,t1";
  EXPECT_EQ(DanglingCopyReason(home, &parent), "it is in its parent's namespace");
  copy["metadata"]["annotations"].erase("olm.operatorNamespace");
  EXPECT_EQ(DanglingCopyReason(copy, &parent), "it has no olm.operatorNamespace annotation");
}

// §B.5.3: OLMConfig cluster's switch, and its condition's four rows.
TEST(CsvCopies, OlmConfigSwitchesCopiesAndSaysSoInItsCondition) {
  EXPECT_TRUE(CopiedCsvsEnabled(nullptr));
  Json cfg = Json::parse(R"({"metadata":{"name":"cluster"},"spec":{"features":{"disableCopiedCSVs":true}}})");
  EXPECT_FALSE(CopiedCsvsEnabled(&cfg));
  cfg["spec"]["features"]["disableCopiedCSVs"] = false;
  EXPECT_TRUE(CopiedCsvsEnabled(&cfg));

  auto text = [](const CopiedCsvsCondition& c) { return c.status + "/" + c.reason + ": " + c.message; };
  EXPECT_EQ(text(DisabledCopiedCsvsCondition(true, false)),
            "False/CopiedCSVsEnabled: Copied CSVs are enabled and present across the cluster");
  EXPECT_EQ(text(DisabledCopiedCsvsCondition(true, true)),
            "False/CopiedCSVsEnabled: Copied CSVs are enabled and at least one copied CSVs is missing");
  EXPECT_EQ(
      text(DisabledCopiedCsvsCondition(false, true)),
      "False/CopiedCSVsDisabled: Copied CSVs are disabled and at least one unexpected copied CSV was found "
      "for an operator installed in AllNamespace mode");
  EXPECT_EQ(text(DisabledCopiedCsvsCondition(false, false)),
            "True/CopiedCSVsDisabled: Copied CSVs are disabled and no unexpected copied CSVs were found for "
            "operators installed in AllNamespace mode");

  // Written when new or changed; the transition time moves with the status only.
  auto first = OlmConfigStatus(cfg, DisabledCopiedCsvsCondition(true, true), "2027-01-01T00:00:00Z");
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(
      engine::Dump(*first),
      R"({"conditions":[{"type":"DisabledCopiedCSVs","status":"False","lastTransitionTime":)"
      R"("2027-01-01T00:00:00Z","reason":"CopiedCSVsEnabled","message":"Copied CSVs are enabled and at least )"
      R"(one copied CSVs is missing"}]})");
  cfg["status"] = *first;
  EXPECT_FALSE(
      OlmConfigStatus(cfg, DisabledCopiedCsvsCondition(true, true), "2027-01-02T00:00:00Z").has_value());
  auto second = OlmConfigStatus(cfg, DisabledCopiedCsvsCondition(true, false), "2027-01-02T00:00:00Z");
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(engine::GetString((*second)["conditions"][0], {"lastTransitionTime"}), "2027-01-01T00:00:00Z");
  cfg["status"] = *second;
  auto third = OlmConfigStatus(cfg, DisabledCopiedCsvsCondition(false, false), "2027-01-03T00:00:00Z");
  ASSERT_TRUE(third.has_value());
  EXPECT_EQ(engine::GetString((*third)["conditions"][0], {"lastTransitionTime"}), "2027-01-03T00:00:00Z");
  EXPECT_EQ(engine::GetString((*third)["conditions"][0], {"status"}), "True");
}

}  // namespace
}  // namespace recon::olm
