#include "domains/olm/catalog/semver.h"

#include <gtest/gtest.h>

#include "base/strings.h"

namespace recon::olm {
namespace {

std::string ParseError(std::string_view s) {
  auto v = ParseVersion(s);
  return v.ok() ? "ok" : std::string(Sv(v.status().message()));
}

std::string RangeError(std::string_view s) {
  auto r = ParseRange(s);
  return r.ok() ? "ok" : std::string(Sv(r.status().message()));
}

bool In(std::string_view range, std::string_view version) {
  auto r = ParseRange(range);
  EXPECT_TRUE(r.ok()) << range << ": " << r.status();
  auto v = ParseVersion(version);
  EXPECT_TRUE(v.ok()) << version;
  return r.ok() && v.ok() && r->Matches(*v);
}

TEST(SemverParse, UpstreamErrorTexts) {
  EXPECT_EQ(ParseError(""), "Version string empty");
  EXPECT_EQ(ParseError("1.2"), "No Major.Minor.Patch elements found");
  EXPECT_EQ(ParseError("v1.0.0"), "Invalid character(s) found in major number \"v1\"");
  EXPECT_EQ(ParseError("1.00.1"), "Minor number must not contain leading zeroes \"00\"");
  EXPECT_EQ(ParseError("0.1.0.1"), "Invalid character(s) found in patch number \"0.1\"");
  EXPECT_EQ(ParseError("1.0.0-"), "Prerelease is empty");
  EXPECT_EQ(ParseError("1.2.3-01"), "Numeric PreRelease version must not contain leading zeroes \"01\"");
  EXPECT_EQ(ParseError("1.2.3+"), "Build meta data is empty");
  EXPECT_EQ(ParseError("1.2.3+001"), "ok");  // leading zeros allowed in build
  EXPECT_EQ(ParseError(" 1.2.3"), "Invalid character(s) found in major number \" 1\"");
}

TEST(SemverParse, StringKeepsBuild) {
  auto v = ParseVersion("1.2.3-rc.1+build.5");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->String(), "1.2.3-rc.1+build.5");
}

TEST(SemverParse, Tolerant) {
  EXPECT_EQ(ParseVersionTolerant(" v1.2 ")->String(), "1.2.0");
  EXPECT_EQ(ParseVersionTolerant("01.002.03")->String(), "1.2.3");
  EXPECT_FALSE(ParseVersionTolerant("1.2-rc").ok());
  EXPECT_FALSE(ParseVersionTolerant("1.0.0.0").ok());
  EXPECT_FALSE(ParseVersionTolerant("1.2.3-01").ok());
}

TEST(SemverCompare, PrereleaseAndBuild) {
  auto c = [](std::string_view a, std::string_view b) { return Compare(*ParseVersion(a), *ParseVersion(b)); };
  EXPECT_EQ(c("1.0.0", "1.0.0-rc.1"), 1);
  EXPECT_EQ(c("1.0.0-1", "1.0.0-alpha"), -1);  // numeric < alphanumeric
  EXPECT_EQ(c("1.0.0-alpha", "1.0.0-alpha.1"), -1);
  EXPECT_EQ(c("1.0.0-2", "1.0.0-10"), -1);
  EXPECT_EQ(c("1.0.0+a", "1.0.0+b"), 0);
  EXPECT_EQ(c("1.10.0", "1.9.0"), 1);
}

TEST(SemverRange, Basics) {
  EXPECT_TRUE(In(">=1.0.0 <2.0.0", "1.5.0"));
  EXPECT_FALSE(In(">=1.0.0 <2.0.0", "2.0.0"));
  EXPECT_TRUE(In("<1.0.0 || >=3.0.0", "3.1.0"));
  EXPECT_TRUE(In(">= 1.0.0 < 2.0.0", "1.2.0"));  // spaces after operators stay in the token
}

TEST(SemverRange, PrereleasesAreNotExcluded) {
  EXPECT_TRUE(In("<2.0.0", "2.0.0-rc.1"));
  EXPECT_TRUE(In("1.x", "2.0.0-rc.1"));
  EXPECT_FALSE(In("<2.0.0-0", "2.0.0-rc.1"));
  EXPECT_TRUE(In("1.0.0", "1.0.0+build"));  // build metadata ignored
}

TEST(SemverRange, TokenizerQuirks) {
  EXPECT_TRUE(In("! 0.0.0", "0.0.0"));  // "!" dropped: equality
  EXPECT_FALSE(In("! 0.0.0", "0.0.1"));
  EXPECT_TRUE(In(">=1.0.0 <2.0.0 a", "1.0.0"));  // 1-char token ignored
  EXPECT_EQ(RangeError("*"), "Last element in range is '||'");
  EXPECT_EQ(RangeError(""), "Last element in range is '||'");
  EXPECT_EQ(RangeError("|| 1.0.0"), "First element in range is '||'");
  EXPECT_EQ(RangeError("1.0.0 ||"), "Last element in range is '||'");
}

TEST(SemverRange, Wildcards) {
  EXPECT_TRUE(In("1.2.x", "1.2.9"));
  EXPECT_FALSE(In("1.2.x", "1.3.0"));
  EXPECT_TRUE(In(">1.x", "2.0.0"));
  EXPECT_FALSE(In(">1.x", "1.9.0"));
  EXPECT_TRUE(In("<=1.2.x", "1.2.7"));
  EXPECT_FALSE(In("!=1.x", "1.5.0"));
  EXPECT_FALSE(In("!=1.x", "3.0.0"));               // same AND group: matches nothing
  EXPECT_TRUE(In("<1.12.18+x63f4f4c", "1.12.17"));  // real-world: 'x' in build
  EXPECT_EQ(RangeError("<=1.0.0+x1"), "Could not get version from string: \"<\"");
  EXPECT_EQ(RangeError(">1.0.0-x"), "Could not get version from string: \">=\"");
}

TEST(SemverRange, ComparatorErrors) {
  EXPECT_EQ(RangeError(">v0.1.0"),
            "Could not parse Range \">v0.1.0\": Could not parse comparator \">v\" in \">v0.1.0\"");
  EXPECT_EQ(RangeError(">1.00.1"),
            "Could not parse Range \">1.00.1\": Could not parse version \"1.00.1\" in \">1.00.1\": Minor "
            "number must "
            "not contain leading zeroes \"00\"");
  EXPECT_NE(RangeError("~1.0.0"), "ok");
  EXPECT_NE(RangeError("^1.0.0"), "ok");
  EXPECT_NE(RangeError(">=1.0"), "ok");
  EXPECT_NE(RangeError(">=1.0.0,<2.0.0"), "ok");
  EXPECT_NE(RangeError("||<1.0.0"), "ok");
  EXPECT_EQ(RangeError("abc"), "Could not get version from string: \"abc\"");
}

}  // namespace
}  // namespace recon::olm
