// The install-mode check (domains/olm/csv/install_modes.h): each row of the
// reference's table (olm-operator.md §B.1.7) with upstream's exact text.
#include "domains/olm/csv/install_modes.h"

#include <gtest/gtest.h>

namespace recon::olm {
namespace {

using engine::Json;

Json Modes(bool own, bool single, bool multi, bool all) {
  return Json::array({Json{{"type", "OwnNamespace"}, {"supported", own}},
                      Json{{"type", "SingleNamespace"}, {"supported", single}},
                      Json{{"type", "MultiNamespace"}, {"supported", multi}},
                      Json{{"type", "AllNamespaces"}, {"supported", all}}});
}

std::string Text(const std::optional<InstallModeFailure>& f) {
  return f ? f->reason + ": " + f->message : "ok";
}

TEST(CsvInstallModes, EachTargetShapeNeedsItsMode) {
  const Json none = Modes(false, false, false, false);
  EXPECT_EQ(Text(CheckInstallModes(none, "ops", "ops")),
            "UnsupportedOperatorGroup: OwnNamespace InstallModeType not supported, cannot configure to watch own "
            "namespace");
  EXPECT_EQ(Text(CheckInstallModes(none, "ops", "")),
            "UnsupportedOperatorGroup: AllNamespaces InstallModeType not supported, cannot configure to watch all "
            "namespaces");
  EXPECT_EQ(Text(CheckInstallModes(none, "ops", "apps")),
            "UnsupportedOperatorGroup: SingleNamespace InstallModeType not supported, cannot configure to watch one "
            "namespace");
  EXPECT_EQ(Text(CheckInstallModes(none, "ops", "a,b,c")),
            "UnsupportedOperatorGroup: MultiNamespace InstallModeType not supported, cannot configure to watch 3 "
            "namespaces");
  EXPECT_EQ(Text(CheckInstallModes(Modes(true, false, false, false), "ops", "ops")), "ok");
  EXPECT_EQ(Text(CheckInstallModes(Modes(false, false, false, true), "ops", "")), "ok");
  EXPECT_EQ(Text(CheckInstallModes(Modes(false, true, false, false), "ops", "apps")), "ok");
  EXPECT_EQ(Text(CheckInstallModes(Modes(false, false, true, false), "ops", "a,b")), "ok");
}

TEST(CsvInstallModes, SeveralTargetsWithTheOwnNamespaceOrAllOfThem) {
  EXPECT_EQ(Text(CheckInstallModes(Modes(false, false, true, false), "ops", "a,ops")),
            "UnsupportedOperatorGroup: OwnNamespace InstallModeType not supported, cannot configure to watch own "
            "namespace");
  EXPECT_EQ(Text(CheckInstallModes(Modes(true, false, true, false), "ops", "a,ops")), "ok");
  EXPECT_EQ(Text(CheckInstallModes(Modes(true, true, true, true), "ops", "a,")),
            "UnsupportedOperatorGroup: operatorgroup has invalid selected namespaces, NamespaceAll found when "
            "|selected namespaces| > 1");
}

TEST(CsvInstallModes, AMissingTypeIsUnsupportedARepeatedOneIsInvalid) {
  Json only_own = Json::array({Json{{"type", "OwnNamespace"}, {"supported", true}}});
  EXPECT_EQ(CheckInstallModes(only_own, "ops", "apps")->reason, "UnsupportedOperatorGroup");
  Json twice = Json::array({Json{{"type", "OwnNamespace"}, {"supported", true}},
                            Json{{"type", "OwnNamespace"}, {"supported", false}}});
  EXPECT_EQ(Text(CheckInstallModes(twice, "ops", "ops")),
            "InvalidInstallModes: InstallMode list contains duplicates, cannot make set: [{OwnNamespace true} "
            "{OwnNamespace false}]");
}

TEST(CsvInstallModes, NoTargetsAnnotation) {
  EXPECT_EQ(Text(CheckInstallModes(Modes(true, true, true, true), "ops", std::nullopt)),
            "NoTargetNamespaces: csv missing olm.targetNamespaces annotation");
}

}  // namespace
}  // namespace recon::olm
