// HTTP for the adapter: libcurl's multi interface driven by the IoLoop's
// libuv loop (CURLMOPT_SOCKETFUNCTION/TIMERFUNCTION → uv_poll/uv_timer).
// Every call and callback is on the loop thread. The bearer token and
// client key go to libcurl only; nothing here logs requests.
#ifndef RECON_ADAPTERS_HTTP_HTTP_CLIENT_H_
#define RECON_ADAPTERS_HTTP_HTTP_CLIENT_H_

#include <curl/curl.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/http/io_loop.h"
#include "adapters/http/transport.h"

namespace recon::http {

class HttpClient final : public HttpTransport {
 public:
  HttpClient(IoLoop& loop, RestConfig config);
  ~HttpClient() override;

  uint64_t Send(HttpRequest request, Done done) override;
  void Cancel(uint64_t id) override;
  void CancelAll() override;
  // Also releases curl and the timer.
  void Close() override;
  size_t in_flight() const override { return transfers_.size(); }
  const RestConfig& config() const override { return config_; }

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

}  // namespace recon::http

#endif  // RECON_ADAPTERS_HTTP_HTTP_CLIENT_H_
