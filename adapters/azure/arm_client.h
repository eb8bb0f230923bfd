// ARM and AAD over HTTP, on the azure adapter's I/O loop (the k8s
// adapter's IoLoop, HttpClient and Api: curl-multi on libuv, a client-side
// rate limit, 429/Retry-After). Tokens come from AAD's client-credentials
// flow, cached per scope and fetched again `refresh_before` ahead of
// expiry; a 401 from ARM drops the cached token and retries once. Every
// request carries a fresh x-ms-client-request-id; latency, answers and
// x-ms-ratelimit-remaining-* go to the metrics. Loop thread only. Tokens
// and secrets are never logged.
#ifndef RECON_ADAPTERS_AZURE_ARM_CLIENT_H_
#define RECON_ADAPTERS_AZURE_ARM_CLIENT_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "adapters/azure/credentials.h"
#include "adapters/http/http_client.h"
#include "adapters/http/io_loop.h"
#include "adapters/http/paced_client.h"
#include "base/splitmix.h"
#include "runtime/metrics.h"
#include "runtime/time_source.h"

namespace recon::azure {

inline constexpr std::string_view kArmScope = "https://management.azure.com/.default";

struct ArmOptions {
  std::string arm_endpoint = "https://management.azure.com";
  std::string aad_endpoint = "https://login.microsoftonline.com";
  std::string api_version = "2023-09-01";  // Microsoft.Network
  http::PaceOptions api{10, 20, 5, 60};    // qps, burst, 429 retries, longest Retry-After honoured (s)
  int64_t request_timeout_ms = 30'000;
  int64_t refresh_before_ns = 5 * 60 * 1'000'000'000LL;  // token refresh ahead of expiry
  // Long-running operations: the interval between status polls when the
  // answer names none (Retry-After), and the longest one honoured.
  int64_t lro_poll_ms = 2'000;
  int64_t lro_max_poll_ms = 30'000;
  int lro_max_polls = 600;
  uint64_t seed = 1;  // client request ids
  // The CA bundle ARM and AAD are verified with ("": the system's). The
  // agent passes SSL_CERT_FILE, as the ARO operator honours it.
  std::string ca_file;
};

// One ARM answer (the final one for a PUT with a long-running operation).
struct ArmResult {
  int status = 0;             // HTTP status; 0: no answer (`transport` says why)
  std::string transport;      // transport error, or why nothing was sent (no credentials)
  std::string body;           // the resource (GET, PUT) or error body
  std::string code, message;  // ARM's error.code / error.message, or AAD's error / description
  bool async_failed = false;  // the PUT was accepted but its operation ended Failed/Canceled
  bool ok() const { return transport.empty() && !async_failed && status / 100 == 2; }
  // "Code: message" for an ActionResult, or the transport error.
  std::string Error() const;
};

struct AccessToken {
  std::string token;
  int64_t expires_ns = 0;  // by the injected clock
};

class ArmClient {
 public:
  using Done = std::function<void(ArmResult)>;
  ArmClient(http::IoLoop& loop, ArmOptions options, const runtime::TimeSource& clock,
            runtime::Metrics* metrics);
  ~ArmClient();

  // New credentials drop every cached token (a rotated secret).
  void SetCredentials(Credentials c);
  // Why there are no credentials, for every token request while there are
  // none (--azure-credentials env: DefaultAzureCredential's error).
  void SetCredentialsError(std::string error) { creds_error_ = std::move(error); }
  bool has_credentials() const { return creds_.complete(); }

  void Get(const std::string& id, Done done);
  // PUT {"properties": ...} with If-Match when `etag` is set; follows
  // Azure-AsyncOperation / Location to the end.
  void Put(const std::string& id, std::string body, const std::string& etag, Done done);
  // A token for `scope`; `fresh` skips the cache (the service-principal check).
  void Token(const std::string& scope, bool fresh, std::function<void(absl::StatusOr<AccessToken>)> done);
  void Shutdown();

  uint64_t token_requests() const { return token_requests_; }

 private:
  struct Waiters {
    std::vector<std::function<void(absl::StatusOr<AccessToken>)>> fns;
  };
  void Send(http::HttpRequest req, const std::string& op, bool retried_401, Done done);
  void FetchToken(const std::string& scope, std::function<void(absl::StatusOr<AccessToken>)> done);
  void PollAfter(std::string url, bool azure_async, int polls, int64_t retry_after_s, ArmResult put,
                 Done done);
  void PollOperation(std::string url, bool azure_async, int polls, ArmResult put, Done done);
  void Record(const std::string& op, const http::HttpResponse& r, int64_t start_steady_ns);
  std::string Url(const std::string& id_or_url) const;
  std::string RequestId();

  http::IoLoop& loop_;
  ArmOptions options_;
  const runtime::TimeSource& clock_;
  runtime::Metrics* metrics_;
  std::unique_ptr<http::HttpClient> http_;
  std::unique_ptr<http::PacedClient> api_;
  SplitMix64 rng_;
  Credentials creds_;
  std::string creds_error_;
  uint64_t generation_ = 0;  // credentials version: answers for older ones are dropped from the cache
  std::map<std::string, AccessToken> tokens_;
  std::map<std::string, Waiters> fetching_;
  uint64_t token_requests_ = 0;
  bool shutdown_ = false;
};

// A JWT's payload (claims) as JSON text, or "{}" for an opaque token.
std::string TokenClaims(const std::string& token);
// ARM's {"error":{"code","message"}} or AAD's {"error","error_description"}.
void ParseError(const std::string& body, std::string* code, std::string* message);

}  // namespace recon::azure

#endif  // RECON_ADAPTERS_AZURE_ARM_CLIENT_H_
