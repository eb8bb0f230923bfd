// The views a domain declares on a Secret: computed from the values before
// the redactor hides them, stored beside the markers, stable under a second
// redaction, absent where they cannot be known.
#include "runtime/secret_views.h"

#include "absl/strings/escaping.h"
#include "base/strings.h"
#include "engine/yaml_json.h"
#include "gtest/gtest.h"
#include "runtime/redact.h"
#include "runtime/secret_table.h"

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

const HideLeaf kNoHide = [](Json&) { ADD_FAILURE() << "a config hash hides nothing"; };

std::string View(const Json& body) { return engine::GetString(body, {"reconViews", "demo/certs"}); }

TEST(SecretViews, ConfigHashOverSortedKeysOfTheDecodedBytes) {
  Json body = Secret("certs", {{"b.pem", B64("y")}, {"a.pem", B64("x")}, {"other", B64("z")}});
  ComputeSecretViews(kViews, "ops", "certs", body, kNoHide);
  // sha256("a.pem: x\nb.pem: y\n"); `other` is not covered.
  EXPECT_EQ(View(body), "848f01b4fc1880baf6519b9338c967dfdf4a43b74396e6b7856719143f97f9a0");
}

TEST(SecretViews, AMissingKeyCountsAsEmpty) {
  Json body = Secret("certs", {{"b.pem", B64("y")}});
  ComputeSecretViews(kViews, "ops", "certs", body, kNoHide);
  EXPECT_EQ(View(body), "b8ec651f22b973ea36c6fc59665cbaa4b4cd85b0564e17a93dbe6ab4691a7747");
}

TEST(SecretViews, OnlyTheDeclaredSecret) {
  Json other = Secret("not-certs", {{"a.pem", B64("x")}, {"b.pem", B64("y")}});
  ComputeSecretViews(kViews, "ops", "not-certs", other, kNoHide);
  EXPECT_FALSE(other.contains("reconViews"));
  Json wrong_ns = Secret("certs", {{"a.pem", B64("x")}});
  ComputeSecretViews(kViews, "elsewhere", "certs", wrong_ns, kNoHide);
  EXPECT_FALSE(wrong_ns.contains("reconViews"));
}

TEST(SecretViews, UnknowableValuesLeaveTheViewAsItWas) {
  Json bad = Secret("certs", {{"a.pem", "not base64!"}, {"b.pem", B64("y")}});
  ComputeSecretViews(kViews, "ops", "certs", bad, kNoHide);
  EXPECT_FALSE(bad.contains("reconViews"));
  Json redacted = Secret("certs", {{"a.pem", std::string(kRedactedPrefix) + std::string(64, '0')}});
  redacted["reconViews"]["demo/certs"] = "kept";
  ComputeSecretViews(kViews, "ops", "certs", redacted, kNoHide);
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

// An alertmanager.yaml with credentials of every kind beside the receivers.
constexpr char kHook[] = "http://hook.example/ready";
constexpr char kAlertmanager[] = R"(global:
  smtp_auth_password: PLANTED-smtp-9c1
  smtp_auth_username: alerts@example.com
  smtp_smarthost: smtp.example.com:587
  resolve_timeout: 5m
receivers:
- name: "null"
- name: Default
  webhook_configs:
  - url: http://hook.example/ready
- name: pager
  webhook_configs:
  - url: https://hooks.example.com/services/PLANTED-hook-7d2
    send_resolved: true
    http_config:
      bearer_token: PLANTED-bearer-4a8
route:
  receiver: Default
  group_wait: 30s
)";

const std::vector<SecretView> kYamlViews = {
    {"mon",
     "am",
     "demo/am",
     SecretView::Form::kYamlTree,
     {"alertmanager.yaml"},
     {{{"receivers", "*", "name"}}, {{"receivers", "*", "webhook_configs", "*", "url"}, {kHook}}}}};

Json Hidden(std::string_view text) {
  Json body = {{"apiVersion", "v1"},
               {"kind", "Secret"},
               {"metadata", {{"name", "am"}, {"namespace", "mon"}}},
               {"data", {{"alertmanager.yaml", B64(text)}}}};
  ComputeSecretViews(kYamlViews, "mon", "am", body, [](Json& v) { v = "hidden"; });
  return body;
}

TEST(SecretViews, YamlTreeShowsOnlyTheClearPathsAndAllowedValues) {
  Json view = Hidden(kAlertmanager)["reconViews"]["demo/am"];
  EXPECT_EQ(view["receivers"][0]["name"], "null");
  EXPECT_EQ(view["receivers"][1]["name"], "Default");
  EXPECT_EQ(view["receivers"][1]["webhook_configs"][0]["url"], kHook);
  EXPECT_EQ(view["receivers"][2]["name"], "pager");
  // Another URL may carry a token: hidden, as every other scalar.
  EXPECT_EQ(view["receivers"][2]["webhook_configs"][0]["url"], "hidden");
  EXPECT_EQ(view["receivers"][2]["webhook_configs"][0]["send_resolved"], "hidden");
  EXPECT_EQ(view["receivers"][2]["webhook_configs"][0]["http_config"]["bearer_token"], "hidden");
  EXPECT_EQ(view["global"]["smtp_auth_password"], "hidden");
  EXPECT_EQ(view["route"]["receiver"], "hidden");
  EXPECT_EQ(engine::Dump(view).find("PLANTED"), std::string::npos);
}

TEST(SecretViews, YamlThatDoesNotParseNamesOnlyTheLine) {
  Json view = Hidden("receivers:\n- name: PLANTED-x\n  bad: [unclosed\n")["reconViews"]["demo/am"];
  ASSERT_TRUE(view.contains("reconError")) << engine::Dump(view);
  EXPECT_TRUE(engine::GetString(view, {"reconError"}).starts_with("alertmanager.yaml: yaml: line ")) << view;
  EXPECT_EQ(engine::Dump(view).find("PLANTED"), std::string::npos);
}

// Through the redactor and back: the log holds no credential in any form,
// and a YAML a reducer builds from the view (markers as plain scalars)
// reaches the cluster with every credential as it was.
TEST(SecretViews, YamlTreeRedactedThenPutBackByTheSecretTable) {
  Redactor r(std::string(32, 'k'));
  r.AddSecretViews(kYamlViews);
  auto table = std::make_shared<SecretTable>();
  r.set_secret_table(table);
  records::EventRecord e;
  e.type = records::EventType::kAdded;
  e.object = {"", "v1", "Secret", "mon", "am", "", "1"};
  e.body = engine::Dump(Json{{"apiVersion", "v1"},
                             {"kind", "Secret"},
                             {"metadata", {{"name", "am"}, {"namespace", "mon"}}},
                             {"data", {{"alertmanager.yaml", B64(kAlertmanager)}}}});
  ASSERT_TRUE(r.Redact(e).ok());
  for (const std::string planted : {"PLANTED-smtp-9c1", "PLANTED-hook-7d2", "PLANTED-bearer-4a8"}) {
    EXPECT_EQ(e.body.find(planted), std::string::npos) << planted;
  }
  EXPECT_EQ(e.body.find(B64(kAlertmanager)), std::string::npos);
  // Redacted again (an export imported), the body stays as it is.
  records::EventRecord again = e;
  Redactor r2(std::string(32, 'k'));
  r2.AddSecretViews(kYamlViews);
  ASSERT_TRUE(r2.Redact(again).ok());
  EXPECT_EQ(again.body, e.body);

  // A reducer's edit of the view: every receiver's webhook replaced.
  Json body = *engine::ParseJson(e.body);
  Json tree = body["reconViews"]["demo/am"];
  tree["receivers"][0]["webhook_configs"] = Json::array({{{"url", kHook}}});
  body.erase("reconViews");
  body["data"]["alertmanager.yaml"] = B64(engine::EmitYaml(tree));
  records::ActionRecord a;
  a.verb = "update";
  a.object = {"", "v1", "Secret", "mon", "am", "", ""};
  a.body = engine::Dump(body);
  auto substituted = table->Substitute(a);
  ASSERT_TRUE(substituted.ok()) << substituted;
  std::string sent;
  ASSERT_TRUE(absl::Base64Unescape(
      engine::GetString(*engine::ParseJson(a.body), {"data", "alertmanager.yaml"}), &sent));
  auto got = engine::ParseYaml(sent);
  ASSERT_TRUE(got.ok()) << got.status() << "\n" << sent;
  auto want = engine::ParseYaml(kAlertmanager);
  ASSERT_TRUE(want.ok());
  (*want)["receivers"][0]["webhook_configs"] = Json::array({{{"url", kHook}}});
  EXPECT_EQ(engine::EmitYaml(*got), engine::EmitYaml(*want)) << sent;  // keys sorted
}

}  // namespace
}  // namespace recon::runtime
