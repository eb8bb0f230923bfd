// A simulated Azure Resource Manager and AAD token endpoint in front of a
// simulated cluster (ApiServer): the cluster's network.azure.com objects
// (Subnet, NetworkSecurityGroup; metadata.name = ARM ID) served at their
// ARM paths with etags, If-Match, api-version checks, long-running PUTs
// (Azure-AsyncOperation) and x-ms-ratelimit-remaining-* headers; a
// client-credentials token endpoint that checks the client secret against
// the cluster's Secret kube-system/azure-credentials, or a client assertion
// (workload identity: a federated token) against the federated credentials
// configured in the options. Fault controls
// (thread-safe, also over HTTP at /recon-sim/v1/arm/fault): throttling
// (429 + Retry-After), slow or failing async operations, stale etags
// (412), an expired or rotated client secret (AADSTS bodies), expired
// tokens, ARM down (503). Runs on its own libuv loop thread; plain HTTP.
#ifndef RECON_ADAPTERS_SIM_ARM_SERVER_H_
#define RECON_ADAPTERS_SIM_ARM_SERVER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "adapters/sim/api_server.h"

namespace recon::sim {

struct ArmServeOptions {
  std::string host = "127.0.0.1";
  int port = 0;
  // api-versions the Microsoft.Network paths accept.
  std::vector<std::string> api_versions = {"2022-07-01", "2023-04-01", "2023-09-01", "2024-01-01"};
  int64_t token_ttl_s = 3599;
  // Used when the cluster has no Secret kube-system/azure-credentials (or
  // it lacks a key).
  std::string client_id = "client-1", client_secret = "secret-1", tenant_id = "tenant-1";
  std::string region = "eastus";
  int async_polls = 1;  // InProgress answers before an operation succeeds
  int async_retry_after_s = 1;
  int64_t read_limit = 12000;  // x-ms-ratelimit-remaining-subscription-reads starts here
  int64_t write_limit = 1200;
  // Workload identity: the app's federated credentials. A client assertion
  // (a JWT; its signature is not checked) is accepted when its iss, sub and
  // aud match one of them and it has not expired (exp, by the wall clock,
  // as AAD checks it). None configured: every assertion is refused.
  struct FederatedCredential {
    std::string issuer, subject, audience = "api://AzureADTokenExchange";
  };
  std::vector<FederatedCredential> federated;
  // How clients reach it: "https" behind `sim serve --arm --tls`'s front.
  // AAD's discovery documents name endpoints at <scheme>://<Host header>.
  std::string public_scheme = "http";
};

struct ArmStats {
  uint64_t requests = 0, gets = 0, puts = 0, operation_polls = 0;
  uint64_t token_requests = 0, tokens_issued = 0, token_refused = 0;
  uint64_t throttled = 0, precondition_failed = 0, unauthorized = 0;
  uint64_t unavailable = 0;          // answered 503 while down
  uint64_t slow_operations = 0;      // PUTs whose operation answers InProgress more than once (SlowAsync)
  uint64_t assertions_accepted = 0;  // tokens issued for a client assertion (workload identity)
  // GETs answered as the previous GET of the same resource was (same etag,
  // or 404 again): a poll that found nothing. Everything else is work
  // (recon soak's quiet detection).
  uint64_t unchanged_reads = 0;
  std::map<std::string, uint64_t> puts_by_id;   // lower-cased ARM ID → PUTs applied
  std::vector<std::string> client_request_ids;  // the last 100 x-ms-client-request-id values
  uint64_t missing_request_id = 0;              // ARM requests without one
};

class ArmServer {
 public:
  static absl::StatusOr<std::unique_ptr<ArmServer>> Start(ApiServer& cluster, ArmServeOptions options);
  ~ArmServer();
  ArmServer(const ArmServer&) = delete;
  ArmServer& operator=(const ArmServer&) = delete;

  int port() const;
  std::string url() const;  // "http://127.0.0.1:PORT": both the ARM and the AAD endpoint
  void Stop();

  // --- fault controls (thread-safe) ---
  // The next `count` ARM requests are answered 429 with Retry-After.
  void Throttle(int count, int retry_after_s);
  // Each new operation answers InProgress `polls` times first; `fail`: it ends Failed.
  void SlowAsync(int polls, bool fail = false);
  // The next `count` PUTs are answered 412 whatever their If-Match.
  void StaleEtags(int count);
  // AAD refuses the current secret: "rotated" (AADSTS7000215, a new secret
  // `new_secret` is now the valid one) or "expired" (AADSTS7000222).
  void RotateSecret(const std::string& new_secret);
  void ExpireSecret(bool expired);
  // Every token issued so far is refused (401 ExpiredAuthenticationToken).
  void ExpireTokens();
  // ARM answers 503 to everything (the token endpoint too) while down.
  void SetDown(bool down);

  ArmStats Stats();
  // Every access token issued so far (tests grep logs and stores for them).
  std::vector<std::string> IssuedTokens();

  class Impl;

 private:
  explicit ArmServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The etag ARM would show for an object's spec (W/"…").
std::string ArmEtag(const std::string& spec_json);

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_ARM_SERVER_H_
