// The protobuf bodies kubectl 1.32 sends for `kubectl create namespace|
// configmap|secret generic` (captured from kubectl against a recording
// server), decoded into the JSON a JSON client sends.
#include "adapters/sim/protobuf.h"

#include <gtest/gtest.h>

#include "absl/strings/escaping.h"

namespace recon::sim {
namespace {

using engine::Json;

std::string Bytes(std::string_view hex) {
  return absl::HexStringToBytes(absl::string_view(hex.data(), hex.size()));
}

// kubectl create namespace foo
constexpr std::string_view kNamespace =
    "6b3873000a0f0a02763112094e616d657370616365121b0a130a03666f6f12001a0022002a0032003800420012001a02"
    "0a001a002200";
// kubectl create configmap cm1 -n foo --from-literal=a=b --from-literal=greeting=hello
constexpr std::string_view kConfigMap =
    "6b3873000a0f0a0276311209436f6e6669674d617012330a160a03636d3112001a03666f6f22002a0032003800420012"
    "060a016112016212110a086772656574696e67120568656c6c6f1a002200";
// kubectl create secret generic s1 -n foo --from-literal=user=admin --from-literal=pw='p@ss'
constexpr std::string_view kSecret =
    "6b3873000a0c0a027631120653656372657412340a150a02733112001a03666f6f22002a00320038004200120a0a0270"
    "77120470407373120d0a0475736572120561646d696e1a001a002200";

TEST(ProtobufTest, Namespace) {
  auto o = DecodeProtobufObject(Bytes(kNamespace));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(*o, (Json{{"kind", "Namespace"},
                      {"apiVersion", "v1"},
                      {"metadata", {{"name", "foo"}}},
                      {"spec", Json::object()}}));
}

TEST(ProtobufTest, ConfigMap) {
  auto o = DecodeProtobufObject(Bytes(kConfigMap));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(*o, (Json{{"kind", "ConfigMap"},
                      {"apiVersion", "v1"},
                      {"metadata", {{"name", "cm1"}, {"namespace", "foo"}}},
                      {"data", {{"a", "b"}, {"greeting", "hello"}}}}));
}

TEST(ProtobufTest, SecretDataIsBase64AsInJson) {
  auto o = DecodeProtobufObject(Bytes(kSecret));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(*o, (Json{{"kind", "Secret"},
                      {"apiVersion", "v1"},
                      {"metadata", {{"name", "s1"}, {"namespace", "foo"}}},
                      {"data", {{"pw", "cEBzcw=="}, {"user", "YWRtaW4="}}}}));
}

TEST(ProtobufTest, MalformedAndUnknown) {
  EXPECT_TRUE(absl::IsInvalidArgument(DecodeProtobufObject("{}").status()));
  std::string cut = Bytes(kConfigMap).substr(0, 30);
  EXPECT_TRUE(absl::IsInvalidArgument(DecodeProtobufObject(cut).status()));
  // A Deployment envelope (apps/v1): not decoded here.
  std::string deploy = std::string("k8s\0", 4) + Bytes("0a150a07617070732f7631120a4465706c6f796d656e74");
  EXPECT_TRUE(absl::IsUnimplemented(DecodeProtobufObject(deploy).status()));
}

}  // namespace
}  // namespace recon::sim
