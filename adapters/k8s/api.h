// Requests to the API server through one client-side rate limit (QPS and
// burst, a token bucket) and with 429 handling: an answer carrying
// Retry-After (429, or a 5xx that asks for it) is sent again once that has
// passed, up to `max_retries` times, while every other request waits too
// (the bucket pauses); after that the caller gets the 429. Paths of
// resource types and objects are built here. Loop thread only.
#ifndef RECON_ADAPTERS_K8S_API_H_
#define RECON_ADAPTERS_K8S_API_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>

#include "adapters/k8s/http_client.h"
#include "adapters/k8s/token_bucket.h"
#include "engine/resource.h"

namespace recon::k8s {

struct ApiOptions {
  double qps = 20;  // client-go's defaults are 5/10; controller-runtime's 20/30
  int burst = 30;
  int max_retries = 5;
  int64_t max_retry_after_s = 60;  // a longer Retry-After is shortened to this
};

// "/api/v1/namespaces/ns/configmaps", "/apis/g/v/plural" (cluster-scoped or ns "").
std::string CollectionPath(const engine::ResourceType& type, std::string_view ns);
std::string ObjectPath(const engine::ResourceType& type, std::string_view ns, std::string_view name);
// "/api/v1" or "/apis/group/version".
std::string GroupVersionPath(std::string_view group, std::string_view version);

class Api {
 public:
  Api(IoLoop& loop, HttpClient& http, ApiOptions options);
  ~Api();

  // `path` is relative to the server. `gate`, if set, is asked right before
  // the request leaves (after any rate-limit wait); false drops it and
  // `done` gets status 0 with error "fenced".
  void Send(HttpRequest request, HttpClient::Done done, std::function<bool()> gate = nullptr);
  std::string Url(std::string_view path) const;
  void Shutdown();

  uint64_t sent() const { return sent_.load(); }        // requests launched (any thread)
  uint64_t retried() const { return retried_.load(); }  // answers queued to be sent again (any thread)

 private:
  struct Pending {
    HttpRequest request;
    HttpClient::Done done;
    std::function<bool()> gate;
    int attempt = 0;
  };
  void Pump();
  void Launch(Pending p);

  IoLoop& loop_;
  HttpClient& http_;
  ApiOptions options_;
  TokenBucket bucket_;
  std::deque<Pending> queue_;
  uint64_t timer_ = 0;
  bool shutdown_ = false;
  std::atomic<uint64_t> sent_{0}, retried_{0};
};

// The steady clock (the azure adapter times its requests with it).
int64_t SteadyNowNs();

}  // namespace recon::k8s

#endif  // RECON_ADAPTERS_K8S_API_H_
