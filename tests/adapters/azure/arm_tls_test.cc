// ARM and AAD over TLS (issue 53, step 5): the simulated ARM behind a TLS
// front (adapters/sim/tls_frontend.h) with a certificate from a throwaway
// CA for the real host names. The adapter's client verifies it with the CA
// it is given (SSL_CERT_FILE in the agent) and refuses it without.
#include <ctime>
#include <fstream>

#include "adapters/sim/tls_certs.h"
#include "adapters/sim/tls_frontend.h"
#include "tests/adapters/azure/harness.h"
#include "tests/store/test_util.h"

namespace recon::azure {
namespace {

using namespace testing;

class ArmTls : public ArmFixture {
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

TEST_F(ArmTls, WithoutTheCaTheServerIsNotTrusted) {
  MakeClient(Options(/*trust=*/false));
  ArmResult r = Get(kMaster);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(arm_->Stats().tokens_issued, 0u);
  EXPECT_NE(r.Error().find("certificate"), std::string::npos) << r.Error();
}

}  // namespace
}  // namespace recon::azure
