// HTTP for the adapter: libcurl's multi interface driven by the IoLoop's
// libuv loop (CURLMOPT_SOCKETFUNCTION/TIMERFUNCTION → uv_poll/uv_timer).
// Every call and callback is on the loop thread. The bearer token and
// client key go to libcurl only; nothing here logs requests.
#ifndef RECON_ADAPTERS_K8S_HTTP_CLIENT_H_
#define RECON_ADAPTERS_K8S_HTTP_CLIENT_H_

#include <curl/curl.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/k8s/io_loop.h"
#include "adapters/k8s/kubeconfig.h"

namespace recon::k8s {

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

class HttpClient {
 public:
  using Done = std::function<void(HttpResponse)>;
  HttpClient(IoLoop& loop, RestConfig config);
  ~HttpClient();

  // Starts a transfer; `done` runs once when it ends (also when cancelled,
  // with error "cancelled"). Returns an id for Cancel.
  uint64_t Send(HttpRequest request, Done done);
  void Cancel(uint64_t id);
  void CancelAll();
  // Cancels everything and releases curl and the timer (loop thread, once,
  // before the loop stops).
  void Close();
  size_t in_flight() const { return transfers_.size(); }
  const RestConfig& config() const { return config_; }

 private:
  struct Transfer;
  struct Socket;
  static int OnSocket(CURL* easy, curl_socket_t s, int what, void* userp, void* socketp);
  static int OnTimer(CURLM* multi, long timeout_ms, void* userp);
  static size_t OnWrite(char* data, size_t size, size_t n, void* userp);
  static size_t OnHeader(char* data, size_t size, size_t n, void* userp);
  void Action(curl_socket_t s, int flags);
  void CheckDone();
  void Finish(Transfer* t, CURLcode code);
  std::string Token();

  IoLoop& loop_;
  RestConfig config_;
  CURLM* multi_;
  uv_timer_t timer_;
  std::map<uint64_t, Transfer*> transfers_;
  uint64_t next_id_ = 1;
  bool closed_ = false;
  std::string token_cache_;
  int64_t token_read_ns_ = 0;
};

// Percent-encodes a query parameter value.
std::string UrlEncode(std::string_view s);

}  // namespace recon::k8s

#endif  // RECON_ADAPTERS_K8S_HTTP_CLIENT_H_
