// ArmClient over real HTTP against the simulated ARM and AAD: tokens
// (cached, refreshed before expiry, re-fetched after a 401), GET with
// etags, PUT with If-Match and long-running operations, 412, 429 with
// Retry-After, ARM error bodies, request ids and metrics.
#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "tests/adapters/azure/harness.h"

namespace recon::azure {
namespace {

using namespace testing;

constexpr int64_t kSecond = 1'000'000'000;

std::string EtagOf(const ArmResult& r) { return engine::GetString(*engine::ParseJson(r.body), {"etag"}); }

TEST_F(ArmFixture, GetCarriesEtagPropertiesAndRequestIds) {
  MakeClient(TestArmOptions(arm_->url()));
  ArmResult r = Get(kMaster);
  ASSERT_TRUE(r.ok()) << r.Error() << " " << r.body;
  auto j = engine::ParseJson(r.body);
  EXPECT_EQ(engine::GetString(*j, {"id"}), kMaster);
  EXPECT_EQ(engine::GetString(*j, {"properties", "networkSecurityGroup", "id"}), kNsg);
  EXPECT_FALSE(EtagOf(r).empty());
  // The same resource, unchanged: the same etag.
  EXPECT_EQ(EtagOf(Get(kMaster)), EtagOf(r));
  ArmResult missing = Get(std::string(kMaster) + "-gone");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.code, "NotFound");
  sim::ArmStats s = arm_->Stats();
  EXPECT_EQ(s.missing_request_id, 0u);
  ASSERT_GE(s.client_request_ids.size(), 3u);
  EXPECT_NE(s.client_request_ids[0], s.client_request_ids[1]);  // one per request
  EXPECT_EQ(s.tokens_issued, 1u);                               // cached
  std::string metrics = metrics_.Render();
  EXPECT_NE(
      metrics.find("recon_arm_ratelimit_remaining{header=\"x-ms-ratelimit-remaining-subscription-reads\"}"),
      std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("recon_arm_request_duration_seconds_count{op=\"get\"} 3"), std::string::npos)
      << metrics;
}

// The simulated ARM tells a poll that found nothing from one that did
// (recon soak's quiet detection): a GET answered as the previous GET of the
// same resource was.
TEST_F(ArmFixture, ReadsAnsweredAsBeforeAreCountedUnchanged) {
  MakeClient(TestArmOptions(arm_->url()));
  ASSERT_TRUE(Get(kMaster).ok());
  EXPECT_EQ(arm_->Stats().unchanged_reads, 0u);  // the first read of it
  ASSERT_TRUE(Get(kMaster).ok());
  ASSERT_TRUE(Get(kWorker).ok());
  EXPECT_EQ(arm_->Stats().unchanged_reads, 1u);
  DetachNsg(*server_, kMaster);
  ASSERT_TRUE(Get(kMaster).ok());
  EXPECT_EQ(arm_->Stats().unchanged_reads, 1u);  // a new etag
  ASSERT_TRUE(Get(kMaster).ok());
  EXPECT_EQ(arm_->Stats().unchanged_reads, 2u);
  const std::string gone = std::string(kMaster) + "-gone";
  EXPECT_EQ(Get(gone).status, 404);
  EXPECT_EQ(Get(gone).status, 404);
  EXPECT_EQ(arm_->Stats().unchanged_reads, 3u);
}

// ARM sets a service endpoint's provisioningState; a client's PUT without
// one reads back Succeeded (else the aro domain would add it again and again).
TEST_F(ArmFixture, PutServiceEndpointsReadBackSucceeded) {
  MakeClient(TestArmOptions(arm_->url()));
  ArmResult before = Get(kWorker);
  auto props = engine::ParseJson(before.body)->at("properties");
  props["serviceEndpoints"] = engine::Json::array(
      {engine::Json{{"service", "Microsoft.Storage"}, {"locations", engine::Json::array({"*"})}}});
  ASSERT_TRUE(Put(kWorker, engine::Dump(engine::Json{{"properties", props}}), EtagOf(before)).ok());
  auto after = engine::ParseJson(Get(kWorker).body);
  const engine::Json& eps = after->at("properties").at("serviceEndpoints");
  ASSERT_EQ(eps.size(), 1u);
  EXPECT_EQ(engine::GetString(eps[0], {"provisioningState"}), "Succeeded");
}

TEST_F(ArmFixture, PutFollowsTheAsyncOperationToTheEnd) {
  MakeClient(TestArmOptions(arm_->url()));
  arm_->SlowAsync(3);
  ArmResult before = Get(kMaster);
  auto props = engine::ParseJson(before.body)->at("properties");
  props.erase("networkSecurityGroup");
  ArmResult put = Put(kMaster, engine::Dump(engine::Json{{"properties", props}}), EtagOf(before));
  EXPECT_TRUE(put.ok()) << put.Error();
  EXPECT_EQ(arm_->Stats().operation_polls, 4u);  // 3 InProgress, then Succeeded
  EXPECT_EQ(NsgOf(*server_, kMaster), "");
  EXPECT_NE(EtagOf(Get(kMaster)), EtagOf(before));

  arm_->SlowAsync(1, /*fail=*/true);
  ArmResult failed = Put(kMaster, engine::Dump(engine::Json{{"properties", props}}), "");
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(failed.Error(), "InternalServerError: An error occurred (simulated failed operation).");
}

TEST_F(ArmFixture, StaleEtagIsPreconditionFailed) {
  MakeClient(TestArmOptions(arm_->url()));
  ArmResult before = Get(kMaster);
  std::string body =
      engine::Dump(engine::Json{{"properties", engine::ParseJson(before.body)->at("properties")}});
  ArmResult stale = Put(kMaster, body, "W/\"not-the-etag\"");
  EXPECT_EQ(stale.status, 412);
  EXPECT_EQ(stale.code, "PreconditionFailed");
  // The fault: a right etag refused once, as if someone wrote in between.
  arm_->StaleEtags(1);
  EXPECT_EQ(Put(kMaster, body, EtagOf(before)).status, 412);
  EXPECT_TRUE(Put(kMaster, body, EtagOf(before)).ok());
  EXPECT_EQ(arm_->Stats().precondition_failed, 2u);
}

TEST_F(ArmFixture, ThrottledRequestsWaitForRetryAfterThenSucceed) {
  MakeClient(TestArmOptions(arm_->url()));
  arm_->Throttle(2, 7);
  ArmResult r = Get(kMaster);
  EXPECT_TRUE(r.ok()) << r.Error();
  EXPECT_EQ(arm_->Stats().throttled, 2u);
  EXPECT_NE(metrics_.Render().find("recon_arm_retried_total 2"), std::string::npos) << metrics_.Render();
  // Past the retries the caller gets the 429 and ARM's error body.
  ArmOptions few = TestArmOptions(arm_->url());
  few.api.max_retries = 0;
  Run<int>([this](auto done) {
    client_->Shutdown();
    done(0);
  });
  MakeClient(few);
  arm_->Throttle(1, 7);
  ArmResult throttled = Get(kMaster);
  EXPECT_EQ(throttled.status, 429);
  EXPECT_EQ(throttled.code, "TooManyRequests");
  // Final answers by status; the answers retried on Retry-After are counted apart.
  EXPECT_NE(metrics_.Render().find("recon_arm_requests_total{op=\"get\",status=\"429\"} 1"),
            std::string::npos)
      << metrics_.Render();
}

TEST_F(ArmFixture, TokenIsRefreshedBeforeExpiryAndAfterA401) {
  MakeClient(TestArmOptions(arm_->url()));
  EXPECT_TRUE(Get(kMaster).ok());
  EXPECT_TRUE(Get(kWorker).ok());
  EXPECT_EQ(arm_->Stats().tokens_issued, 1u);
  // 3599 s tokens, refreshed 5 min ahead: at +3300 s a new one.
  clock_.Advance(3200 * kSecond);
  EXPECT_TRUE(Get(kMaster).ok());
  EXPECT_EQ(arm_->Stats().tokens_issued, 1u);
  clock_.Advance(100 * kSecond);
  EXPECT_TRUE(Get(kMaster).ok());
  EXPECT_EQ(arm_->Stats().tokens_issued, 2u);
  // Revoked on ARM's side: the 401 drops it, a new one is fetched, once.
  arm_->ExpireTokens();
  EXPECT_TRUE(Get(kMaster).ok());
  sim::ArmStats s = arm_->Stats();
  EXPECT_EQ(s.tokens_issued, 3u);
  EXPECT_EQ(s.unauthorized, 1u);
}

TEST_F(ArmFixture, RotatedAndExpiredSecretsGiveAadErrors) {
  MakeClient(TestArmOptions(arm_->url()));
  arm_->RotateSecret("secret-2");
  auto t = Run<absl::StatusOr<AccessToken>>(
      [this](auto done) { client_->Token("https://graph.microsoft.com/.default", true, done); });
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("AADSTS7000215"), absl::string_view::npos) << t.status();
  ArmResult r = Get(kMaster);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.Error().find("AADSTS7000215"), std::string::npos) << r.Error();
  // The new secret works; an expired one is AADSTS7000222.
  Run<int>([this](auto done) {
    client_->SetCredentials(TestCredentials("secret-2"));
    done(0);
  });
  EXPECT_TRUE(Get(kMaster).ok());
  arm_->ExpireSecret(true);
  t = Run<absl::StatusOr<AccessToken>>(
      [this](auto done) { client_->Token("https://graph.microsoft.com/.default", true, done); });
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("AADSTS7000222"), absl::string_view::npos) << t.status();
}

TEST_F(ArmFixture, ArmDownIsAnErrorNotAHang) {
  MakeClient(TestArmOptions(arm_->url()));
  EXPECT_TRUE(Get(kMaster).ok());
  arm_->SetDown(true);
  ArmResult r = Get(kMaster);
  EXPECT_EQ(r.status, 503);
  arm_->SetDown(false);
  EXPECT_TRUE(Get(kMaster).ok());
  // Gone altogether: a transport error.
  arm_->Stop();
  ArmResult gone = Get(kMaster);
  EXPECT_EQ(gone.status, 0);
  EXPECT_NE(gone.Error().find("Transport"), std::string::npos) << gone.Error();
}

TEST_F(ArmFixture, ApiVersionIsChecked) {
  ArmOptions o = TestArmOptions(arm_->url());
  o.api_version = "2001-01-01";
  MakeClient(o);
  ArmResult r = Get(kMaster);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.code, "InvalidApiVersionParameter");
}

TEST(Credentials, ParsesFilesAndSecrets) {
  auto c = ParseCredentials(
      "# sp\nazure_client_id=client-1\nAZURE_CLIENT_SECRET: \"s3cret\"\nazure_tenant_id = "
      "t\nazure_region=eastus\n");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->client_secret, "s3cret");
  EXPECT_EQ(c->tenant_id, "t");
  EXPECT_EQ(c->region, "eastus");
  EXPECT_EQ(c->Describe().find("s3cret"), std::string::npos);
  EXPECT_FALSE(ParseCredentials("azure_client_id=x\n").ok());
  auto secret = engine::ParseJson(
      R"({"data":{"azure_client_id":"Y2xpZW50LTE=","azure_client_secret":"c2VjcmV0LTE=","azure_tenant_id":"dGVuYW50LTE="}})");
  auto s = CredentialsFromSecret(*secret, nullptr);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->client_secret, "secret-1");
  // A redacted value this process never saw: unknown, not a fake credential.
  auto redacted = engine::ParseJson(
      R"({"data":{"azure_client_id":"Y2xpZW50LTE=","azure_client_secret":"recon-redacted:hmac-sha256:00","azure_tenant_id":"dGVuYW50LTE="}})");
  EXPECT_TRUE(absl::IsUnavailable(CredentialsFromSecret(*redacted, nullptr).status()));
}

// --azure-credentials env: DefaultAzureCredential's first two sources, as
// the ARO operator's pod is configured, and the chain's error otherwise.
TEST(Credentials, FromTheEnvironmentAsDefaultAzureCredential) {
  auto env = [](std::map<std::string, std::string> vars) -> EnvLookup {
    return [vars](std::string_view name) -> std::optional<std::string> {
      auto it = vars.find(std::string(name));
      if (it == vars.end()) return std::nullopt;
      return it->second;
    };
  };
  auto secret = CredentialsFromEnvironment(
      env({{"AZURE_CLIENT_ID", "c"}, {"AZURE_TENANT_ID", "t"}, {"AZURE_CLIENT_SECRET", "s3cret"}}));
  ASSERT_TRUE(secret.ok()) << secret.status();
  EXPECT_EQ(secret->client_secret, "s3cret");
  EXPECT_TRUE(secret->federated_token_file.empty());
  // Workload identity: no secret, a token file.
  auto federated = CredentialsFromEnvironment(env({{"AZURE_CLIENT_ID", "c"},
                                                   {"AZURE_TENANT_ID", "t"},
                                                   {"AZURE_FEDERATED_TOKEN_FILE", "/var/run/token"}}));
  ASSERT_TRUE(federated.ok()) << federated.status();
  EXPECT_EQ(federated->federated_token_file, "/var/run/token");
  EXPECT_TRUE(federated->complete());
  // Nothing set: azidentity's chain error, word for word.
  auto none = CredentialsFromEnvironment(env({}));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(
      none.status().message(),
      "DefaultAzureCredential: failed to acquire a token.\nAttempted credentials:\n"
      "\tEnvironmentCredential: missing environment variable AZURE_TENANT_ID\n"
      "\tWorkloadIdentityCredential: no client ID specified. Check pod configuration or set ClientID in the "
      "options");
  auto partial = CredentialsFromEnvironment(env({{"AZURE_CLIENT_ID", "c"}, {"AZURE_TENANT_ID", "t"}}));
  ASSERT_FALSE(partial.ok());
  EXPECT_NE(
      partial.status().message().find("EnvironmentCredential: incomplete environment variable configuration. "
                                      "Only AZURE_TENANT_ID and AZURE_CLIENT_ID are set"),
      absl::string_view::npos);
  EXPECT_NE(partial.status().message().find("WorkloadIdentityCredential: no token file specified"),
            absl::string_view::npos);
}

// Without credentials, every token request fails with why: the service-
// principal check then reports it (ServicePrincipalValid False/CheckFailed).
TEST_F(ArmFixture, WithoutCredentialsTheTokenRequestCarriesTheCredentialError) {
  MakeClient(TestArmOptions(arm_->url()));
  Run<int>([this](auto done) {
    client_->SetCredentials(Credentials{});
    client_->SetCredentialsError("DefaultAzureCredential: failed to acquire a token.");
    done(0);
  });
  auto t = Run<absl::StatusOr<AccessToken>>(
      [this](auto done) { client_->Token("https://graph.microsoft.com//.default", true, done); });
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), "DefaultAzureCredential: failed to acquire a token.");
}

TEST(TokenClaims, DecodesTheJwtPayloadOnly) {
  EXPECT_EQ(TokenClaims("eyJhbGciOiJub25lIn0.eyJhdWQiOiJ4In0.c2ln"), R"({"aud":"x"})");
  EXPECT_EQ(TokenClaims("opaque"), "{}");
}

}  // namespace
}  // namespace recon::azure
