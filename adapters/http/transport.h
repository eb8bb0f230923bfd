// The HTTP transport under the k8s and ARM clients: a request goes out, one
// answer comes back on the loop thread. HttpClient (curl-multi on the
// IoLoop) is the real one; FakeTransport (fake_transport.h) its in-memory
// twin, which tests answer by hand.
#ifndef RECON_ADAPTERS_HTTP_TRANSPORT_H_
#define RECON_ADAPTERS_HTTP_TRANSPORT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/http/rest_config.h"

namespace recon::http {

struct HttpRequest {
  std::string method = "GET";
  std::string url;
  std::string body;
  std::string content_type = "application/json";
  int64_t timeout_ms = 30'000;  // whole transfer; 0: none (watches end by timeoutSeconds)
  int64_t connect_timeout_ms = 10'000;
  // Streaming (watch): each chunk of a 2xx body goes here instead of
  // HttpResponse::body; returning false aborts the transfer.
  std::function<bool(std::string_view)> on_data;
  // A request to the cluster (server TLS settings, bearer token, client
  // certificate); false for probes of the outside world.
  bool cluster = true;
  // Extra request headers, "Name: value" (e.g. X-Recon-Action).
  std::vector<std::string> headers;
};

struct HttpResponse {
  int status = 0;              // 0: no HTTP answer (see error)
  std::string body;            // non-streamed, or a streamed request's error body
  std::string error;           // transport error text (curl's), without the URL
  int64_t retry_after_s = -1;  // Retry-After header, seconds
  // Every header of the final answer, names lower-cased (ARM's
  // Azure-AsyncOperation, Location, x-ms-ratelimit-remaining-*).
  std::vector<std::pair<std::string, std::string>> headers;
  std::string Header(std::string_view lower_name) const;
};

class HttpTransport {
 public:
  using Done = std::function<void(HttpResponse)>;
  virtual ~HttpTransport() = default;

  // Starts a transfer; `done` runs once when it ends (also when cancelled,
  // with error "cancelled"). Returns an id for Cancel.
  virtual uint64_t Send(HttpRequest request, Done done) = 0;
  virtual void Cancel(uint64_t id) = 0;
  virtual void CancelAll() = 0;
  // Cancels everything and releases what the transport holds (loop thread,
  // once, before the loop stops).
  virtual void Close() = 0;
  virtual size_t in_flight() const = 0;
  // The server, its TLS settings and token.
  virtual const RestConfig& config() const = 0;
};

// Percent-encodes a query parameter value.
std::string UrlEncode(std::string_view s);

}  // namespace recon::http

#endif  // RECON_ADAPTERS_HTTP_TRANSPORT_H_
