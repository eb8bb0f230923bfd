// A tiny HTTP/1.1 server on a libuv loop for /healthz, /readyz and
// /metrics. Requests are parsed with http-parser (no hand-written HTTP
// parsing); each response closes its connection.
#ifndef RECON_RUNTIME_HTTP_SERVER_H_
#define RECON_RUNTIME_HTTP_SERVER_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

struct uv_loop_s;
struct uv_tcp_s;

namespace recon::runtime {

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

class HttpServer {
 public:
  using Handler = std::function<HttpResponse(const std::string& method, const std::string& path)>;
  HttpServer(uv_loop_s* loop, Handler handler);
  ~HttpServer();
  // Binds and listens; port 0 picks a free port. Returns the bound port.
  absl::StatusOr<int> Listen(const std::string& host, int port);
  // Stops accepting; the loop can then finish.
  void Close();

 private:
  struct Connection;
  static void OnConnection(uv_tcp_s* server, int status);
  uv_loop_s* loop_;
  Handler handler_;
  uv_tcp_s* server_ = nullptr;
};

}  // namespace recon::runtime

#endif  // RECON_RUNTIME_HTTP_SERVER_H_
