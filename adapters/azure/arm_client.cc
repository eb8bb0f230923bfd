#include "adapters/azure/arm_client.h"

#include <algorithm>

#include "absl/strings/escaping.h"
#include "adapters/http/rest_config.h"
#include "base/strings.h"
#include "engine/json.h"

namespace recon::azure {
namespace {

std::string Form(std::string_view key, std::string_view value) {
  return recon::StrCat(key, "=", http::UrlEncode(value));
}

bool Terminal(std::string_view status) {
  return status == "Succeeded" || status == "Failed" || status == "Canceled";
}

}  // namespace

std::string ArmResult::Error() const {
  if (!transport.empty()) return transport;
  if (!code.empty()) return message.empty() ? code : recon::StrCat(code, ": ", message);
  return recon::StrCat("HTTP ", status);
}

void ParseError(const std::string& body, std::string* code, std::string* message) {
  auto j = engine::ParseJson(body);
  if (!j.ok() || !j->is_object()) return;
  const engine::Json& e = engine::Path(*j, {"error"});
  if (e.is_object()) {
    *code = engine::GetString(e, {"code"});
    *message = engine::GetString(e, {"message"});
  } else if (e.is_string()) {
    *code = e.get<std::string>();
    *message = engine::GetString(*j, {"error_description"});
  }
}

std::string TokenClaims(const std::string& token) {
  size_t a = token.find('.');
  size_t b = a == std::string::npos ? a : token.find('.', a + 1);
  if (b == std::string::npos) return "{}";
  std::string payload;
  if (!absl::WebSafeBase64Unescape(Av(std::string_view(token).substr(a + 1, b - a - 1)), &payload))
    return "{}";
  auto j = engine::ParseJson(payload);
  return j.ok() && j->is_object() ? engine::Dump(*j) : "{}";
}

ArmClient::ArmClient(http::IoLoop& loop, ArmOptions options, const runtime::TimeSource& clock,
                     runtime::Metrics* metrics)
    : loop_(loop), options_(std::move(options)), clock_(clock), metrics_(metrics), rng_(options_.seed) {
  http::RestConfig rest;
  rest.server = options_.arm_endpoint;
  rest.outside_ca_file = options_.ca_file;
  http_ = std::make_unique<http::HttpClient>(loop_, rest);
  api_ = std::make_unique<http::PacedClient>(loop_, *http_, options_.api);
  if (metrics_) {
    metrics_->Declare("recon_arm_requests_total", "counter",
                      "ARM and AAD requests by operation and HTTP status (0: no answer)");
    metrics_->Declare("recon_arm_request_duration_seconds", "histogram", "ARM and AAD request latency",
                      {0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30});
    metrics_->Declare("recon_arm_ratelimit_remaining", "gauge",
                      "the last x-ms-ratelimit-remaining-* header ARM sent, by header");
    metrics_->Declare("recon_arm_token_requests_total", "counter", "AAD token requests by result");
    metrics_->Declare("recon_arm_retried_total", "counter",
                      "ARM requests sent again after a 429 (or 5xx) with Retry-After, once it had passed");
  }
}

ArmClient::~ArmClient() { Shutdown(); }

void ArmClient::Shutdown() {
  if (shutdown_) return;
  shutdown_ = true;
  api_->Shutdown();
  http_->Close();
}

void ArmClient::SetCredentials(Credentials c) {
  if (c == creds_) return;
  creds_ = std::move(c);
  ++generation_;
  tokens_.clear();
}

std::string ArmClient::RequestId() {
  // A random (version 4) UUID.
  uint64_t hi = rng_.Next(), lo = rng_.Next();
  hi = (hi & ~0xF000ull) | 0x4000ull;
  lo = (lo & ~(3ull << 62)) | (2ull << 62);
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xFFFF), static_cast<unsigned>(hi & 0xFFFF),
                static_cast<unsigned>(lo >> 48), static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFull));
  return buf;
}

std::string ArmClient::Url(const std::string& id_or_url) const {
  if (id_or_url.rfind("http://", 0) == 0 || id_or_url.rfind("https://", 0) == 0) return id_or_url;
  std::string base = options_.arm_endpoint;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return recon::StrCat(base, id_or_url, "?api-version=", options_.api_version);
}

void ArmClient::Record(const std::string& op, const http::HttpResponse& r, int64_t start_steady_ns) {
  if (!metrics_) return;
  // The final answer; answers retried on Retry-After show in recon_arm_retried_total.
  metrics_->Add("recon_arm_requests_total", {{"op", op}, {"status", std::to_string(r.status)}});
  metrics_->Set("recon_arm_retried_total", {}, static_cast<double>(api_->retried()));
  metrics_->Observe("recon_arm_request_duration_seconds", {{"op", op}},
                    static_cast<double>(http::SteadyNowNs() - start_steady_ns) / 1e9);
  constexpr std::string_view kPrefix = "x-ms-ratelimit-remaining-";
  for (const auto& [name, value] : r.headers) {
    if (name.rfind(kPrefix, 0) != 0) continue;
    char* end = nullptr;
    double v = std::strtod(value.c_str(), &end);
    if (end != value.c_str()) metrics_->Set("recon_arm_ratelimit_remaining", {{"header", name}}, v);
  }
}

void ArmClient::Token(const std::string& scope, bool fresh,
                      std::function<void(absl::StatusOr<AccessToken>)> done) {
  if (!creds_.complete()) {
    done(absl::FailedPreconditionError(
        creds_error_.empty() ? "no Azure credentials (Secret kube-system/azure-credentials not observed)"
                             : creds_error_));
    return;
  }
  if (!fresh) {
    auto it = tokens_.find(scope);
    if (it != tokens_.end() && clock_.NowNs() < it->second.expires_ns - options_.refresh_before_ns) {
      done(it->second);
      return;
    }
    // One request per scope however many callers wait.
    auto& w = fetching_[scope];
    w.fns.push_back(std::move(done));
    if (w.fns.size() > 1) return;
    FetchToken(scope, [this, scope](absl::StatusOr<AccessToken> t) {
      auto fns = std::move(fetching_[scope].fns);
      fetching_.erase(scope);
      for (auto& fn : fns) fn(t);
    });
    return;
  }
  FetchToken(scope, std::move(done));
}

void ArmClient::FetchToken(const std::string& scope, std::function<void(absl::StatusOr<AccessToken>)> done) {
  http::HttpRequest req;
  req.method = "POST";
  req.cluster = false;
  std::string base = options_.aad_endpoint;
  while (!base.empty() && base.back() == '/') base.pop_back();
  req.url = recon::StrCat(base, "/", http::UrlEncode(creds_.tenant_id), "/oauth2/v2.0/token");
  req.content_type = "application/x-www-form-urlencoded";
  req.timeout_ms = options_.request_timeout_ms;
  req.body = recon::StrCat(Form("grant_type", "client_credentials"), "&", Form("client_id", creds_.client_id),
                           "&", Form("scope", scope));
  if (!creds_.federated_token_file.empty()) {
    // Workload identity: the projected service-account token is the assertion.
    auto assertion = http::ReadFile(creds_.federated_token_file);
    if (!assertion.ok()) {
      done(assertion.status());
      return;
    }
    std::string a = *assertion;
    while (!a.empty() && (a.back() == '\n' || a.back() == '\r')) a.pop_back();
    recon::StrAppend(&req.body, "&",
                     Form("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
                     "&", Form("client_assertion", a));
  } else {
    recon::StrAppend(&req.body, "&", Form("client_secret", creds_.client_secret));
  }
  req.headers.push_back(recon::StrCat("x-ms-client-request-id: ", RequestId()));
  ++token_requests_;
  int64_t start = http::SteadyNowNs();
  int64_t asked = clock_.NowNs();
  uint64_t gen = generation_;
  http_->Send(std::move(req), [this, scope, done = std::move(done), start, asked, gen](http::HttpResponse r) {
    if (r.error == "cancelled") return;
    Record("token", r, start);
    auto count = [this](const char* result) {
      if (metrics_) metrics_->Add("recon_arm_token_requests_total", {{"result", result}});
    };
    if (!r.error.empty()) {
      count("error");
      done(absl::UnavailableError(recon::StrCat("AAD token request: ", r.error)));
      return;
    }
    auto j = engine::ParseJson(r.body);
    if (r.status != 200 || !j.ok() || !j->is_object() || !(*j)["access_token"].is_string()) {
      count("refused");
      std::string code, message;
      ParseError(r.body, &code, &message);
      // AAD's description starts with the AADSTS code the checker looks for.
      std::string text =
          message.empty() ? recon::StrCat("HTTP ", r.status, " ", code) : recon::StrCat(code, ": ", message);
      done(r.status == 400 || r.status == 401 ? absl::UnauthenticatedError(text)
                                              : absl::UnavailableError(text));
      return;
    }
    count("ok");
    AccessToken t;
    t.token = (*j)["access_token"].get<std::string>();
    const engine::Json& e = (*j)["expires_in"];
    int64_t secs = e.is_number_integer() ? e.get<int64_t>()
                   : e.is_string()       ? std::strtoll(e.get<std::string>().c_str(), nullptr, 10)
                                         : 3600;
    t.expires_ns = asked + secs * 1'000'000'000LL;
    if (gen == generation_) tokens_[scope] = t;
    done(std::move(t));
  });
}

void ArmClient::Get(const std::string& id, Done done) {
  http::HttpRequest req;
  req.url = Url(id);
  Send(std::move(req), "get", false, std::move(done));
}

void ArmClient::Send(http::HttpRequest req, const std::string& op, bool retried_401, Done done) {
  if (shutdown_) return;
  Token(std::string(kArmScope), false,
        [this, req = std::move(req), op, retried_401,
         done = std::move(done)](absl::StatusOr<AccessToken> t) mutable {
          if (!t.ok()) {
            ArmResult r;
            r.transport = recon::StrCat("Token: ", Sv(t.status().message()));
            done(std::move(r));
            return;
          }
          http::HttpRequest send = req;
          send.cluster = false;
          send.timeout_ms = options_.request_timeout_ms;
          send.headers.push_back(recon::StrCat("Authorization: Bearer ", t->token));
          send.headers.push_back(recon::StrCat("x-ms-client-request-id: ", RequestId()));
          int64_t start = http::SteadyNowNs();
          api_->Send(std::move(send), [this, req = std::move(req), op, retried_401, done = std::move(done),
                                       start](http::HttpResponse hr) mutable {
            if (hr.error == "cancelled" || shutdown_) return;
            Record(op, hr, start);
            if (hr.status == 401 && !retried_401) {
              // Expired or revoked token: a new one, once.
              tokens_.erase(std::string(kArmScope));
              Send(std::move(req), op, true, std::move(done));
              return;
            }
            ArmResult r;
            r.status = hr.status;
            if (!hr.error.empty()) r.transport = recon::StrCat("Transport: ", hr.error);
            if (hr.status / 100 != 2) ParseError(hr.body, &r.code, &r.message);
            r.body = std::move(hr.body);
            if (op == "put" && r.transport.empty() && hr.status / 100 == 2) {
              std::string async = hr.Header("azure-asyncoperation");
              std::string location = hr.Header("location");
              if (!async.empty() || (hr.status == 202 && !location.empty())) {
                PollAfter(async.empty() ? location : async, !async.empty(), 0, hr.retry_after_s, std::move(r),
                          std::move(done));
                return;
              }
            }
            done(std::move(r));
          });
        });
}

void ArmClient::Put(const std::string& id, std::string body, const std::string& etag, Done done) {
  http::HttpRequest req;
  req.method = "PUT";
  req.url = Url(id);
  req.body = std::move(body);
  if (!etag.empty()) req.headers.push_back(recon::StrCat("If-Match: ", etag));
  Send(std::move(req), "put", false, std::move(done));
}

void ArmClient::PollAfter(std::string url, bool azure_async, int polls, int64_t retry_after_s, ArmResult put,
                          Done done) {
  int64_t ms = retry_after_s >= 0 ? retry_after_s * 1000 : options_.lro_poll_ms;
  ms = std::min(ms, options_.lro_max_poll_ms);
  loop_.After(ms, [this, url = std::move(url), azure_async, polls, put = std::move(put),
                   done = std::move(done)]() mutable {
    if (shutdown_) return;
    PollOperation(std::move(url), azure_async, polls, std::move(put), std::move(done));
  });
}

void ArmClient::PollOperation(std::string url, bool azure_async, int polls, ArmResult put, Done done) {
  if (polls >= options_.lro_max_polls) {
    put.transport =
        recon::StrCat("OperationTimeout: the operation did not end after ", polls, " status polls");
    done(std::move(put));
    return;
  }
  http::HttpRequest req;
  req.url = url;
  Send(std::move(req), "operation", false,
       [this, url, azure_async, polls, put = std::move(put), done = std::move(done)](ArmResult r) mutable {
         if (!r.transport.empty() || r.status == 429 || r.status >= 500) {
           // The operation goes on without us looking: ask again.
           PollAfter(std::move(url), azure_async, polls + 1, -1, std::move(put), std::move(done));
           return;
         }
         if (azure_async) {
           auto j = engine::ParseJson(r.body);
           std::string status = j.ok() ? engine::GetString(*j, {"status"}) : "";
           if (r.status / 100 == 2 && !Terminal(status)) {
             PollAfter(std::move(url), azure_async, polls + 1, -1, std::move(put), std::move(done));
             return;
           }
           if (status != "Succeeded") {
             put.async_failed = true;
             put.code = j.ok() ? engine::GetString(*j, {"error", "code"}) : "";
             put.message = j.ok() ? engine::GetString(*j, {"error", "message"}) : "";
             if (put.code.empty()) put.code = status.empty() ? recon::StrCat("HTTP ", r.status) : status;
             if (put.message.empty()) put.message = recon::StrCat("the operation ended ", status);
           }
           done(std::move(put));
           return;
         }
         // Location: 202 while running; the final answer is the resource.
         if (r.status == 202) {
           PollAfter(std::move(url), azure_async, polls + 1, -1, std::move(put), std::move(done));
           return;
         }
         if (r.status / 100 != 2) {
           put.async_failed = true;
           put.code = r.code.empty() ? recon::StrCat("HTTP ", r.status) : r.code;
           put.message = r.message;
         } else {
           put.body = std::move(r.body);
         }
         done(std::move(put));
       });
}

}  // namespace recon::azure
