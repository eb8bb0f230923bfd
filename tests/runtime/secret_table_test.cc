// The in-memory marker → value table: the redactor records what it
// replaces, Substitute puts real values back into an outgoing action (whole
// data values, stringData, docker configs copied whole or rebuilt, markers
// inside text), unknown markers refuse the action naming the field, and
// entries follow the cluster (a changed value's old marker and a deleted
// Secret's markers are dropped) within the table's bounds.
#include "runtime/secret_table.h"

#include "absl/strings/escaping.h"
#include "base/strings.h"
#include "engine/json.h"
#include "gtest/gtest.h"
#include "runtime/redact.h"

namespace recon::runtime {

using engine::Dump;
using engine::GetString;
using engine::Json;
using engine::ParseJson;
namespace {

constexpr char kPassword[] = "PLANTED-pw-5e7a";
constexpr char kToken[] = "PLANTED-token-5e7b";
constexpr char kAuth[] = "PLANTED-user:pass-5e7c";
constexpr char kRotated[] = "PLANTED-rotated-5e7d";

std::string B64(std::string_view s) { return absl::Base64Escape(Av(s)); }

std::string DockerConfig() {
  return recon::StrCat(R"({"auths":{"registry.redhat.io":{"auth":")", B64(kAuth), R"(","email":"a@b.c"}}})");
}

records::EventRecord SecretEvent(const std::string& name, const Json& body,
                                 records::EventType type = records::EventType::kAdded) {
  records::EventRecord e;
  e.type = type;
  e.object = {"", "v1", "Secret", "ns", name, "", "1"};
  e.body = Dump(body);
  return e;
}

Json Secret(const std::string& name, Json data, Json string_data = nullptr) {
  Json s = {{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", {{"name", name}, {"namespace", "ns"}}}};
  if (!data.is_null()) s["data"] = std::move(data);
  if (!string_data.is_null()) s["stringData"] = std::move(string_data);
  return s;
}

records::ActionRecord Action(std::string verb, const Json& object) {
  records::ActionRecord a;
  a.cause_seq = 7;
  a.domain = "test";
  a.verb = std::move(verb);
  std::string api = object.value("apiVersion", "v1");
  a.object = {api.find('/') == std::string::npos ? "" : api.substr(0, api.find('/')),
              "v1",
              object.value("kind", ""),
              GetString(object, {"metadata", "namespace"}),
              GetString(object, {"metadata", "name"}),
              "",
              ""};
  a.body = Dump(object);
  return a;
}

Json Body(const records::ActionRecord& a) {
  auto j = ParseJson(a.body);
  EXPECT_TRUE(j.ok()) << a.body;
  return j.ok() ? *j : Json();
}

class SecretTableTest : public ::testing::Test {
 protected:
  SecretTableTest() : redactor_(std::string(32, 'k')), table_(std::make_shared<SecretTable>()) {
    redactor_.set_secret_table(table_);
  }
  // Redacts like an append would and returns what reducers see.
  Json Observe(const std::string& name, const Json& body,
               records::EventType type = records::EventType::kAdded) {
    auto e = SecretEvent(name, body, type);
    EXPECT_TRUE(redactor_.Redact(e).ok());
    auto j = ParseJson(e.body);
    return j.ok() ? *j : Json();
  }

  Redactor redactor_;
  std::shared_ptr<SecretTable> table_;
};

TEST_F(SecretTableTest, CopiedDataAndStringDataValuesGoOutReal) {
  Json seen = Observe("src", Secret("src", {{"password", B64(kPassword)}}, {{"token", kToken}}));
  std::string pw_marker = GetString(seen, {"data", "password"});
  std::string token_marker = GetString(seen, {"stringData", "token"});
  ASSERT_TRUE(Redactor::IsRedacted(pw_marker));
  ASSERT_TRUE(Redactor::IsRedacted(token_marker));
  EXPECT_EQ(table_->sources(), 1u);

  // A reducer copies them around: data → data (base64 again), stringData →
  // data, data → stringData (plain), and into a ConfigMap (plain).
  Json copy = Secret("copy", {{"password", pw_marker}, {"token", token_marker}}, {{"pw", pw_marker}});
  copy["metadata"]["labels"] = {{"from", "src"}};
  auto a = Action("create", copy);
  std::string logged = a.body;
  ASSERT_TRUE(table_->Substitute(a).ok());
  Json out = Body(a);
  EXPECT_EQ(GetString(out, {"data", "password"}), B64(kPassword));
  EXPECT_EQ(GetString(out, {"data", "token"}), B64(kToken));
  EXPECT_EQ(GetString(out, {"stringData", "pw"}), kPassword);
  EXPECT_EQ(GetString(out, {"metadata", "labels", "from"}), "src");
  EXPECT_EQ(logged.find(kPassword), std::string::npos);  // the copy that stays keeps markers

  auto cm = Action("update",
                   Json{{"apiVersion", "v1"},
                        {"kind", "ConfigMap"},
                        {"metadata", {{"name", "cfg"}, {"namespace", "ns"}}},
                        {"data", {{"p", pw_marker}, {"header", recon::StrCat("Bearer ", token_marker)}}}});
  ASSERT_TRUE(table_->Substitute(cm).ok());
  EXPECT_EQ(GetString(Body(cm), {"data", "p"}), kPassword);
  EXPECT_EQ(GetString(Body(cm), {"data", "header"}), recon::StrCat("Bearer ", kToken));

  // Nothing to substitute: the body keeps its bytes.
  auto plain =
      Action("update", Json{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "x"}}}});
  std::string before = plain.body;
  ASSERT_TRUE(table_->Substitute(plain).ok());
  EXPECT_EQ(plain.body, before);
}

TEST_F(SecretTableTest, DockerConfigsCopiedWholeOrRebuilt) {
  Json seen = Observe(
      "pull", Secret("pull", {{".dockerconfigjson", B64(DockerConfig())}}, {{".dockercfg", DockerConfig()}}));
  std::string redacted = GetString(seen, {"data", ".dockerconfigjson"});
  std::string redacted_plain = GetString(seen, {"stringData", ".dockercfg"});
  ASSERT_NE(redacted, B64(DockerConfig()));

  // Copied as the log holds it: back byte for byte.
  auto whole =
      Action("create", Secret("copy", {{".dockerconfigjson", redacted}}, {{".dockercfg", redacted_plain}}));
  ASSERT_TRUE(table_->Substitute(whole).ok());
  EXPECT_EQ(GetString(Body(whole), {"data", ".dockerconfigjson"}), B64(DockerConfig()));
  EXPECT_EQ(GetString(Body(whole), {"stringData", ".dockercfg"}), DockerConfig());

  // Rebuilt by a reducer (a registry added): each leaf comes back.
  std::string decoded;
  ASSERT_TRUE(absl::Base64Unescape(Av(redacted), &decoded));
  auto config = ParseJson(decoded);
  ASSERT_TRUE(config.ok());
  (*config)["auths"]["quay.io"] = {{"auth", "public"}};
  auto rebuilt = Action("create", Secret("copy2", {{"config.json", B64(Dump(*config))}}));
  ASSERT_TRUE(table_->Substitute(rebuilt).ok());
  std::string out;
  ASSERT_TRUE(absl::Base64Unescape(Av(GetString(Body(rebuilt), {"data", "config.json"})), &out));
  auto back = ParseJson(out);
  ASSERT_TRUE(back.ok()) << out;
  EXPECT_EQ(GetString(*back, {"auths", "registry.redhat.io", "auth"}), B64(kAuth));
  EXPECT_EQ(GetString(*back, {"auths", "registry.redhat.io", "email"}), "a@b.c");
  EXPECT_EQ(GetString(*back, {"auths", "quay.io", "auth"}), "public");
}

TEST_F(SecretTableTest, UnknownMarkerRefusesNamingObjectAndField) {
  Redactor other(std::string(32, 'o'));  // another store's key
  std::string foreign = other.Hash(kPassword);
  Json copy = Secret("copy", {{"gcscert.pem", foreign}});
  auto a = Action("create", copy);
  std::string before = a.body;
  absl::Status s = table_->Substitute(a);
  ASSERT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  std::string msg(Sv(s.message()));
  EXPECT_NE(msg.find("create Secret ns/copy"), std::string::npos) << msg;
  EXPECT_NE(msg.find("/data/gcscert.pem"), std::string::npos) << msg;
  EXPECT_NE(msg.find("secret value not available in this process; it is re-read from the cluster on the next "
                     "observation"),
            std::string::npos)
      << msg;
  EXPECT_EQ(a.body, before);

  // One known and one unknown: still refused, nothing half-substituted.
  Json seen = Observe("src", Secret("src", {{"password", B64(kPassword)}}));
  auto mixed =
      Action("update", Secret("copy", {{"a", GetString(seen, {"data", "password"})}, {"b", foreign}}));
  before = mixed.body;
  EXPECT_FALSE(table_->Substitute(mixed).ok());
  EXPECT_EQ(mixed.body, before);
  // Inside base64-encoded JSON too.
  auto hidden = Action(
      "create", Secret("copy", {{".dockerconfigjson",
                                 B64(recon::StrCat(R"({"auths":{"r":{"auth":")", foreign, R"("}}})"))}}));
  s = table_->Substitute(hidden);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(Sv(s.message())).find("/data/.dockerconfigjson"), std::string::npos) << s;

  // A delete sends no body; timers and probes have none.
  auto del = Action("delete", copy);
  EXPECT_TRUE(table_->Substitute(del).ok());
}

TEST_F(SecretTableTest, EntriesFollowChangesAndDeletes) {
  Json v1 = Observe("src", Secret("src", {{"password", B64(kPassword)}}));
  std::string old_marker = GetString(v1, {"data", "password"});
  ASSERT_TRUE(table_->Find(old_marker).has_value());
  EXPECT_EQ(table_->Find(old_marker)->value, kPassword);

  // Another Secret holds the same value: the marker is shared.
  Observe("twin", Secret("twin", {{"pw", B64(kPassword)}}));
  EXPECT_EQ(table_->sources(), 2u);

  // Rotated: src's old marker stays only because twin still holds it.
  Json v2 = Observe("src", Secret("src", {{"password", B64(kRotated)}}), records::EventType::kModified);
  std::string new_marker = GetString(v2, {"data", "password"});
  EXPECT_TRUE(table_->Find(new_marker).has_value());
  EXPECT_TRUE(table_->Find(old_marker).has_value());
  Observe("twin", Secret("twin", {{"pw", B64(kPassword)}}), records::EventType::kDeleted);
  EXPECT_FALSE(table_->Find(old_marker).has_value());
  EXPECT_EQ(table_->sources(), 1u);

  Observe("src", Secret("src", {{"password", B64(kRotated)}}), records::EventType::kDeleted);
  EXPECT_FALSE(table_->Find(new_marker).has_value());
  EXPECT_EQ(table_->size(), 0u);
  EXPECT_EQ(table_->bytes(), 0u);

  // An already-redacted body (a log import) teaches nothing.
  Observe("again", v2);
  EXPECT_EQ(table_->size(), 0u);
}

TEST(SecretTable, BoundedOldestObservationForgottenFirst) {
  SecretTable t(/*max_sources=*/2, /*max_bytes=*/1000);
  auto entry = [](const std::string& m, const std::string& v) {
    return std::vector<std::pair<std::string, SecretValue>>{{m, {v, SecretValue::Form::kBytes}}};
  };
  t.Replace("a", entry("m-a", "1"));
  t.Replace("b", entry("m-b", "2"));
  t.Replace("a", entry("m-a", "1"));  // observed again: now the newest
  t.Replace("c", entry("m-c", "3"));  // over the count: b goes
  EXPECT_TRUE(t.Find("m-a").has_value());
  EXPECT_FALSE(t.Find("m-b").has_value());
  EXPECT_TRUE(t.Find("m-c").has_value());
  EXPECT_EQ(t.sources(), 2u);

  t.Replace("big", entry("m-big", std::string(600, 'x')));  // over the bytes: the oldest go
  EXPECT_TRUE(t.Find("m-big").has_value());
  EXPECT_LE(t.bytes(), 1000u);
  t.Replace("huge", entry("m-huge", std::string(2000, 'x')));  // never fits: not kept
  EXPECT_FALSE(t.Find("m-huge").has_value());
  EXPECT_TRUE(t.Find("m-big").has_value());

  SecretTable none(0, 0);  // keeps nothing: every marker is refused
  none.Replace("a", entry("m-a", "1"));
  EXPECT_EQ(none.size(), 0u);
}

TEST(SecretTable, SensitiveFieldLeavesKeepTheirType) {
  Redactor r(std::string(32, 'k'));
  auto table = std::make_shared<SecretTable>();
  r.set_secret_table(table);
  r.AddSensitiveFields({{"example.com", "Db", {"spec", "credentials"}}});
  records::EventRecord e;
  e.type = records::EventType::kAdded;
  e.object = {"example.com", "v1", "Db", "ns", "db", "", "1"};
  e.body =
      R"({"apiVersion":"example.com/v1","kind":"Db","metadata":{"name":"db"},"spec":{"credentials":{"password":"PLANTED-db-5e7e","port":5432}}})";
  ASSERT_TRUE(r.Redact(e).ok());
  auto seen = ParseJson(e.body);
  ASSERT_TRUE(seen.ok());
  Json copy = {{"apiVersion", "example.com/v1"},
               {"kind", "Db"},
               {"metadata", {{"name", "db2"}}},
               {"spec", (*seen)["spec"]}};
  auto a = Action("create", copy);
  ASSERT_TRUE(table->Substitute(a).ok());
  Json out = Body(a);
  EXPECT_EQ(GetString(out, {"spec", "credentials", "password"}), "PLANTED-db-5e7e");
  EXPECT_EQ(out["spec"]["credentials"]["port"], 5432);
}

}  // namespace
}  // namespace recon::runtime
