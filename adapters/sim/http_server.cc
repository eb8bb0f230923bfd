#include "adapters/sim/http_server.h"

#include <http_parser.h>
#include <uv.h>

#include <cctype>

#include "base/strings.h"
#include "runtime/tcp_listen.h"

namespace recon::sim {
namespace {

constexpr size_t kMaxHeaderBytes = 64 * 1024;
constexpr size_t kMaxBodyBytes = 16 * 1024 * 1024;

const char* Reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 406:
      return "Not Acceptable";
    case 409:
      return "Conflict";
    case 412:
      return "Precondition Failed";
    case 410:
      return "Gone";
    case 413:
      return "Payload Too Large";
    case 415:
      return "Unsupported Media Type";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return "Unknown";
  }
}

int Hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::string PercentDecode(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && Hex(s[i + 1]) >= 0 && Hex(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(Hex(s[i + 1]) * 16 + Hex(s[i + 2])));
      i += 2;
    } else if (s[i] == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

std::string HttpRequest::Query(const std::string& key) const {
  auto it = query.find(key);
  return it == query.end() ? "" : it->second;
}

std::string HttpRequest::Header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? "" : it->second;
}

struct StreamingHttpServer::Conn {
  uv_tcp_t tcp;
  http_parser parser;
  http_parser_settings settings;
  StreamingHttpServer* server = nullptr;
  ConnId id = 0;
  HttpRequest req;
  std::string header_field;
  bool header_value_next = false;
  size_t header_bytes = 0;
  bool streaming = false;
  bool keep_alive = true;
  bool closing = false;      // uv_close called
  bool close_after = false;  // close once pending writes drain
  int pending_writes = 0;

  struct Write {
    uv_write_t req;
    std::string data;
    Conn* conn;
  };

  void Queue(std::string data) {
    if (closing) return;
    auto* w = new Write{{}, std::move(data), this};
    w->req.data = w;
    uv_buf_t buf = uv_buf_init(w->data.data(), static_cast<unsigned>(w->data.size()));
    ++pending_writes;
    if (uv_write(&w->req, reinterpret_cast<uv_stream_t*>(&tcp), &buf, 1, OnWritten) != 0) {
      --pending_writes;
      delete w;
      server->Finish(this);
    }
  }
  static void OnWritten(uv_write_t* req, int status) {
    auto* w = static_cast<Write*>(req->data);
    Conn* c = w->conn;
    delete w;
    --c->pending_writes;
    if (status < 0) {
      c->server->Finish(c);
    } else if (c->close_after && c->pending_writes == 0) {
      c->server->Finish(c);
    }
  }
  static void OnClose(uv_handle_t* h) { delete static_cast<Conn*>(h->data); }
  static void OnAlloc(uv_handle_t*, size_t suggested, uv_buf_t* buf) {
    buf->base = new char[suggested];
    buf->len = suggested;
  }

  void Answer(const HttpAnswer& a) {
    std::string head = recon::StrCat("HTTP/1.1 ", a.status, " ", Reason(a.status),
                                     "\r\nContent-Type: ", a.content_type, "\r\n");
    for (const auto& [k, v] : a.headers) recon::StrAppend(&head, k, ": ", v, "\r\n");
    if (a.stream) {
      streaming = true;
      recon::StrAppend(&head, "Transfer-Encoding: chunked\r\n");
      if (!keep_alive) recon::StrAppend(&head, "Connection: close\r\n");
      recon::StrAppend(&head, "\r\n");
      Queue(std::move(head));
      return;
    }
    recon::StrAppend(&head, "Content-Length: ", a.body.size(), "\r\n");
    if (!keep_alive) recon::StrAppend(&head, "Connection: close\r\n");
    recon::StrAppend(&head, "\r\n", a.body);
    Queue(std::move(head));
    if (!keep_alive) {
      close_after = true;
      if (pending_writes == 0) server->Finish(this);
    }
  }

  static Conn* Of(http_parser* p) { return static_cast<Conn*>(p->data); }
  static int OnMessageBegin(http_parser* p) {
    Conn* c = Of(p);
    c->req = HttpRequest{};
    c->header_field.clear();
    c->header_value_next = false;
    c->header_bytes = 0;
    return 0;
  }
  static int OnUrl(http_parser* p, const char* at, size_t len) {
    Conn* c = Of(p);
    c->header_bytes += len;
    if (c->header_bytes > kMaxHeaderBytes) return 1;
    c->req.url.append(at, len);
    return 0;
  }
  static int OnHeaderField(http_parser* p, const char* at, size_t len) {
    Conn* c = Of(p);
    c->header_bytes += len;
    if (c->header_bytes > kMaxHeaderBytes) return 1;
    if (c->header_value_next) {
      c->header_field.clear();
      c->header_value_next = false;
    }
    c->header_field.append(at, len);
    return 0;
  }
  static int OnHeaderValue(http_parser* p, const char* at, size_t len) {
    Conn* c = Of(p);
    c->header_bytes += len;
    if (c->header_bytes > kMaxHeaderBytes) return 1;
    std::string key = Lower(c->header_field);
    if (!c->header_value_next) {
      // A repeated header joins with ", " as HTTP allows.
      auto [it, fresh] = c->req.headers.emplace(key, "");
      if (!fresh && !it->second.empty()) it->second += ", ";
      c->header_value_next = true;
    }
    c->req.headers[key].append(at, len);
    return 0;
  }
  // libcurl (among others) asks before sending a large body and would
  // otherwise wait a second for this interim answer.
  static int OnHeadersComplete(http_parser* p) {
    Conn* c = Of(p);
    auto it = c->req.headers.find("expect");
    if (it != c->req.headers.end() && Lower(it->second) == "100-continue" && !c->streaming) {
      c->Queue("HTTP/1.1 100 Continue\r\n\r\n");
    }
    return 0;
  }
  static int OnBody(http_parser* p, const char* at, size_t len) {
    Conn* c = Of(p);
    if (c->req.body.size() + len > kMaxBodyBytes) return 1;
    c->req.body.append(at, len);
    return 0;
  }
  static int OnMessageComplete(http_parser* p) {
    Conn* c = Of(p);
    if (c->streaming || c->closing) return 0;  // no pipelining behind a watch
    c->req.method = http_method_str(static_cast<http_method>(p->method));
    size_t q = c->req.url.find('?');
    c->req.path = c->req.url.substr(0, q);
    if (q != std::string::npos) {
      std::string_view qs = std::string_view(c->req.url).substr(q + 1);
      while (!qs.empty()) {
        size_t amp = qs.find('&');
        std::string_view kv = qs.substr(0, amp);
        size_t eq = kv.find('=');
        if (!kv.empty()) {
          c->req.query.emplace(PercentDecode(kv.substr(0, eq), true),
                               eq == std::string_view::npos ? "" : PercentDecode(kv.substr(eq + 1), true));
        }
        if (amp == std::string_view::npos) break;
        qs.remove_prefix(amp + 1);
      }
    }
    c->keep_alive = http_should_keep_alive(p) != 0;
    HttpAnswer a = c->server->handler_(c->req, c->id);
    c->Answer(a);
    if (a.after) a.after();
    return 0;
  }
  static void OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
    Conn* c = static_cast<Conn*>(stream->data);
    if (nread > 0 && !c->closing) {
      size_t parsed = http_parser_execute(&c->parser, &c->settings, buf->base, static_cast<size_t>(nread));
      if (!c->closing && (parsed != static_cast<size_t>(nread) || c->parser.http_errno != HPE_OK)) {
        if (!c->streaming) {
          c->keep_alive = false;
          HttpAnswer bad;
          bad.status = 400;
          bad.content_type = "text/plain; charset=utf-8";
          bad.body =
              recon::StrCat("bad request: ", http_errno_description(HTTP_PARSER_ERRNO(&c->parser)), "\n");
          c->Answer(bad);
        } else {
          c->server->Finish(c);
        }
      }
    } else if (nread < 0) {
      c->server->Finish(c);
    }
    delete[] buf->base;
  }
};

StreamingHttpServer::StreamingHttpServer(uv_loop_s* loop, Handler handler, ClosedHandler closed)
    : loop_(loop), handler_(std::move(handler)), closed_(std::move(closed)) {}

StreamingHttpServer::~StreamingHttpServer() { Close(); }

void StreamingHttpServer::Finish(Conn* c) {
  if (c->closing) return;
  c->closing = true;
  conns_.erase(c->id);
  uv_read_stop(reinterpret_cast<uv_stream_t*>(&c->tcp));
  uv_close(reinterpret_cast<uv_handle_t*>(&c->tcp), Conn::OnClose);
  if (closed_) closed_(c->id);
}

void StreamingHttpServer::OnConnection(uv_tcp_s* server_tcp, int status) {
  if (status < 0) return;
  auto* self = static_cast<StreamingHttpServer*>(server_tcp->data);
  auto* c = new Conn();
  c->server = self;
  c->id = self->next_id_++;
  uv_tcp_init(self->loop_, &c->tcp);
  c->tcp.data = c;
  if (uv_accept(reinterpret_cast<uv_stream_t*>(server_tcp), reinterpret_cast<uv_stream_t*>(&c->tcp)) != 0) {
    c->closing = true;
    uv_close(reinterpret_cast<uv_handle_t*>(&c->tcp), Conn::OnClose);
    return;
  }
  uv_tcp_nodelay(&c->tcp, 1);
  http_parser_init(&c->parser, HTTP_REQUEST);
  c->parser.data = c;
  http_parser_settings_init(&c->settings);
  c->settings.on_message_begin = Conn::OnMessageBegin;
  c->settings.on_url = Conn::OnUrl;
  c->settings.on_header_field = Conn::OnHeaderField;
  c->settings.on_header_value = Conn::OnHeaderValue;
  c->settings.on_headers_complete = Conn::OnHeadersComplete;
  c->settings.on_body = Conn::OnBody;
  c->settings.on_message_complete = Conn::OnMessageComplete;
  self->conns_[c->id] = c;
  uv_read_start(reinterpret_cast<uv_stream_t*>(&c->tcp), Conn::OnAlloc, Conn::OnRead);
}

absl::StatusOr<int> StreamingHttpServer::Listen(const std::string& host, int port) {
  server_ = new uv_tcp_t;
  uv_tcp_init(loop_, server_);
  server_->data = this;
  return runtime::ListenTcp(server_, host, port, 256,
                            [](uv_stream_t* s, int st) { OnConnection(reinterpret_cast<uv_tcp_t*>(s), st); });
}

bool StreamingHttpServer::Send(ConnId id, std::string_view data) {
  auto it = conns_.find(id);
  if (it == conns_.end() || !it->second->streaming || data.empty()) return false;
  char size[32];
  int n = snprintf(size, sizeof(size), "%zx\r\n", data.size());
  std::string chunk(size, static_cast<size_t>(n));
  chunk.append(data);
  chunk.append("\r\n");
  it->second->Queue(std::move(chunk));
  return true;
}

void StreamingHttpServer::EndStream(ConnId id) {
  auto it = conns_.find(id);
  if (it == conns_.end() || !it->second->streaming) return;
  Conn* c = it->second;
  c->streaming = false;
  c->Queue("0\r\n\r\n");
  if (!c->keep_alive) {
    c->close_after = true;
    if (c->pending_writes == 0) Finish(c);
  }
}

void StreamingHttpServer::Abort(ConnId id) {
  auto it = conns_.find(id);
  if (it != conns_.end()) Finish(it->second);
}

void StreamingHttpServer::AbortAll() {
  while (!conns_.empty()) Finish(conns_.begin()->second);
}

void StreamingHttpServer::Close() {
  AbortAll();
  if (!server_) return;
  uv_close(reinterpret_cast<uv_handle_t*>(server_),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_tcp_t*>(h); });
  server_ = nullptr;
}

HttpAnswer JsonAnswer(int status, const engine::Json& body) {
  HttpAnswer a;
  a.status = status;
  a.body = engine::Dump(body);
  return a;
}

}  // namespace recon::sim
