// An HTTP/1.1 server on a libuv loop for the simulated API server: request
// bodies, keep-alive (and pipelined requests, answered in order), and
// chunked streaming answers that stay open until the owner ends them
// (watches). Parsing is http-parser's. Single-threaded: every call must be
// made on the loop's thread.
#ifndef RECON_ADAPTERS_SIM_HTTP_SERVER_H_
#define RECON_ADAPTERS_SIM_HTTP_SERVER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/json.h"

struct uv_loop_s;
struct uv_tcp_s;

namespace recon::sim {

struct HttpRequest {
  std::string method;                             // "GET"
  std::string url;                                // as sent: path and query
  std::string path;                               // percent-encoded, without the query
  std::multimap<std::string, std::string> query;  // decoded
  std::map<std::string, std::string> headers;     // names lower-cased
  std::string body;

  // The first value of a query parameter, or "".
  std::string Query(const std::string& key) const;
  std::string Header(const std::string& name) const;  // lower-case name
};

struct HttpAnswer {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // A chunked answer that stays open: the owner sends with Send() and
  // finishes with EndStream(). `body` is ignored.
  bool stream = false;
  // Runs once the head is queued (a stream's first chunks go here).
  std::function<void()> after;
};

// A JSON answer with `status` (both simulated servers answer this way).
HttpAnswer JsonAnswer(int status, const engine::Json& body);

class StreamingHttpServer {
 public:
  using ConnId = uint64_t;
  using Handler = std::function<HttpAnswer(const HttpRequest&, ConnId)>;
  using ClosedHandler = std::function<void(ConnId)>;  // the connection is gone (either side)

  StreamingHttpServer(uv_loop_s* loop, Handler handler, ClosedHandler closed);
  ~StreamingHttpServer();

  absl::StatusOr<int> Listen(const std::string& host, int port);  // returns the bound port
  // One chunk on a streaming answer; false when the connection is gone.
  bool Send(ConnId id, std::string_view data);
  // The terminating chunk; the connection then serves further requests.
  void EndStream(ConnId id);
  // Drops a connection without a clean end (a broken stream).
  void Abort(ConnId id);
  void AbortAll();
  // Stops listening and drops every connection.
  void Close();
  size_t connections() const { return conns_.size(); }

 private:
  struct Conn;
  static void OnConnection(uv_tcp_s* server, int status);
  void Finish(Conn* c);  // closes the handle; the closed handler runs once

  uv_loop_s* loop_;
  Handler handler_;
  ClosedHandler closed_;
  uv_tcp_s* server_ = nullptr;
  ConnId next_id_ = 1;
  std::map<ConnId, Conn*> conns_;
};

// "%2F" → "/", "+" → " " (in queries).
std::string PercentDecode(std::string_view s, bool plus_is_space);

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_HTTP_SERVER_H_
