// The views a domain declares on a Secret: computed from the values before
// the redactor hides them, stored beside the markers, stable under a second
// redaction, absent where they cannot be known.
#include "runtime/secret_views.h"

#include "absl/strings/escaping.h"
#include "base/strings.h"
#include "gtest/gtest.h"
#include "runtime/redact.h"

namespace recon::runtime {
namespace {

using engine::Json;
using engine::SecretView;

std::string B64(std::string_view s) { return absl::Base64Escape(Av(s)); }

// Declared unsorted: the hash runs over the keys in sorted order.
const std::vector<SecretView> kViews = {
    {"ops", "certs", "demo/certs", SecretView::Form::kConfigHash, {"b.pem", "a.pem"}}};

Json Secret(std::string_view name, Json data) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", {{"name", name}, {"namespace", "ops"}}},
          {"data", std::move(data)}};
}

std::string View(const Json& body) { return engine::GetString(body, {"reconViews", "demo/certs"}); }

TEST(SecretViews, ConfigHashOverSortedKeysOfTheDecodedBytes) {
  Json body = Secret("certs", {{"b.pem", B64("y")}, {"a.pem", B64("x")}, {"other", B64("z")}});
  ComputeSecretViews(kViews, "ops", "certs", body);
  // sha256("a.pem: x\nb.pem: y\n"); `other` is not covered.
  EXPECT_EQ(View(body), "848f01b4fc1880baf6519b9338c967dfdf4a43b74396e6b7856719143f97f9a0");
}

TEST(SecretViews, AMissingKeyCountsAsEmpty) {
  Json body = Secret("certs", {{"b.pem", B64("y")}});
  ComputeSecretViews(kViews, "ops", "certs", body);
  EXPECT_EQ(View(body), "b8ec651f22b973ea36c6fc59665cbaa4b4cd85b0564e17a93dbe6ab4691a7747");
}

TEST(SecretViews, OnlyTheDeclaredSecret) {
  Json other = Secret("not-certs", {{"a.pem", B64("x")}, {"b.pem", B64("y")}});
  ComputeSecretViews(kViews, "ops", "not-certs", other);
  EXPECT_FALSE(other.contains("reconViews"));
  Json wrong_ns = Secret("certs", {{"a.pem", B64("x")}});
  ComputeSecretViews(kViews, "elsewhere", "certs", wrong_ns);
  EXPECT_FALSE(wrong_ns.contains("reconViews"));
}

TEST(SecretViews, UnknowableValuesLeaveTheViewAsItWas) {
  Json bad = Secret("certs", {{"a.pem", "not base64!"}, {"b.pem", B64("y")}});
  ComputeSecretViews(kViews, "ops", "certs", bad);
  EXPECT_FALSE(bad.contains("reconViews"));
  Json redacted = Secret("certs", {{"a.pem", std::string(kRedactedPrefix) + std::string(64, '0')}});
  redacted["reconViews"]["demo/certs"] = "kept";
  ComputeSecretViews(kViews, "ops", "certs", redacted);
  EXPECT_EQ(View(redacted), "kept");
}

// Through the redactor: the view is stored, no value is, and a second
// redaction (log export -> import) changes nothing.
TEST(SecretViews, RedactorStoresTheViewAndRedactsTwiceAlike) {
  Redactor r(std::string(32, 'k'));
  r.AddSecretViews(kViews);
  records::EventRecord e;
  e.type = records::EventType::kAdded;
  e.object = {"", "v1", "Secret", "ops", "certs", "", "1"};
  e.body = engine::Dump(Secret("certs", {{"a.pem", B64("planted-a-5e1")}, {"b.pem", B64("planted-b-5e2")}}));
  ASSERT_TRUE(r.Redact(e).ok());
  EXPECT_EQ(e.body.find("planted"), std::string::npos);
  EXPECT_EQ(e.body.find(B64("planted-a-5e1")), std::string::npos);
  auto body = engine::ParseJson(e.body);
  ASSERT_TRUE(body.ok());
  EXPECT_EQ(View(*body).size(), 64u);
  std::string once = e.body;
  ASSERT_TRUE(r.Redact(e).ok());
  EXPECT_EQ(e.body, once);
}

}  // namespace
}  // namespace recon::runtime
