// engine/json.h: PeekString reads one string field of JSON text without a tree.
#include "engine/json.h"

#include <gtest/gtest.h>

namespace recon::engine {
namespace {

TEST(PeekString, ReadsANestedStringField) {
  const std::string body = R"({"kind":"ConfigMap","metadata":{"name":"a","uid":"u-1"},"data":{"x":"y"}})";
  EXPECT_EQ(PeekString(body, {"metadata", "uid"}), "u-1");
  EXPECT_EQ(PeekString(body, {"kind"}), "ConfigMap");
  EXPECT_EQ(PeekString(body, {"data", "x"}), "y");
}

TEST(PeekString, SaysNothingWhenMissingNotAStringOrNotJson) {
  const std::string body = R"({"metadata":{"name":"a","generation":3,"labels":{}}})";
  EXPECT_EQ(PeekString(body, {"metadata", "uid"}), std::nullopt);
  EXPECT_EQ(PeekString(body, {"metadata", "generation"}), std::nullopt);
  EXPECT_EQ(PeekString(body, {"metadata", "name", "deeper"}), std::nullopt);
  EXPECT_EQ(PeekString(body, {"metadata"}), std::nullopt);
  EXPECT_EQ(PeekString("{not json", {"metadata"}), std::nullopt);
  EXPECT_EQ(PeekString("", {"a"}), std::nullopt);
  EXPECT_EQ(PeekString(std::string_view(), {"a"}), std::nullopt);
}

TEST(PeekString, AgreesWithTheParsedTree) {
  const std::string body = R"({"s":"tab\tquote\" \u00e9 \ud83d\ude00","n":{"s":""}})";
  auto tree = ParseJson(body);
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(PeekString(body, {"s"}), GetString(*tree, {"s"}));
  EXPECT_EQ(PeekString(body, {"n", "s"}), "");
}

}  // namespace
}  // namespace recon::engine
