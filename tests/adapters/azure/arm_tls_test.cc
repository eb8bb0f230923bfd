// ARM and AAD over TLS (issue 53, step 5): the simulated ARM behind a TLS
// front (adapters/sim/tls_frontend.h) with a certificate from a throwaway
// CA for the real host names. The adapter's client verifies it with the CA
// it is given (SSL_CERT_FILE in the agent) and refuses it without.
#include <ctime>
#include <fstream>

#include "adapters/http/http_client.h"
#include "adapters/sim/tls_certs.h"
#include "adapters/sim/tls_frontend.h"
#include "tests/adapters/azure/harness.h"
#include "tests/store/test_util.h"

namespace recon::azure {
namespace {

using namespace testing;

class ArmTls : public ArmFixture {
 public:
  // The simulated ARM as an SDK client reaches it: told it is behind TLS.
  sim::ArmServeOptions ArmServeOptionsForTest() override {
    sim::ArmServeOptions o = ArmFixture::ArmServeOptionsForTest();
    o.public_scheme = "https";
    return o;
  }

 protected:
  void SetUp() override {
    ArmFixture::SetUp();
    auto m = sim::MakeServingCertificate(sim::AzureServingHosts(), std::time(nullptr), 1);
    ASSERT_TRUE(m.ok()) << m.status();
    ASSERT_TRUE(sim::WriteTlsMaterial(*m, tmp_.Sub("tls")).ok());
    auto front = sim::TlsFrontend::Start(*m, "127.0.0.1", 0, arm_->port());
    ASSERT_TRUE(front.ok()) << front.status();
    front_ = std::move(*front);
  }
  void TearDown() override {
    ArmFixture::TearDown();
    front_.reset();
  }
  ArmOptions Options(bool trust) {
    ArmOptions o = TestArmOptions(front_->url());
    if (trust) o.ca_file = tmp_.Sub("tls") + "/ca.crt";
    return o;
  }

  store::testing::TempDir tmp_;
  std::unique_ptr<sim::TlsFrontend> front_;
};

TEST_F(ArmTls, ReadsWritesAndTokensOverTlsWithTheCa) {
  MakeClient(Options(/*trust=*/true));
  ArmResult r = Get(kMaster);
  ASSERT_TRUE(r.ok()) << r.Error();
  EXPECT_EQ(arm_->Stats().tokens_issued, 1u);  // the AAD token request went over TLS too
  auto t = Run<absl::StatusOr<AccessToken>>(
      [this](auto done) { client_->Token("https://graph.microsoft.com//.default", true, done); });
  EXPECT_TRUE(t.ok()) << t.status();
  EXPECT_GE(front_->handshakes(), 1u);
  EXPECT_EQ(front_->refused(), 0u);
}

// What the Azure SDK for Go (MSAL) does before its token request: the
// tenant's OpenID configuration names the token endpoint, back at the host
// the client used, over TLS; that endpoint issues the token. (The SDK itself
// ran against it: tests/adapters/azure/upstream/aad_check.sh.)
TEST_F(ArmTls, OpenIdConfigurationLeadsToTheTokenEndpoint) {
  http::RestConfig rest;
  rest.server = front_->url();
  rest.outside_ca_file = tmp_.Sub("tls") + "/ca.crt";
  // Made, used and closed on the loop's thread, as the adapters do.
  std::unique_ptr<http::HttpClient> client;
  Run<int>([&](auto done) {
    client = std::make_unique<http::HttpClient>(loop_, rest);
    done(0);
  });
  auto fetch = [&](http::HttpRequest req) {
    req.cluster = false;
    return Run<http::HttpResponse>([&client, req](auto done) { client->Send(req, done); });
  };
  http::HttpRequest get;
  get.url = front_->url() + "/tenant-1/v2.0/.well-known/openid-configuration";
  http::HttpResponse config = fetch(get);
  ASSERT_EQ(config.status, 200) << config.error << config.body;
  auto doc = engine::ParseJson(config.body);
  ASSERT_TRUE(doc.ok());
  const std::string token_endpoint = engine::GetString(*doc, {"token_endpoint"});
  EXPECT_EQ(token_endpoint, front_->url() + "/tenant-1/oauth2/v2.0/token");
  EXPECT_EQ(engine::GetString(*doc, {"issuer"}), "https://login.microsoftonline.com/tenant-1/v2.0");
  EXPECT_FALSE(engine::GetString(*doc, {"authorization_endpoint"}).empty());
  http::HttpRequest discovery;
  discovery.url = front_->url() + "/common/discovery/instance?api-version=1.1&authorization_endpoint=" +
                  "https://login.microsoftonline.com/tenant-1/oauth2/v2.0/authorize";
  http::HttpResponse instance = fetch(discovery);
  ASSERT_EQ(instance.status, 200) << instance.error;
  EXPECT_EQ(engine::GetString(*engine::ParseJson(instance.body), {"tenant_discovery_endpoint"}),
            front_->url() + "/tenant-1/v2.0/.well-known/openid-configuration");
  http::HttpRequest token;
  token.method = "POST";
  token.url = token_endpoint;
  token.content_type = "application/x-www-form-urlencoded";
  token.body =
      "grant_type=client_credentials&client_id=client-1&client_secret=secret-1&"
      "scope=https%3A%2F%2Fgraph.microsoft.com%2F%2F.default+openid+offline_access+profile";
  http::HttpResponse answer = fetch(token);
  ASSERT_EQ(answer.status, 200) << answer.error << answer.body;
  std::string access = engine::GetString(*engine::ParseJson(answer.body), {"access_token"});
  // Graph, as AAD names it, from the double-slash scope and MSAL's extra scopes.
  EXPECT_EQ(engine::GetString(*engine::ParseJson(TokenClaims(access)), {"aud"}),
            "https://graph.microsoft.com");
  Run<int>([&](auto done) {
    client->Close();
    client.reset();
    done(0);
  });
}

TEST_F(ArmTls, WithoutTheCaTheServerIsNotTrusted) {
  MakeClient(Options(/*trust=*/false));
  ArmResult r = Get(kMaster);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(arm_->Stats().tokens_issued, 0u);
  EXPECT_NE(r.Error().find("certificate"), std::string::npos) << r.Error();
}

}  // namespace
}  // namespace recon::azure
