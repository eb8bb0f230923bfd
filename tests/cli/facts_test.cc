// `--fact k=v`: JSON values are JSON, anything else stays a string.
#include "cli/facts.h"

#include "gtest/gtest.h"

namespace recon::cli {
namespace {

TEST(Facts, JsonValuesAreJsonAndTheRestStaysAString) {
  struct Case {
    std::string flag;
    engine::Json want;
  };
  const std::vector<Case> cases = {
      {R"(operatorEnv={"RELATED_IMAGE_X":"quay.io/a/b:1"})",
       engine::Json{{"RELATED_IMAGE_X", "quay.io/a/b:1"}}},
      {R"(mirrors=["a.example.com","b.example.com:5000"])",
       engine::Json::array({"a.example.com", "b.example.com:5000"})},
      {"nodes=3", 3},
      {"ratio=0.5", 0.5},
      {"proxy=null", nullptr},
      {"ipv6=true", true},
      {"disconnected=false", false},
      {"version=4.16.0", "4.16.0"},
      {"architecture=arm64", "arm64"},
      {R"(quoted="4.16")", "4.16"},
      {"empty=", ""},
      {"url=https://example.com/a=b", "https://example.com/a=b"},
      {R"(broken={"a":)", R"({"a":)"},
  };
  for (const auto& c : cases) {
    auto facts = ParseFacts({c.flag});
    ASSERT_TRUE(facts.ok()) << c.flag << ": " << facts.status();
    std::string key = c.flag.substr(0, c.flag.find('='));
    EXPECT_EQ((*facts)[key], c.want) << c.flag << " gave " << engine::Dump((*facts)[key]);
  }
}

TEST(Facts, AFlagWithoutKeyIsAnError) {
  for (const char* bad : {"novalue", "=x"}) {
    auto facts = ParseFacts({bad});
    ASSERT_FALSE(facts.ok()) << bad;
    EXPECT_EQ(facts.status().message(), std::string("--fact ") + bad + ": expected key=value");
  }
}

}  // namespace
}  // namespace recon::cli
