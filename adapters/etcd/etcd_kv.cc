#include "adapters/etcd/etcd_kv.h"

#include <chrono>
#include <future>
#include <thread>
#include <utility>

#include "absl/strings/escaping.h"
#include "base/strings.h"
#include "engine/json.h"

namespace recon::etcd {
namespace {

using engine::Json;
using store::Compare;
using store::KeyValue;
using store::TxnOp;

constexpr int64_t kRetryPauseMs = 100;    // between sweeps of the endpoints
constexpr int64_t kWatchRestartMs = 500;  // after a watch stream ended

std::string B64(std::string_view s) {
  std::string out;
  absl::Base64Escape(absl::string_view(s.data(), s.size()), &out);
  return out;
}

std::string Unb64(const Json& j) {
  if (!j.is_string()) return "";
  std::string out;
  const std::string& in = j.get_ref<const std::string&>();
  absl::Base64Unescape(in, &out);
  return out;
}

// etcd's JSON carries int64 as strings ("revision":"12"); absent is 0.
int64_t Int(const Json& j, std::string_view key) {
  auto it = j.find(key);
  if (it == j.end()) return 0;
  if (it->is_number_integer()) return it->get<int64_t>();
  if (it->is_string()) {
    int64_t v = 0;
    for (char c : it->get_ref<const std::string&>()) {
      if (c < '0' || c > '9') return 0;
      v = v * 10 + (c - '0');
    }
    return v;
  }
  return 0;
}

KeyValue ToKeyValue(const Json& kv) {
  KeyValue out;
  out.key = Unb64(engine::Path(kv, {"key"}));
  out.value = Unb64(engine::Path(kv, {"value"}));
  out.create_revision = Int(kv, "create_revision");
  out.mod_revision = Int(kv, "mod_revision");
  out.version = Int(kv, "version");
  return out;
}

Json CompareJson(const Compare& c) {
  Json j;
  j["key"] = B64(c.key);
  static constexpr const char* kResults[] = {"EQUAL", "NOT_EQUAL", "GREATER", "LESS"};
  j["result"] = kResults[static_cast<int>(c.result)];
  switch (c.target) {
    case Compare::Target::kValue:
      j["target"] = "VALUE";
      j["value"] = B64(c.value);
      break;
    case Compare::Target::kVersion:
      j["target"] = "VERSION";
      j["version"] = std::to_string(c.number);
      break;
    case Compare::Target::kCreateRevision:
      j["target"] = "CREATE";
      j["create_revision"] = std::to_string(c.number);
      break;
    case Compare::Target::kModRevision:
      j["target"] = "MOD";
      j["mod_revision"] = std::to_string(c.number);
      break;
  }
  return j;
}

Json OpJson(const TxnOp& op) {
  Json j;
  if (op.kind == TxnOp::Kind::kPut) {
    j["request_put"] = {{"key", B64(op.key)}, {"value", B64(op.value)}};
  } else {
    Json d = {{"key", B64(op.key)}};
    if (!op.range_end.empty()) d["range_end"] = B64(op.range_end);
    j["request_delete_range"] = std::move(d);
  }
  return j;
}

// An endpoint did not answer the call: another may.
// The server's certificate was not accepted (curl's words): no retry will
// change that, unlike a member that is down or electing.
bool CertificateRefused(const std::string& error) {
  return error.find("SSL certificate problem") != std::string::npos ||
         error.find("certificate verify failed") != std::string::npos ||
         error.find("does not match target host name") != std::string::npos;
}

bool Unanswered(int http_status, int grpc_code) {
  return http_status == 0 || http_status == 502 || http_status == 503 || http_status == 504 ||
         grpc_code == static_cast<int>(absl::StatusCode::kUnavailable) ||
         grpc_code == static_cast<int>(absl::StatusCode::kDeadlineExceeded);
}

}  // namespace

struct EtcdKv::Answer {
  int status = 0;
  std::string body, error;
};

struct EtcdKv::WatchState {
  std::string key;
  WatchFn fn;
  int64_t next_revision = 0;  // 0: from now, after a Range that catches up
  uint64_t request = 0;       // the open stream's transfer id
  size_t endpoint = 0;
  std::string buffer;
  bool stopped = false;
};

std::string EtcdConfig::Describe() const {
  std::string out = StrCat("etcd ");
  for (size_t i = 0; i < endpoints.size(); ++i) StrAppend(&out, i ? "," : "", endpoints[i]);
  std::vector<std::string> notes;
  if (!ca_file.empty() || !cert_file.empty()) notes.push_back("TLS");
  if (!cert_file.empty()) notes.push_back("client certificate");
  if (!user.empty()) notes.push_back(StrCat("user ", user));
  if (!notes.empty()) {
    out += " (";
    for (size_t i = 0; i < notes.size(); ++i) StrAppend(&out, i ? ", " : "", notes[i]);
    out += ")";
  }
  return out;
}

absl::StatusOr<EtcdUrl> ParseEtcdUrl(std::string_view url, bool tls) {
  constexpr std::string_view kScheme = "etcd://";
  // Never echo credentials someone put in the URL.
  size_t at = url.find('@');
  std::string shown = at == std::string_view::npos ? std::string(url) : StrCat("etcd://…", url.substr(at));
  auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(
        StrCat("--store ", shown, ": ", why, "; expected etcd://HOST:PORT[,HOST:PORT...]/PREFIX"));
  };
  if (url.substr(0, kScheme.size()) != kScheme) return bad("not an etcd:// URL");
  std::string_view rest = url.substr(kScheme.size());
  size_t slash = rest.find('/');
  if (slash == std::string_view::npos || slash + 1 >= rest.size())
    return bad("no PREFIX after the endpoints");
  EtcdUrl out;
  out.prefix = std::string(rest.substr(slash + 1));
  while (!out.prefix.empty() && out.prefix.back() == '/') out.prefix.pop_back();
  std::string_view hosts = rest.substr(0, slash);
  if (hosts.find('@') != std::string_view::npos) return bad("credentials do not go in the URL (--etcd-user)");
  for (;;) {
    size_t comma = hosts.find(',');
    std::string_view host = hosts.substr(0, comma);
    size_t colon = host.rfind(':');
    if (host.empty() || colon == std::string_view::npos || colon == 0 || colon + 1 == host.size()) {
      return bad(StrCat("endpoint \"", host, "\" is not HOST:PORT"));
    }
    for (char c : host.substr(colon + 1)) {
      if (c < '0' || c > '9') return bad(StrCat("endpoint \"", host, "\" has a port that is not a number"));
    }
    out.endpoints.push_back(StrCat(tls ? "https://" : "http://", host));
    if (comma == std::string_view::npos) break;
    hosts.remove_prefix(comma + 1);
  }
  return out;
}

EtcdKv::EtcdKv(EtcdConfig config) : config_(std::move(config)) {}

absl::StatusOr<std::unique_ptr<EtcdKv>> EtcdKv::Connect(EtcdConfig config) {
  if (config.endpoints.empty()) return absl::InvalidArgumentError("etcd: no endpoint");
  std::unique_ptr<EtcdKv> kv(new EtcdKv(std::move(config)));
  for (const std::string& endpoint : kv->config_.endpoints) {
    http::RestConfig rest;
    rest.server = endpoint;
    rest.ca_file = kv->config_.ca_file;
    rest.client_cert_file = kv->config_.cert_file;
    rest.client_key_file = kv->config_.key_file;
    rest.source = "etcd";
    kv->clients_.push_back(std::make_unique<http::HttpClient>(kv->loop_, rest));
  }
  kv->loop_.Start();
  if (!kv->config_.user.empty()) {
    if (auto s = kv->Authenticate(); !s.ok()) return s;
  }
  // Something must answer before the store is opened on it.
  if (auto s = kv->Status(); !s.ok()) return s.status();
  return kv;
}

EtcdKv::~EtcdKv() {
  {
    std::lock_guard<std::mutex> l(watch_mu_);
    for (auto& [id, w] : watches_) w->stopped = true;
  }
  loop_.Post([this] {
    for (auto& c : clients_) c->Close();
  });
  loop_.Stop();
}

std::string EtcdKv::current_endpoint() const {
  return config_.endpoints[current_ % config_.endpoints.size()];
}

EtcdKv::Answer EtcdKv::SendOnce(size_t endpoint, std::string_view path, const std::string& body) {
  http::HttpRequest req;
  req.method = "POST";
  req.url = StrCat(config_.endpoints[endpoint], path);
  req.body = body;
  req.timeout_ms = config_.request_timeout_ms;
  req.connect_timeout_ms = std::min<int64_t>(config_.request_timeout_ms, 3'000);
  {
    std::lock_guard<std::mutex> l(token_mu_);
    if (!token_.empty()) req.headers.push_back(StrCat("Authorization: ", token_));
  }
  auto done = std::make_shared<std::promise<Answer>>();
  auto answer = done->get_future();
  loop_.Post([this, endpoint, req = std::move(req), done]() mutable {
    clients_[endpoint]->Send(std::move(req), [done](http::HttpResponse r) {
      done->set_value(Answer{r.status, std::move(r.body), std::move(r.error)});
    });
  });
  return answer.get();
}

absl::StatusOr<std::string> EtcdKv::Call(std::string_view path, std::string body) {
  // A watch callback calling the client would wait on its own thread.
  if (loop_.OnLoopThread()) return absl::FailedPreconditionError("etcd: a call from a watch callback");
  const size_t n = config_.endpoints.size();
  std::string unanswered;
  bool reauthenticated = false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(config_.request_timeout_ms);
  for (;;) {
    const size_t start = current_;
    unanswered.clear();
    bool certificates_refused = true;  // by every endpoint in this round
    for (size_t k = 0; k < n; ++k) {
      const size_t i = (start + k) % n;
      Answer a = SendOnce(i, path, body);
      int code = 0;
      std::string error = a.error;
      if (a.status != 200 && a.status != 0) {
        auto j = engine::ParseJson(a.body);
        if (j.ok()) {
          code = static_cast<int>(Int(*j, "code"));
          error = engine::GetString(*j, {"error"}, engine::GetString(*j, {"message"}));
        }
        if (error.empty()) error = StrCat("HTTP ", a.status);
      }
      if (Unanswered(a.status, code)) {
        StrAppend(&unanswered, unanswered.empty() ? "" : "; ", config_.endpoints[i], ": ",
                  error.empty() ? "no answer" : error);
        certificates_refused &= a.status == 0 && CertificateRefused(error);
        continue;
      }
      current_ = i;
      if (a.status == 200) return std::move(a.body);
      if (code == static_cast<int>(absl::StatusCode::kUnauthenticated) && !config_.user.empty() &&
          !reauthenticated && path != "/v3/auth/authenticate") {
        reauthenticated = true;  // the token expired: a new one, then this call again
        if (auto s = Authenticate(); !s.ok()) return s;
        --k;
        continue;
      }
      auto status_code =
          code > 0 && code <= 16 ? static_cast<absl::StatusCode>(code) : absl::StatusCode::kInternal;
      return absl::Status(status_code, StrCat("etcd ", config_.endpoints[i], ": ", error));
    }
    if (certificates_refused) {
      return absl::FailedPreconditionError(
          StrCat("etcd: no endpoint's certificate was accepted (", unanswered, "): ",
                 config_.ca_file.empty() ? "give the CA that signed them with --etcd-cacert"
                                         : StrCat(config_.ca_file, " is not the CA that signed them")));
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return absl::UnavailableError(StrCat("etcd: no endpoint answered (", unanswered, ")"));
    }
    // A leader election or a member restarting: the cluster answers again
    // within an election timeout or two.
    std::this_thread::sleep_for(std::chrono::milliseconds(kRetryPauseMs));
  }
}

absl::Status EtcdKv::Authenticate() {
  Json req = {{"name", config_.user}, {"password", config_.password}};
  auto body = Call("/v3/auth/authenticate", engine::Dump(req));
  if (!body.ok()) {
    return absl::Status(body.status().code(),
                        StrCat("authenticating as etcd user ", config_.user, ": ", body.status().message()));
  }
  auto j = engine::ParseJson(*body);
  if (!j.ok()) return absl::InternalError("etcd: the authentication answer is not JSON");
  std::lock_guard<std::mutex> l(token_mu_);
  token_ = engine::GetString(*j, {"token"});
  if (token_.empty())
    return absl::UnauthenticatedError(StrCat("etcd user ", config_.user, ": no token given"));
  return absl::OkStatus();
}

absl::StatusOr<store::RangeResult> EtcdKv::Range(const store::KeyRange& range, int64_t limit) {
  Json req = {{"key", B64(range.key)}};
  if (!range.range_end.empty()) req["range_end"] = B64(range.range_end);
  if (limit > 0) req["limit"] = std::to_string(limit);
  auto body = Call("/v3/kv/range", engine::Dump(req));
  if (!body.ok()) return body.status();
  auto j = engine::ParseJson(*body);
  if (!j.ok())
    return absl::InternalError(StrCat("etcd ", current_endpoint(), ": a range answer is not JSON"));
  store::RangeResult out;
  out.revision = Int(engine::Path(*j, {"header"}), "revision");
  out.more = engine::Path(*j, {"more"}).is_boolean() && engine::Path(*j, {"more"}).get<bool>();
  for (const Json& kv : engine::Path(*j, {"kvs"})) out.kvs.push_back(ToKeyValue(kv));
  return out;
}

absl::StatusOr<store::TxnResult> EtcdKv::Txn(const std::vector<Compare>& compares,
                                             const std::vector<TxnOp>& success,
                                             const std::vector<TxnOp>& failure) {
  Json req = Json::object();
  Json& c = req["compare"] = Json::array();
  for (const Compare& x : compares) c.push_back(CompareJson(x));
  Json& s = req["success"] = Json::array();
  for (const TxnOp& op : success) s.push_back(OpJson(op));
  Json& f = req["failure"] = Json::array();
  for (const TxnOp& op : failure) f.push_back(OpJson(op));
  auto body = Call("/v3/kv/txn", engine::Dump(req));
  if (!body.ok()) return body.status();
  auto j = engine::ParseJson(*body);
  if (!j.ok()) return absl::InternalError(StrCat("etcd ", current_endpoint(), ": a txn answer is not JSON"));
  store::TxnResult out;
  const Json& ok = engine::Path(*j, {"succeeded"});
  out.succeeded = ok.is_boolean() && ok.get<bool>();
  out.revision = Int(engine::Path(*j, {"header"}), "revision");
  return out;
}

absl::Status EtcdKv::Compact(int64_t revision) {
  Json req = {{"revision", std::to_string(revision)}};
  auto body = Call("/v3/kv/compaction", engine::Dump(req));
  return body.ok() ? absl::OkStatus() : body.status();
}

absl::StatusOr<store::KvStatus> EtcdKv::Status() {
  auto body = Call("/v3/maintenance/status", "{}");
  if (!body.ok()) return body.status();
  auto j = engine::ParseJson(*body);
  if (!j.ok())
    return absl::InternalError(StrCat("etcd ", current_endpoint(), ": a status answer is not JSON"));
  store::KvStatus out;
  out.revision = Int(engine::Path(*j, {"header"}), "revision");
  out.db_size = Int(*j, "dbSize");
  out.db_size_in_use = Int(*j, "dbSizeInUse");
  return out;
}

uint64_t EtcdKv::Watch(std::string key, WatchFn on_change) {
  auto w = std::make_shared<WatchState>();
  w->key = std::move(key);
  w->fn = std::move(on_change);
  // From the revision read now: nothing after this call is missed.
  auto now = Range({w->key, ""});
  w->next_revision = now.ok() ? now->revision + 1 : 0;
  uint64_t id;
  {
    std::lock_guard<std::mutex> l(watch_mu_);
    id = next_watch_++;
    watches_[id] = w;
  }
  loop_.Post([this, id] { StartWatch(id); });
  return id;
}

void EtcdKv::StartWatch(uint64_t id) {
  std::shared_ptr<WatchState> w;
  {
    std::lock_guard<std::mutex> l(watch_mu_);
    auto it = watches_.find(id);
    if (it == watches_.end() || it->second->stopped) return;
    w = it->second;
  }
  Json create = {{"key", B64(w->key)}};
  if (w->next_revision > 0) create["start_revision"] = std::to_string(w->next_revision);
  http::HttpRequest req;
  req.method = "POST";
  w->endpoint = current_ % config_.endpoints.size();
  req.url = StrCat(config_.endpoints[w->endpoint], "/v3/watch");
  req.body = engine::Dump(Json{{"create_request", create}});
  req.timeout_ms = 0;
  {
    std::lock_guard<std::mutex> l(token_mu_);
    if (!token_.empty()) req.headers.push_back(StrCat("Authorization: ", token_));
  }
  req.on_data = [this, id](std::string_view chunk) {
    OnWatchData(id, chunk);
    return true;
  };
  w->buffer.clear();
  w->request = clients_[w->endpoint]->Send(std::move(req), [this, id, w](http::HttpResponse) {
    if (w->stopped) return;
    // The stream ended (the member went away, or the server closed it):
    // again from the next revision, on whichever endpoint answers now.
    current_ = (w->endpoint + 1) % config_.endpoints.size();
    loop_.After(kWatchRestartMs, [this, id] { StartWatch(id); });
  });
}

void EtcdKv::OnWatchData(uint64_t id, std::string_view chunk) {
  std::shared_ptr<WatchState> w;
  {
    std::lock_guard<std::mutex> l(watch_mu_);
    auto it = watches_.find(id);
    if (it == watches_.end() || it->second->stopped) return;
    w = it->second;
  }
  w->buffer.append(chunk);
  for (size_t nl; (nl = w->buffer.find('\n')) != std::string::npos;) {
    std::string line = w->buffer.substr(0, nl);
    w->buffer.erase(0, nl + 1);
    auto j = engine::ParseJson(line);
    if (!j.ok()) continue;
    const Json& result = engine::Path(*j, {"result"});
    if (int64_t compacted = Int(result, "compact_revision"); compacted > 0) {
      // What we would resume from was compacted: resume from the oldest
      // revision kept (changes before it are lost to every watcher; a
      // reader of the key reads it afresh anyway). The server ends the
      // stream, and the restart takes this revision.
      w->next_revision = compacted;
      continue;
    }
    for (const Json& e : engine::Path(result, {"events"})) {
      KeyValue kv = ToKeyValue(engine::Path(e, {"kv"}));
      if (engine::GetString(e, {"type"}) == "DELETE") {
        kv.value.clear();
        kv.version = 0;
      }
      w->next_revision = std::max(w->next_revision, kv.mod_revision + 1);
      w->fn(kv);
    }
  }
}

void EtcdKv::Unwatch(uint64_t id) {
  std::shared_ptr<WatchState> w;
  {
    std::lock_guard<std::mutex> l(watch_mu_);
    auto it = watches_.find(id);
    if (it == watches_.end()) return;
    w = it->second;
    w->stopped = true;
    watches_.erase(it);
  }
  auto cancel = [this, w] {
    if (w->request) clients_[w->endpoint]->Cancel(w->request);
  };
  if (loop_.OnLoopThread()) {
    cancel();
    return;
  }
  // Once this returns, no callback of the watch runs.
  auto done = std::make_shared<std::promise<void>>();
  auto waited = done->get_future();
  loop_.Post([cancel, done] {
    cancel();
    done->set_value();
  });
  waited.wait();
}

}  // namespace recon::etcd
