#include "adapters/http/http_client.h"

#include <cctype>
#include <chrono>
#include <cstring>

#include "base/strings.h"

namespace recon::http {
namespace {

struct CurlGlobal {
  CurlGlobal() { curl_global_init(CURL_GLOBAL_DEFAULT); }
};

int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void SetBlob(CURL* easy, CURLoption opt, const std::string& pem) {
  curl_blob blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
  curl_easy_setopt(easy, opt, &blob);
}

}  // namespace

std::string UrlEncode(std::string_view s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

struct HttpClient::Transfer {
  HttpClient* client;
  uint64_t id;
  CURL* easy;
  curl_slist* headers = nullptr;
  HttpRequest request;
  HttpResponse response;
  Done done;
  char error[CURL_ERROR_SIZE] = {0};
  bool aborted = false;
};

struct HttpClient::Socket {
  uv_poll_t poll;
  curl_socket_t fd;
  HttpClient* client;
};

HttpClient::HttpClient(IoLoop& loop, RestConfig config) : loop_(loop), config_(std::move(config)) {
  static CurlGlobal global;
  multi_ = curl_multi_init();
  curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &HttpClient::OnSocket);
  curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
  curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &HttpClient::OnTimer);
  curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
  uv_timer_init(loop_.loop(), &timer_);
  timer_.data = this;
}

HttpClient::~HttpClient() { Close(); }

void HttpClient::Close() {
  if (closed_) return;
  closed_ = true;
  CancelAll();
  curl_multi_cleanup(multi_);
  uv_timer_stop(&timer_);
  uv_close(reinterpret_cast<uv_handle_t*>(&timer_), nullptr);
}

std::string HttpClient::Token() {
  if (!config_.token.empty()) return config_.token;
  if (config_.token_file.empty()) return "";
  // Bound service-account tokens rotate: re-read once a minute.
  int64_t now = SteadyNs();
  if (token_cache_.empty() || now - token_read_ns_ > 60'000'000'000) {
    if (auto t = ReadFile(config_.token_file); t.ok()) {
      token_cache_ = *t;
      while (!token_cache_.empty() && (token_cache_.back() == '\n' || token_cache_.back() == '\r'))
        token_cache_.pop_back();
    }
    token_read_ns_ = now;
  }
  return token_cache_;
}

uint64_t HttpClient::Send(HttpRequest request, Done done) {
  if (closed_) {
    HttpResponse r;
    r.error = "cancelled";
    if (done) done(std::move(r));
    return 0;
  }
  auto* t = new Transfer;
  t->client = this;
  t->id = next_id_++;
  t->easy = curl_easy_init();
  t->request = std::move(request);
  t->done = std::move(done);
  CURL* e = t->easy;
  const HttpRequest& r = t->request;
  curl_easy_setopt(e, CURLOPT_URL, r.url.c_str());
  curl_easy_setopt(e, CURLOPT_PRIVATE, t);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->error);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &HttpClient::OnWrite);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, t);
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &HttpClient::OnHeader);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, t);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(r.connect_timeout_ms));
  if (r.timeout_ms > 0) curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(r.timeout_ms));
  // A dead peer on a long watch is noticed by TCP keepalive.
  curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(e, CURLOPT_USERAGENT, "recon-agent");
  curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
  if (r.method == "GET") {
    curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r.method.c_str());
    if (!r.body.empty() || r.method != "DELETE") {
      curl_easy_setopt(e, CURLOPT_POSTFIELDS, r.body.c_str());
      curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, static_cast<long>(r.body.size()));
    }
  }
  t->headers = curl_slist_append(t->headers, "Accept: application/json");
  for (const auto& h : r.headers) t->headers = curl_slist_append(t->headers, h.c_str());
  if (!r.body.empty())
    t->headers = curl_slist_append(t->headers, ("Content-Type: " + r.content_type).c_str());
  if (r.cluster) {
    std::string token = Token();
    if (!token.empty())
      t->headers = curl_slist_append(t->headers, ("Authorization: Bearer " + token).c_str());
    if (!config_.ca_pem.empty())
      SetBlob(e, CURLOPT_CAINFO_BLOB, config_.ca_pem);
    else if (!config_.ca_file.empty())
      curl_easy_setopt(e, CURLOPT_CAINFO, config_.ca_file.c_str());
    if (!config_.client_cert_pem.empty()) {
      SetBlob(e, CURLOPT_SSLCERT_BLOB, config_.client_cert_pem);
      curl_easy_setopt(e, CURLOPT_SSLCERTTYPE, "PEM");
    } else if (!config_.client_cert_file.empty()) {
      curl_easy_setopt(e, CURLOPT_SSLCERT, config_.client_cert_file.c_str());
    }
    if (!config_.client_key_pem.empty()) {
      SetBlob(e, CURLOPT_SSLKEY_BLOB, config_.client_key_pem);
      curl_easy_setopt(e, CURLOPT_SSLKEYTYPE, "PEM");
    } else if (!config_.client_key_file.empty()) {
      curl_easy_setopt(e, CURLOPT_SSLKEY, config_.client_key_file.c_str());
    }
    // Verification stays on unless the kubeconfig turned it off.
    if (config_.insecure_skip_tls_verify) {
      curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
      curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    }
  }
  if (!r.cluster && !config_.outside_ca_file.empty())
    curl_easy_setopt(e, CURLOPT_CAINFO, config_.outside_ca_file.c_str());
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->headers);
  transfers_[t->id] = t;
  curl_multi_add_handle(multi_, e);
  return t->id;
}

size_t HttpClient::OnWrite(char* data, size_t size, size_t n, void* userp) {
  auto* t = static_cast<Transfer*>(userp);
  size_t len = size * n;
  long code = 0;
  curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &code);
  if (t->request.on_data && code >= 200 && code < 300) {
    if (!t->request.on_data(std::string_view(data, len))) {
      t->aborted = true;
      return 0;  // aborts with CURLE_WRITE_ERROR
    }
    return len;
  }
  t->response.body.append(data, len);
  return len;
}

std::string HttpResponse::Header(std::string_view lower_name) const {
  for (const auto& [k, v] : headers)
    if (k == lower_name) return v;
  return "";
}

size_t HttpClient::OnHeader(char* data, size_t size, size_t n, void* userp) {
  auto* t = static_cast<Transfer*>(userp);
  std::string_view h(data, size * n);
  // A status line starts a new answer (after a 100 Continue, say): only the
  // last answer's headers count.
  if (h.rfind("HTTP/", 0) == 0) t->response.headers.clear();
  if (size_t colon = h.find(':'); colon != std::string_view::npos && colon > 0) {
    std::string name(h.substr(0, colon));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string_view v = h.substr(colon + 1);
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == '\r' || v.back() == '\n' || v.back() == ' ')) v.remove_suffix(1);
    t->response.headers.emplace_back(std::move(name), std::string(v));
  }
  constexpr std::string_view kRetry = "retry-after:";
  if (h.size() > kRetry.size() && strncasecmp(h.data(), kRetry.data(), kRetry.size()) == 0) {
    std::string v(h.substr(kRetry.size()));
    char* end = nullptr;
    long secs = std::strtol(v.c_str(), &end, 10);
    if (end != v.c_str()) t->response.retry_after_s = secs < 0 ? 0 : secs;
  }
  return size * n;
}

int HttpClient::OnSocket(CURL* easy, curl_socket_t s, int what, void* userp, void* socketp) {
  auto* self = static_cast<HttpClient*>(userp);
  auto* sock = static_cast<Socket*>(socketp);
  if (what == CURL_POLL_REMOVE) {
    if (sock) {
      uv_poll_stop(&sock->poll);
      uv_close(reinterpret_cast<uv_handle_t*>(&sock->poll),
               [](uv_handle_t* h) { delete static_cast<Socket*>(h->data); });
      curl_multi_assign(self->multi_, s, nullptr);
    }
    return 0;
  }
  if (!sock) {
    sock = new Socket{{}, s, self};
    uv_poll_init_socket(self->loop_.loop(), &sock->poll, s);
    sock->poll.data = sock;
    curl_multi_assign(self->multi_, s, sock);
  }
  int events = 0;
  if (what == CURL_POLL_IN || what == CURL_POLL_INOUT) events |= UV_READABLE;
  if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT) events |= UV_WRITABLE;
  uv_poll_start(&sock->poll, events, [](uv_poll_t* p, int status, int ev) {
    auto* sock = static_cast<Socket*>(p->data);
    int flags = 0;
    if (status < 0) flags = CURL_CSELECT_ERR;
    if (ev & UV_READABLE) flags |= CURL_CSELECT_IN;
    if (ev & UV_WRITABLE) flags |= CURL_CSELECT_OUT;
    sock->client->Action(sock->fd, flags);
  });
  return 0;
}

int HttpClient::OnTimer(CURLM* multi, long timeout_ms, void* userp) {
  auto* self = static_cast<HttpClient*>(userp);
  if (timeout_ms < 0) {
    uv_timer_stop(&self->timer_);
    return 0;
  }
  uv_timer_start(
      &self->timer_, [](uv_timer_t* t) { static_cast<HttpClient*>(t->data)->Action(CURL_SOCKET_TIMEOUT, 0); },
      static_cast<uint64_t>(timeout_ms), 0);
  return 0;
}

void HttpClient::Action(curl_socket_t s, int flags) {
  int running = 0;
  curl_multi_socket_action(multi_, s, flags, &running);
  CheckDone();
}

void HttpClient::CheckDone() {
  int left = 0;
  while (CURLMsg* msg = curl_multi_info_read(multi_, &left)) {
    if (msg->msg != CURLMSG_DONE) continue;
    Transfer* t = nullptr;
    curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&t));
    Finish(t, msg->data.result);
  }
}

void HttpClient::Finish(Transfer* t, CURLcode code) {
  long status = 0;
  curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
  t->response.status = static_cast<int>(status);
  if (code != CURLE_OK && t->response.error.empty()) {
    t->response.error = t->aborted ? "aborted" : (t->error[0] ? t->error : curl_easy_strerror(code));
    // A stream cut mid-body still had a status; callers look at error first.
  }
  curl_multi_remove_handle(multi_, t->easy);
  curl_easy_cleanup(t->easy);
  curl_slist_free_all(t->headers);
  transfers_.erase(t->id);
  Done done = std::move(t->done);
  HttpResponse response = std::move(t->response);
  delete t;
  if (done) done(std::move(response));
}

void HttpClient::Cancel(uint64_t id) {
  auto it = transfers_.find(id);
  if (it == transfers_.end()) return;
  Transfer* t = it->second;
  t->aborted = true;
  t->response.error = "cancelled";
  Finish(t, CURLE_ABORTED_BY_CALLBACK);
}

void HttpClient::CancelAll() {
  while (!transfers_.empty()) Cancel(transfers_.begin()->first);
}

}  // namespace recon::http
