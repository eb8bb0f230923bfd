// Redaction of Secrets and sensitive fields before an append: values become
// keyed hashes, key names stay, the same value hashes alike, docker configs
// keep their registry names, bodies without secrets keep their bytes, and a
// store's key is generated once and reused.
#include "runtime/redact.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/escaping.h"
#include "base/strings.h"
#include "engine/json.h"
#include "gtest/gtest.h"
#include "runtime/secret_table.h"

namespace recon::runtime {

using engine::Dump;
using engine::Json;
using engine::ParseJson;
namespace {

constexpr char kPlantedPassword[] = "hunter2-planted-7f3a";
constexpr char kPlantedToken[] = "tok-planted-91bc";

records::EventRecord Object(std::string group, std::string kind, std::string body,
                            records::EventType type = records::EventType::kAdded) {
  records::EventRecord e;
  e.type = type;
  e.object = {std::move(group), "v1", std::move(kind), "ns", "obj", "", "1"};
  e.body = std::move(body);
  return e;
}

std::string B64(std::string_view s) { return absl::Base64Escape(Av(s)); }

Json Body(const records::EventRecord& e) {
  auto j = ParseJson(e.body);
  EXPECT_TRUE(j.ok()) << e.body;
  return j.ok() ? *j : Json();
}

TEST(Redact, HashIsKeyedStableAndMarked) {
  Redactor a(std::string(32, 'a')), a2(std::string(32, 'a')), b(std::string(32, 'b'));
  std::string h = a.Hash("value");
  EXPECT_EQ(h, a2.Hash("value"));
  EXPECT_NE(h, b.Hash("value"));
  EXPECT_NE(h, a.Hash("value2"));
  ASSERT_TRUE(h.starts_with(kRedactedPrefix));
  std::string hex = h.substr(kRedactedPrefix.size());
  EXPECT_EQ(hex.size(), 64u);
  EXPECT_EQ(hex.find_first_not_of("0123456789abcdef"), std::string::npos);
  // HMAC-SHA256 (RFC 4231 test case 2: key "Jefe").
  EXPECT_EQ(
      Redactor("Jefe").Hash("what do ya want for nothing?"),
      recon::StrCat(kRedactedPrefix, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"));
}

TEST(Redact, SecretValuesBecomeHashesKeysStay) {
  Redactor r(std::string(32, 'k'));
  auto e = Object(
      "", "Secret",
      recon::StrCat(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"obj","namespace":"ns"},)",
                    R"("type":"Opaque","data":{"password":")", B64(kPlantedPassword),
                    R"(","empty":""},"stringData":{"token":")", kPlantedToken, R"(","same":")",
                    kPlantedPassword, R"("}})"));
  ASSERT_TRUE(r.Redact(e).ok());
  EXPECT_EQ(e.body.find(kPlantedPassword), std::string::npos) << e.body;
  EXPECT_EQ(e.body.find(B64(kPlantedPassword)), std::string::npos) << e.body;
  EXPECT_EQ(e.body.find(kPlantedToken), std::string::npos) << e.body;
  Json j = Body(e);
  EXPECT_EQ(j["data"]["password"], r.Hash(kPlantedPassword));
  EXPECT_EQ(j["data"]["empty"], r.Hash(""));
  EXPECT_EQ(j["stringData"]["token"], r.Hash(kPlantedToken));
  // data is hashed over the decoded bytes: the same value in stringData matches.
  EXPECT_EQ(j["stringData"]["same"], j["data"]["password"]);
  EXPECT_EQ(j["type"], "Opaque");
  EXPECT_EQ(j["metadata"]["name"], "obj");
}

TEST(Redact, DeletedSecretsAndLastAppliedAnnotationToo) {
  Redactor r(std::string(32, 'k'));
  std::string applied = recon::StrCat(R"({"stringData":{"pw":")", kPlantedPassword, R"("}})");
  Json body = {
      {"apiVersion", "v1"},
      {"kind", "Secret"},
      {"metadata",
       {{"name", "obj"},
        {"annotations", {{"kubectl.kubernetes.io/last-applied-configuration", applied}, {"team", "a"}}}}},
      {"data", {{"pw", B64(kPlantedPassword)}}}};
  auto e = Object("", "Secret", Dump(body), records::EventType::kDeleted);
  ASSERT_TRUE(r.Redact(e).ok());
  EXPECT_EQ(e.body.find(kPlantedPassword), std::string::npos) << e.body;
  Json j = Body(e);
  EXPECT_EQ(j["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"],
            r.Hash(applied));
  EXPECT_EQ(j["metadata"]["annotations"]["team"], "a");
}

TEST(Redact, DockerConfigKeepsRegistryNamesAndStaysBase64Json) {
  Redactor r(std::string(32, 'k'));
  std::string config = recon::StrCat(R"({"auths":{"registry.redhat.io":{"auth":")", B64(kPlantedPassword),
                                     R"(","email":"a@b.c"},"quay.io":{"auth":")", kPlantedToken, R"("}}})");
  auto e = Object("", "Secret",
                  recon::StrCat(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"pull-secret"},)",
                                R"("type":"kubernetes.io/dockerconfigjson","data":{".dockerconfigjson":")",
                                B64(config), R"("},"stringData":{".dockercfg":)", Json(config).dump(), "}}"));
  ASSERT_TRUE(r.Redact(e).ok());
  Json j = Body(e);
  std::string decoded;
  ASSERT_TRUE(absl::Base64Unescape(Av(j["data"][".dockerconfigjson"].get<std::string>()), &decoded));
  EXPECT_EQ(decoded.find(kPlantedPassword), std::string::npos);
  EXPECT_EQ(decoded.find(B64(kPlantedPassword)), std::string::npos);
  EXPECT_EQ(decoded.find(kPlantedToken), std::string::npos);
  auto cfg = ParseJson(decoded);
  ASSERT_TRUE(cfg.ok()) << decoded;
  EXPECT_TRUE((*cfg)["auths"].contains("registry.redhat.io")) << decoded;
  EXPECT_EQ((*cfg)["auths"]["registry.redhat.io"]["auth"], r.Hash(B64(kPlantedPassword)));
  EXPECT_EQ((*cfg)["auths"]["registry.redhat.io"]["email"], r.Hash("a@b.c"));
  EXPECT_EQ((*cfg)["auths"]["quay.io"]["auth"], r.Hash(kPlantedToken));
  // stringData holds the same config as plain JSON: the same redacted JSON.
  EXPECT_EQ(j["stringData"][".dockercfg"], decoded);
}

TEST(Redact, TwiceChangesNothingAndOthersKeepTheirBytes) {
  Redactor r(std::string(32, 'k'));
  auto e = Object("", "Secret",
                  recon::StrCat(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"a":")",
                                B64(kPlantedPassword), R"(",".dockerconfigjson":")",
                                B64(R"({"auths":{"r.io":{"auth":"x"}}})"), R"("}})"));
  ASSERT_TRUE(r.Redact(e).ok());
  std::string once = e.body;
  ASSERT_TRUE(r.Redact(e).ok());
  EXPECT_EQ(e.body, once);
  // Nothing to redact: the bytes as received (spacing included).
  const std::string cm = R"({ "apiVersion":"v1", "kind":"ConfigMap", "data":{"password":"visible"} })";
  auto c = Object("", "ConfigMap", cm);
  ASSERT_TRUE(r.Redact(c).ok());
  EXPECT_EQ(c.body, cm);
  // A Secret is always stored re-serialized: text the parse drops (here a
  // duplicate "data" key, of which only the last counts) must not survive.
  auto dup = Object(
      "", "Secret",
      recon::StrCat(R"({ "kind":"Secret", "data":{"a":")", B64(kPlantedPassword), R"("}, "data":{} })"));
  ASSERT_TRUE(r.Redact(dup).ok());
  EXPECT_EQ(dup.body, R"({"kind":"Secret","data":{}})");
  // A Secret kind in another group is not the core Secret.
  const std::string other = R"({"apiVersion":"x.io/v1","kind":"Secret","data":{"a":"visible"}})";
  auto o = Object("x.io", "Secret", other);
  ASSERT_TRUE(r.Redact(o).ok());
  EXPECT_EQ(o.body, other);
  // Non-object events are left alone.
  records::EventRecord probe;
  probe.type = records::EventType::kProbe;
  probe.probe.data = R"({"password":"visible"})";
  ASSERT_TRUE(r.Redact(probe).ok());
  EXPECT_EQ(probe.probe.data, R"({"password":"visible"})");
}

TEST(Redact, UnreadableSecretBodyKeepsOnlyItsName) {
  Redactor r(std::string(32, 'k'));
  auto e = Object("", "Secret", recon::StrCat(R"({"kind":"Secret","data":{"a":")", kPlantedPassword));
  ASSERT_TRUE(r.Redact(e).ok());
  EXPECT_EQ(e.body, R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"obj","namespace":"ns"}})");
}

TEST(Redact, DomainSensitiveFieldsWithWildcards) {
  Redactor r(std::string(32, 'k'));
  r.AddSensitiveFields({{"example.io", "Widget", {"spec", "credentials", "*", "password"}},
                        {"example.io", "Widget", {"spec", "token"}}});
  Json body = {{"apiVersion", "example.io/v1"},
               {"kind", "Widget"},
               {"spec",
                {{"credentials", Json::array({{{"user", "u1"}, {"password", kPlantedPassword}},
                                              {{"user", "u2"}, {"password", 42}}})},
                 {"token", {{"value", kPlantedToken}, {"nested", Json::array({"t2"})}}},
                 {"visible", "yes"}}}};
  auto e = Object("example.io", "Widget", Dump(body), records::EventType::kModified);
  ASSERT_TRUE(r.Redact(e).ok());
  EXPECT_EQ(e.body.find(kPlantedPassword), std::string::npos) << e.body;
  EXPECT_EQ(e.body.find(kPlantedToken), std::string::npos) << e.body;
  Json j = Body(e);
  EXPECT_EQ(j["spec"]["credentials"][0]["user"], "u1");
  EXPECT_EQ(j["spec"]["credentials"][0]["password"], r.Hash(kPlantedPassword));
  EXPECT_EQ(j["spec"]["credentials"][1]["password"], r.Hash("42"));
  EXPECT_EQ(j["spec"]["token"]["value"], r.Hash(kPlantedToken));
  EXPECT_EQ(j["spec"]["token"]["nested"][0], r.Hash("t2"));
  EXPECT_EQ(j["spec"]["visible"], "yes");
  // Another kind with the same path is untouched.
  auto other = Object("example.io", "Gadget", Dump(body));
  std::string before = other.body;
  ASSERT_TRUE(r.Redact(other).ok());
  EXPECT_EQ(other.body, before);
}

TEST(Redact, CoversSecretsAndMarkedKindsOnly) {
  Redactor r(std::string(32, 'k'));
  r.AddSensitiveFields({{"example.io", "Widget", {"spec", "token"}}});
  EXPECT_TRUE(r.Covers("", "Secret"));
  EXPECT_TRUE(r.Covers("example.io", "Widget"));
  EXPECT_FALSE(r.Covers("", "ConfigMap"));
  EXPECT_FALSE(r.Covers("example.io", "Secret"));
  EXPECT_FALSE(r.Covers("example.io", "Gadget"));
}

TEST(Redact, LearnFillsTheTableAndChangesNothingElse) {
  Redactor r(std::string(32, 'k'));
  auto table = std::make_shared<SecretTable>();
  r.set_secret_table(table);
  std::string body =
      recon::StrCat(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"obj","namespace":"ns"},)",
                    R"("data":{"password":")", B64(kPlantedPassword), R"("}})");
  std::vector<records::EventRecord> seen = {Object("", "Secret", body, records::EventType::kModified),
                                            Object("", "ConfigMap", R"({"data":{"a":"b"}})")};
  r.Learn(seen);
  EXPECT_EQ(seen[0].body, body);  // the caller's records are its own
  EXPECT_EQ(table->sources(), 1u);
  auto found = table->Find(r.Hash(kPlantedPassword));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->value, kPlantedPassword);
  // Without a table there is nothing to learn into, and no harm done.
  Redactor(std::string(32, 'k')).Learn(seen);
}

class RedactKeyFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           recon::StrCat("redact_key_", ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(RedactKeyFile, GeneratedOnceThenReused) {
  auto first = Redactor::ForStore((dir_ / "store").string());
  ASSERT_TRUE(first.ok()) << first.status();
  std::filesystem::path key = dir_ / "store" / std::string(kRedactionKeyFile);
  ASSERT_TRUE(std::filesystem::exists(key));
  struct stat st;
  ASSERT_EQ(stat(key.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(std::filesystem::file_size(key), 65u);  // 64 hex digits and a newline
  auto second = Redactor::ForStore((dir_ / "store").string());
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(first->Hash("v"), second->Hash("v"));
  auto explicit_key = Redactor::FromKeyFile(key.string());
  ASSERT_TRUE(explicit_key.ok()) << explicit_key.status();
  EXPECT_EQ(first->Hash("v"), explicit_key->Hash("v"));
  // Another store gets another key.
  auto other = Redactor::ForStore((dir_ / "other").string());
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_NE(first->Hash("v"), other->Hash("v"));
}

TEST_F(RedactKeyFile, BadKeyFileIsAnErrorNamingIt) {
  std::filesystem::create_directories(dir_);
  std::string path = (dir_ / "key").string();
  std::ofstream(path) << "not hex\n";
  auto r = Redactor::FromKeyFile(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(path), absl::string_view::npos) << r.status();
  EXPECT_NE(r.status().message().find("64 hex digits"), absl::string_view::npos) << r.status();
  auto missing = Redactor::FromKeyFile((dir_ / "missing").string());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace recon::runtime
