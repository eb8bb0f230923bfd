// Requests to the API server through one client-side rate limit (QPS and
// burst, a token bucket) and with 429 handling: an answer carrying
// Retry-After (429, or a 5xx that asks for it) is sent again once that has
// passed, up to `max_retries` times, while every other request waits too
// (the bucket pauses); after that the caller gets the 429. The k8s
// adapter's requests and the ARM client's go through one each. Loop thread
// only.
#ifndef RECON_ADAPTERS_HTTP_PACED_CLIENT_H_
#define RECON_ADAPTERS_HTTP_PACED_CLIENT_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>

#include "adapters/http/io_loop.h"
#include "adapters/http/token_bucket.h"
#include "adapters/http/transport.h"

namespace recon::http {

struct PaceOptions {
  double qps = 20;  // client-go's defaults are 5/10; controller-runtime's 20/30
  int burst = 30;
  int max_retries = 5;
  int64_t max_retry_after_s = 60;  // a longer Retry-After is shortened to this
};

class PacedClient {
 public:
  PacedClient(IoLoop& loop, HttpTransport& http, PaceOptions options);
  ~PacedClient();

  // `path` is relative to the server. `gate`, if set, is asked right before
  // the request leaves (after any rate-limit wait); false drops it and
  // `done` gets status 0 with error "fenced".
  void Send(HttpRequest request, HttpTransport::Done done, std::function<bool()> gate = nullptr);
  std::string Url(std::string_view path) const;
  void Shutdown();

  uint64_t sent() const { return sent_.load(); }        // requests launched (any thread)
  uint64_t retried() const { return retried_.load(); }  // answers queued to be sent again (any thread)

 private:
  struct Pending {
    HttpRequest request;
    HttpTransport::Done done;
    std::function<bool()> gate;
    int attempt = 0;
  };
  void Pump();
  void Launch(Pending p);

  IoLoop& loop_;
  HttpTransport& http_;
  PaceOptions options_;
  TokenBucket bucket_;
  std::deque<Pending> queue_;
  uint64_t timer_ = 0;
  bool shutdown_ = false;
  std::atomic<uint64_t> sent_{0}, retried_{0};
};

// The steady clock (the ARM client times its requests with it).
int64_t SteadyNowNs();

}  // namespace recon::http

#endif  // RECON_ADAPTERS_HTTP_PACED_CLIENT_H_
