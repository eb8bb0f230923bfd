#include "runtime/http_server.h"

#include <http_parser.h>
#include <uv.h>

#include <cstring>

#include "base/strings.h"
#include "runtime/tcp_listen.h"

namespace recon::runtime {
namespace {

const char* Reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}

}  // namespace

struct HttpServer::Connection {
  uv_tcp_t tcp;
  http_parser parser;
  http_parser_settings settings;
  HttpServer* server;
  std::string url;
  bool responded = false;
  uv_write_t write_req;
  std::string out;

  static void OnAlloc(uv_handle_t*, size_t suggested, uv_buf_t* buf) {
    buf->base = new char[suggested];
    buf->len = suggested;
  }
  static void OnClose(uv_handle_t* h) { delete static_cast<Connection*>(h->data); }
  static void OnWritten(uv_write_t* req, int) {
    auto* c = static_cast<Connection*>(req->data);
    uv_close(reinterpret_cast<uv_handle_t*>(&c->tcp), OnClose);
  }
  void Respond(const HttpResponse& r) {
    if (responded) return;
    responded = true;
    out = recon::StrCat("HTTP/1.1 ", r.status, " ", Reason(r.status), "\r\nContent-Type: ", r.content_type,
                        "\r\nContent-Length: ", r.body.size(), "\r\nConnection: close\r\n\r\n", r.body);
    uv_buf_t buf = uv_buf_init(out.data(), static_cast<unsigned>(out.size()));
    write_req.data = this;
    uv_read_stop(reinterpret_cast<uv_stream_t*>(&tcp));
    if (uv_write(&write_req, reinterpret_cast<uv_stream_t*>(&tcp), &buf, 1, OnWritten) != 0) {
      uv_close(reinterpret_cast<uv_handle_t*>(&tcp), OnClose);
    }
  }
  static int OnUrl(http_parser* p, const char* at, size_t len) {
    auto* c = static_cast<Connection*>(p->data);
    if (c->url.size() + len > 8192) return 1;  // refuse absurd URLs
    c->url.append(at, len);
    return 0;
  }
  static int OnMessageComplete(http_parser* p) {
    auto* c = static_cast<Connection*>(p->data);
    std::string path = c->url.substr(0, c->url.find('?'));
    c->Respond(c->server->handler_(http_method_str(static_cast<http_method>(p->method)), path));
    return 0;
  }
  static void OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
    auto* c = static_cast<Connection*>(stream->data);
    if (nread > 0 && !c->responded) {
      size_t parsed = http_parser_execute(&c->parser, &c->settings, buf->base, static_cast<size_t>(nread));
      if (parsed != static_cast<size_t>(nread) || c->parser.http_errno != HPE_OK) {
        if (!c->responded) c->Respond({400, "text/plain; charset=utf-8", "bad request\n"});
      }
    } else if (nread < 0 && !c->responded) {
      uv_close(reinterpret_cast<uv_handle_t*>(&c->tcp), OnClose);
    }
    delete[] buf->base;
  }
};

HttpServer::HttpServer(uv_loop_s* loop, Handler handler) : loop_(loop), handler_(std::move(handler)) {}

HttpServer::~HttpServer() { Close(); }

void HttpServer::OnConnection(uv_tcp_s* server_tcp, int status) {
  if (status < 0) return;
  auto* self = static_cast<HttpServer*>(server_tcp->data);
  auto* c = new Connection();
  c->server = self;
  uv_tcp_init(self->loop_, &c->tcp);
  c->tcp.data = c;
  if (uv_accept(reinterpret_cast<uv_stream_t*>(server_tcp), reinterpret_cast<uv_stream_t*>(&c->tcp)) != 0) {
    uv_close(reinterpret_cast<uv_handle_t*>(&c->tcp), Connection::OnClose);
    return;
  }
  http_parser_init(&c->parser, HTTP_REQUEST);
  c->parser.data = c;
  http_parser_settings_init(&c->settings);
  c->settings.on_url = Connection::OnUrl;
  c->settings.on_message_complete = Connection::OnMessageComplete;
  uv_read_start(reinterpret_cast<uv_stream_t*>(&c->tcp), Connection::OnAlloc, Connection::OnRead);
}

absl::StatusOr<int> HttpServer::Listen(const std::string& host, int port) {
  server_ = new uv_tcp_t;
  uv_tcp_init(loop_, server_);
  server_->data = this;
  return runtime::ListenTcp(server_, host, port, 64,
                            [](uv_stream_t* s, int st) { OnConnection(reinterpret_cast<uv_tcp_t*>(s), st); });
}

void HttpServer::Close() {
  if (!server_) return;
  uv_close(reinterpret_cast<uv_handle_t*>(server_),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_tcp_t*>(h); });
  server_ = nullptr;
}

}  // namespace recon::runtime
