// Workload identity against the simulated AAD: the credentials name a
// federated token file (the projected service-account token) instead of a
// client secret, and every token request presents that file's JWT as a
// client assertion. The sim accepts an assertion only when its issuer,
// subject and audience match a federated credential of the app and it has
// not expired (adapters/sim/arm_server.h).
#include <gtest/gtest.h>

#include <ctime>
#include <filesystem>
#include <fstream>

#include "absl/strings/escaping.h"
#include "tests/adapters/azure/harness.h"

namespace recon::azure {
namespace {

using namespace testing;

constexpr int64_t kSecond = 1'000'000'000;
constexpr char kIssuer[] = "https://oidc.sim.example/c1-abcde";
constexpr char kSubject[] = "system:serviceaccount:openshift-azure-operator:aro-operator";

// An unsigned JWT with these claims (the sim does not check signatures).
std::string Jwt(const engine::Json& claims) {
  std::string h, p;
  absl::WebSafeBase64Escape(R"({"alg":"RS256","kid":"sim"})", &h);
  absl::WebSafeBase64Escape(engine::Dump(claims), &p);
  return h + "." + p + ".c2ln";
}

engine::Json Claims(const std::string& subject, int64_t exp_in_s) {
  int64_t now = static_cast<int64_t>(std::time(nullptr));
  return engine::Json{{"iss", kIssuer},
                      {"sub", subject},
                      {"aud", engine::Json::array({"api://AzureADTokenExchange"})},
                      {"iat", now},
                      {"exp", now + exp_in_s}};
}

class WorkloadIdentity : public ArmFixture {
 protected:
  sim::ArmServeOptions ArmServeOptionsForTest() override {
    sim::ArmServeOptions ao = ArmFixture::ArmServeOptionsForTest();
    ao.federated.push_back({kIssuer, kSubject});
    return ao;
  }
  void SetUp() override {
    ArmFixture::SetUp();
    dir_ = std::filesystem::temp_directory_path() / ("recon-wi-test-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    token_file_ = (dir_ / "token").string();
  }
  void TearDown() override {
    ArmFixture::TearDown();
    std::filesystem::remove_all(dir_);
  }
  // What the kubelet does when it rotates the projected token.
  void WriteToken(const std::string& text) { std::ofstream(token_file_, std::ios::trunc) << text << "\n"; }
  Credentials FederatedCredentials() {
    Credentials c = TestCredentials();
    c.client_secret.clear();
    c.federated_token_file = token_file_;
    return c;
  }
  absl::StatusOr<AccessToken> FreshGraphToken() {
    return Run<absl::StatusOr<AccessToken>>(
        [this](auto done) { client_->Token("https://graph.microsoft.com/.default", true, done); });
  }

  std::filesystem::path dir_;
  std::string token_file_;
};

TEST_F(WorkloadIdentity, FederatedTokenIsExchangedForArmAndGraphTokens) {
  WriteToken(Jwt(Claims(kSubject, 3600)));
  MakeClient(TestArmOptions(arm_->url()), FederatedCredentials());
  ArmResult r = Get(kMaster);
  ASSERT_TRUE(r.ok()) << r.Error();
  sim::ArmStats s = arm_->Stats();
  EXPECT_EQ(s.assertions_accepted, 1u);
  EXPECT_EQ(s.token_refused, 0u);
  // The service-principal check's flow works the same way: the Graph
  // token's claims name the app.
  auto t = FreshGraphToken();
  ASSERT_TRUE(t.ok()) << t.status();
  auto claims = engine::ParseJson(TokenClaims(t->token));
  EXPECT_EQ(engine::GetString(*claims, {"appid"}), "client-1");
  EXPECT_EQ(engine::GetString(*claims, {"aud"}), "https://graph.microsoft.com");
  EXPECT_EQ(arm_->Stats().assertions_accepted, 2u);
}

TEST_F(WorkloadIdentity, AssertionsAreCheckedAndTheFileIsReadAgainForEachToken) {
  // A token for another service account: no federated credential matches.
  WriteToken(Jwt(Claims("system:serviceaccount:default:other", 3600)));
  MakeClient(TestArmOptions(arm_->url()), FederatedCredentials());
  ArmResult r = Get(kMaster);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.Error().find("AADSTS70021"), std::string::npos) << r.Error();
  EXPECT_NE(r.Error().find("system:serviceaccount:default:other"), std::string::npos) << r.Error();
  // The kubelet rotates the file: the next token request presents the new one.
  WriteToken(Jwt(Claims(kSubject, 3600)));
  EXPECT_TRUE(Get(kMaster).ok());
  EXPECT_EQ(arm_->Stats().assertions_accepted, 1u);
  // An expired projected token (the kubelet stopped refreshing it) is
  // AADSTS700024 at the next refresh; the cached ARM token still works until then.
  WriteToken(Jwt(Claims(kSubject, -60)));
  EXPECT_TRUE(Get(kWorker).ok());
  clock_.Advance(3400 * kSecond);  // past the refresh point of the 3599 s token
  r = Get(kWorker);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.Error().find("AADSTS700024"), std::string::npos) << r.Error();
  // Not a JWT at all; and the file gone.
  WriteToken("not-a-jwt");
  auto t = FreshGraphToken();
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("AADSTS50027"), absl::string_view::npos) << t.status();
  std::filesystem::remove(token_file_);
  t = FreshGraphToken();
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(arm_->Stats().assertions_accepted, 1u);
  EXPECT_GE(arm_->Stats().token_refused, 3u);
}

// Without a federated credential for the app, no assertion is accepted
// (and a client secret is not needed for the refusal to be an AAD one).
TEST_F(ArmFixture, AssertionWithoutAFederatedCredentialIsRefused) {
  auto dir = std::filesystem::temp_directory_path() / ("recon-wi-none-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "token") << Jwt(Claims(kSubject, 3600));
  Credentials c = TestCredentials();
  c.client_secret.clear();
  c.federated_token_file = (dir / "token").string();
  MakeClient(TestArmOptions(arm_->url()), c);
  ArmResult r = Get(kMaster);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.Error().find("AADSTS70021"), std::string::npos) << r.Error();
  EXPECT_EQ(arm_->Stats().tokens_issued, 0u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace recon::azure
