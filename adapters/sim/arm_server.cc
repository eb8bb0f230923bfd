#include "adapters/sim/arm_server.h"

#include <uv.h>

#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <ctime>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_split.h"
#include "adapters/sim/aad_discovery.h"
#include "adapters/sim/http_server.h"
#include "base/strings.h"
#include "engine/json.h"

namespace recon::sim {
namespace {

std::string Lowered(std::string_view s) { return absl::AsciiStrToLower(Av(s)); }

using engine::Json;

std::vector<std::string> Split(std::string_view path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    if (j > i) out.push_back(PercentDecode(path.substr(i, j - i), false));
    i = j + 1;
  }
  return out;
}

HttpAnswer ArmError(int status, std::string_view code, std::string_view message) {
  return JsonAnswer(status, Json{{"error", {{"code", code}, {"message", message}}}});
}

// AAD's error shape: the description starts with the AADSTS code.
HttpAnswer AadError(int status, std::string_view error, int code, std::string_view text) {
  return JsonAnswer(status, Json{{"error", error},
                                 {"error_description",
                                  recon::StrCat("AADSTS", code, ": ", text, "\r\nTrace ID: 00000000-sim")},
                                 {"error_codes", Json::array({code})}});
}

std::string B64Url(std::string_view s) {
  std::string out;
  absl::WebSafeBase64Escape(Av(s), &out);
  return out;
}

// A JWT's claims (its payload); nullopt when it is not a JWT.
std::optional<Json> JwtClaims(std::string_view jwt) {
  size_t a = jwt.find('.');
  size_t b = a == std::string_view::npos ? a : jwt.find('.', a + 1);
  if (b == std::string_view::npos || jwt.find('.', b + 1) != std::string_view::npos) return std::nullopt;
  std::string payload;
  if (!absl::WebSafeBase64Unescape(Av(jwt.substr(a + 1, b - a - 1)), &payload)) return std::nullopt;
  auto j = engine::ParseJson(payload);
  if (!j.ok() || !j->is_object()) return std::nullopt;
  return *j;
}

std::map<std::string, std::string> ParseForm(std::string_view body) {
  std::map<std::string, std::string> out;
  size_t i = 0;
  while (i <= body.size()) {
    size_t j = body.find('&', i);
    if (j == std::string_view::npos) j = body.size();
    std::string_view kv = body.substr(i, j - i);
    size_t eq = kv.find('=');
    if (!kv.empty())
      out[PercentDecode(kv.substr(0, eq), true)] =
          eq == std::string_view::npos ? "" : PercentDecode(kv.substr(eq + 1), true);
    i = j + 1;
  }
  return out;
}

}  // namespace

std::string ArmEtag(const std::string& spec_json) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%016zx", std::hash<std::string>{}(spec_json));
  return recon::StrCat("W/\"", buf, "\"");
}

class ArmServer::Impl {
 public:
  Impl(ApiServer& cluster, ArmServeOptions options)
      : cluster_(cluster),
        opts_(std::move(options)),
        reads_left_(opts_.read_limit),
        writes_left_(opts_.write_limit) {
    async_polls_ = opts_.async_polls;
  }
  ~Impl() { Stop(); }

  absl::Status Init() {
    uv_loop_init(&loop_);
    http_ = std::make_unique<StreamingHttpServer>(
        &loop_, [this](const HttpRequest& r, StreamingHttpServer::ConnId) { return Handle(r); },
        [](StreamingHttpServer::ConnId) {});
    auto port = http_->Listen(opts_.host, opts_.port);
    if (!port.ok()) {
      http_->Close();
      uv_run(&loop_, UV_RUN_NOWAIT);
      uv_loop_close(&loop_);
      return port.status();
    }
    port_ = *port;
    uv_async_init(&loop_, &async_, [](uv_async_t* a) {
      auto* self = static_cast<Impl*>(a->data);
      self->http_->Close();
      uv_close(reinterpret_cast<uv_handle_t*>(&self->async_), nullptr);
    });
    async_.data = this;
    thread_ = std::thread([this] { uv_run(&loop_, UV_RUN_DEFAULT); });
    return absl::OkStatus();
  }

  void Stop() {
    if (!thread_.joinable()) return;
    uv_async_send(&async_);
    thread_.join();
    uv_run(&loop_, UV_RUN_NOWAIT);
    uv_loop_close(&loop_);
  }

  int port() const { return port_; }
  std::string url() const { return recon::StrCat("http://", opts_.host, ":", port_); }

  std::mutex mu_;
  // fault state (under mu_)
  int throttle_ = 0, throttle_retry_s_ = 1;
  int async_polls_ = 1;
  bool async_fail_ = false;
  int stale_ = 0;
  std::string rotated_secret_;
  bool secret_expired_ = false;
  bool down_ = false;
  ArmStats stats_;
  std::map<std::string, std::string> tokens_;  // valid token → audience
  std::set<std::string> expired_tokens_;
  std::map<std::string, std::string> last_read_;  // lower-cased ID → the last GET's etag ("404": not found)

 private:
  struct Operation {
    int remaining = 0;
    bool fail = false;
  };
  struct Sp {
    std::string client_id, secret, tenant;
  };

  // The service principal AAD knows: the cluster's Secret, else the options.
  Sp Principal() {
    Sp sp{opts_.client_id, opts_.client_secret, opts_.tenant_id};
    if (auto s = cluster_.ObjectJson("", "Secret", "kube-system", "azure-credentials")) {
      auto j = engine::ParseJson(*s);
      if (j.ok()) {
        auto get = [&](const char* key, std::string* out) {
          std::string v = engine::GetString(*j, {"data", key});
          std::string plain;
          if (!v.empty() && absl::Base64Unescape(Av(v), &plain)) *out = plain;
        };
        get("azure_client_id", &sp.client_id);
        get("azure_client_secret", &sp.secret);
        get("azure_tenant_id", &sp.tenant);
      }
    }
    if (!rotated_secret_.empty()) sp.secret = rotated_secret_;
    return sp;
  }

  HttpAnswer Handle(const HttpRequest& r) {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.requests;
    std::vector<std::string> parts = Split(r.path);
    if (parts.size() >= 3 && parts[0] == "recon-sim" && parts[2] == "arm") return Fault(r);
    if (down_) {
      ++stats_.unavailable;
      return ArmError(503, "ServiceUnavailable",
                      "The service is temporarily unavailable (simulated outage).");
    }
    if (r.method == "POST" && parts.size() == 4 && parts[1] == "oauth2" && parts[3] == "token")
      return Token(r, parts[0]);
    if (r.method == "GET" && parts.size() == 4 && parts[1] == "v2.0" && parts[2] == ".well-known" &&
        parts[3] == "openid-configuration") {
      return JsonAnswer(200, OpenIdConfiguration(PublicBase(r), parts[0]));
    }
    if (r.method == "GET" && parts.size() == 3 && parts[0] == "common" && parts[1] == "discovery" &&
        parts[2] == "instance") {
      return JsonAnswer(200, InstanceDiscovery(PublicBase(r), r.Query("authorization_endpoint")));
    }
    if (parts.empty() || Lowered(parts[0]) != "subscriptions") return ArmError(404, "NotFound", "No route.");
    HttpAnswer a = Arm(r, parts);
    a.headers.emplace_back("x-ms-request-id", recon::StrCat("sim-", stats_.requests));
    std::string client_id = r.Header("x-ms-client-request-id");
    if (client_id.empty()) {
      ++stats_.missing_request_id;
    } else {
      a.headers.emplace_back("x-ms-client-request-id", client_id);
      stats_.client_request_ids.push_back(client_id);
      if (stats_.client_request_ids.size() > 100)
        stats_.client_request_ids.erase(stats_.client_request_ids.begin());
    }
    return a;
  }

  // The base URL the client used, for the endpoints a discovery document names.
  std::string PublicBase(const HttpRequest& r) const {
    std::string host = r.Header("host");
    return recon::StrCat(opts_.public_scheme, "://",
                         host.empty() ? recon::StrCat(opts_.host, ":", port_) : host);
  }

  HttpAnswer Fault(const HttpRequest& r) {
    auto num = [&](const char* k, int fallback) {
      std::string v = r.Query(k);
      return v.empty() ? fallback : std::atoi(v.c_str());
    };
    if (!r.Query("throttle").empty()) {
      throttle_ = num("throttle", 0);
      throttle_retry_s_ = num("retryAfter", 1);
    }
    if (!r.Query("slowAsync").empty()) {
      async_polls_ = num("slowAsync", 1);
      async_fail_ = r.Query("fail") == "1" || r.Query("fail") == "true";
    }
    if (!r.Query("staleEtags").empty()) stale_ = num("staleEtags", 0);
    if (!r.Query("rotateSecret").empty()) rotated_secret_ = r.Query("rotateSecret");
    if (!r.Query("expireSecret").empty()) secret_expired_ = num("expireSecret", 0) != 0;
    if (!r.Query("expireTokens").empty()) ExpireTokensLocked();
    if (!r.Query("down").empty()) down_ = num("down", 0) != 0;
    return JsonAnswer(200, Json{{"throttle", throttle_},
                                {"slowAsync", async_polls_},
                                {"staleEtags", stale_},
                                {"secretRotated", !rotated_secret_.empty()},
                                {"secretExpired", secret_expired_},
                                {"down", down_}});
  }

 public:
  void ExpireTokensLocked() {
    for (auto& [t, aud] : tokens_) expired_tokens_.insert(t);
    tokens_.clear();
  }

 private:
  HttpAnswer Token(const HttpRequest& r, const std::string& tenant) {
    ++stats_.token_requests;
    auto form = ParseForm(r.body);
    Sp sp = Principal();
    auto refuse = [&](HttpAnswer a) {
      ++stats_.token_refused;
      return a;
    };
    if (form["grant_type"] != "client_credentials")
      return refuse(
          AadError(400, "unsupported_grant_type", 70003, "The app requested an unsupported grant type."));
    if (!sp.tenant.empty() && tenant != sp.tenant)
      return refuse(
          AadError(400, "invalid_request", 90002, recon::StrCat("Tenant '", tenant, "' not found.")));
    if (form["client_id"] != sp.client_id)
      return refuse(AadError(400, "unauthorized_client", 700016,
                             recon::StrCat("Application with identifier '", form["client_id"],
                                           "' was not found in the directory '", tenant, "'.")));
    bool assertion = !form["client_assertion"].empty();
    if (assertion) {
      if (auto refused = CheckAssertion(form); refused) return refuse(std::move(*refused));
    }
    if (!assertion && form["client_secret"] != sp.secret)
      return refuse(
          AadError(401, "invalid_client", 7000215,
                   recon::StrCat("Invalid client secret provided. Ensure the secret being sent in the "
                                 "request is the client secret value, not the client secret ID, for a "
                                 "secret added to app '",
                                 sp.client_id, "'.")));
    if (!assertion && secret_expired_)
      return refuse(
          AadError(401, "invalid_client", 7000222,
                   recon::StrCat("The provided client secret keys for app '", sp.client_id,
                                 "' are expired. Visit the Azure portal to create new keys for your "
                                 "app.")));
    std::string aud = Audience(form["scope"]);
    ++stats_.tokens_issued;
    if (assertion) ++stats_.assertions_accepted;
    Json claims{{"aud", aud},
                {"iss", recon::StrCat("https://sts.windows.net/", tenant, "/")},
                {"appid", sp.client_id},
                {"tid", tenant},
                {"roles", Json::array()},
                {"jti", recon::StrCat("sim-token-", stats_.tokens_issued)}};
    std::string token =
        recon::StrCat(B64Url(R"({"alg":"RS256","typ":"JWT"})"), ".", B64Url(engine::Dump(claims)), ".",
                      B64Url(recon::StrCat("sim-signature-", stats_.tokens_issued)));
    tokens_[token] = aud;
    return JsonAnswer(200, Json{{"token_type", "Bearer"},
                                {"expires_in", opts_.token_ttl_s},
                                {"ext_expires_in", opts_.token_ttl_s},
                                {"access_token", token}});
  }

  // The token's audience: the resource of the scope's "<resource>/.default"
  // entry (MSAL adds "openid offline_access profile" beside it), without a
  // trailing slash ("https://graph.microsoft.com//.default", as the ARO
  // operator asks, is Graph).
  static std::string Audience(const std::string& scope) {
    for (absl::string_view piece : absl::StrSplit(scope, ' ', absl::SkipEmpty())) {
      std::string s(piece);
      if (!s.ends_with("/.default")) continue;
      std::string aud = s.substr(0, s.size() - 9);
      while (!aud.empty() && aud.back() == '/') aud.pop_back();
      return aud;
    }
    return scope;
  }

  // Workload identity: the assertion must be a JWT-bearer assertion whose
  // issuer, subject and audience match a federated credential, unexpired.
  std::optional<HttpAnswer> CheckAssertion(std::map<std::string, std::string>& form) {
    if (form["client_assertion_type"] != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
      return AadError(400, "invalid_request", 50027,
                      "Invalid client_assertion_type: expected "
                      "urn:ietf:params:oauth:client-assertion-type:jwt-bearer.");
    std::optional<Json> claims = JwtClaims(form["client_assertion"]);
    if (!claims) return AadError(400, "invalid_request", 50027, "JWT token is invalid or malformed.");
    std::string iss = engine::GetString(*claims, {"iss"}), sub = engine::GetString(*claims, {"sub"});
    std::string aud = engine::GetString(*claims, {"aud"});
    if (aud.empty()) {  // aud may be a list
      const Json& auds = engine::Path(*claims, {"aud"});
      if (auds.is_array() && !auds.empty() && auds[0].is_string()) aud = auds[0].get<std::string>();
    }
    bool matched = false;
    for (const auto& f : opts_.federated)
      matched = matched || (f.issuer == iss && f.subject == sub && f.audience == aud);
    if (!matched)
      return AadError(
          400, "invalid_request", 70021,
          recon::StrCat("No matching federated identity record found for presented assertion. "
                        "Assertion Issuer: '",
                        iss, "'. Assertion Subject: '", sub, "'. Assertion Audience: '", aud, "'."));
    const Json& exp = engine::Path(*claims, {"exp"});
    int64_t now = static_cast<int64_t>(std::time(nullptr));
    if (!exp.is_number() || exp.get<int64_t>() <= now)
      return AadError(400, "invalid_client", 700024,
                      recon::StrCat("Client assertion is not within its valid time range. Current time: ",
                                    now, ", expiry time of assertion ",
                                    exp.is_number() ? std::to_string(exp.get<int64_t>()) : "(none)", "."));
    return std::nullopt;
  }

  HttpAnswer Arm(const HttpRequest& r, const std::vector<std::string>& parts) {
    std::string auth = r.Header("authorization");
    std::string token = auth.rfind("Bearer ", 0) == 0 ? auth.substr(7) : "";
    auto t = tokens_.find(token);
    if (t == tokens_.end() || t->second.rfind("https://management.azure.com", 0) != 0) {
      ++stats_.unauthorized;
      bool expired = expired_tokens_.count(token) > 0;
      HttpAnswer a = ArmError(401, expired ? "ExpiredAuthenticationToken" : "InvalidAuthenticationToken",
                              expired ? "The access token has expired." : "The access token is invalid.");
      a.headers.emplace_back("WWW-Authenticate",
                             "Bearer authorization_uri=\"https://login.microsoftonline.com/\"");
      return a;
    }
    bool write = r.method == "PUT";
    int64_t& left = write ? writes_left_ : reads_left_;
    if (--left <= 0) left = write ? opts_.write_limit : opts_.read_limit;  // a new hour
    auto with_limits = [&](HttpAnswer a) {
      a.headers.emplace_back(write ? "x-ms-ratelimit-remaining-subscription-writes"
                                   : "x-ms-ratelimit-remaining-subscription-reads",
                             std::to_string(left));
      return a;
    };
    if (throttle_ > 0) {
      --throttle_;
      ++stats_.throttled;
      HttpAnswer a =
          ArmError(429, "TooManyRequests",
                   "The request is being throttled as the limit has been reached for operation type.");
      a.headers.emplace_back("Retry-After", std::to_string(throttle_retry_s_));
      return with_limits(std::move(a));
    }
    std::string api_version = r.Query("api-version");
    if (api_version.empty())
      return with_limits(
          ArmError(400, "MissingApiVersionParameter",
                   "The api-version query parameter (?api-version=) is required for all requests."));
    if (std::find(opts_.api_versions.begin(), opts_.api_versions.end(), api_version) ==
        opts_.api_versions.end())
      return with_limits(ArmError(400, "InvalidApiVersionParameter",
                                  recon::StrCat("The api-version '", api_version, "' is invalid.")));
    // /subscriptions/S/providers/Microsoft.Network/locations/L/operations/ID
    if (parts.size() == 8 && Lowered(parts[2]) == "providers" && Lowered(parts[4]) == "locations" &&
        Lowered(parts[6]) == "operations" && r.method == "GET")
      return with_limits(OperationStatus(parts[7]));
    std::string kind;
    if (parts.size() == 10 && Lowered(parts[6]) == "virtualnetworks" && Lowered(parts[8]) == "subnets")
      kind = "Subnet";
    if (parts.size() == 8 && Lowered(parts[6]) == "networksecuritygroups") kind = "NetworkSecurityGroup";
    if (kind.empty() || Lowered(parts[2]) != "resourcegroups" || Lowered(parts[4]) != "providers" ||
        Lowered(parts[5]) != "microsoft.network")
      return with_limits(
          ArmError(400, "InvalidResourceType", "The resource type is not served by the simulation."));
    std::string id;
    for (const auto& p : parts) recon::StrAppend(&id, "/", p);
    if (r.method == "GET") return with_limits(Get(kind, id));
    if (r.method == "PUT") return with_limits(Put(kind, id, r));
    return with_limits(ArmError(405, "MethodNotAllowed", "Only GET and PUT are simulated."));
  }

  // The stored object (ARM IDs are case-insensitive).
  std::optional<Json> Find(const std::string& kind, const std::string& id) {
    std::optional<std::string> s = cluster_.ObjectJson("network.azure.com", kind, "", id);
    if (!s) {
      std::string prefix = recon::StrCat("network.azure.com/", kind, "//");
      std::string want = Lowered(id);
      for (auto& [key, json] : cluster_.Objects()) {
        if (key.rfind(prefix, 0) == 0 && Lowered(key.substr(prefix.size())) == want) {
          s = json;
          break;
        }
      }
    }
    if (!s) return std::nullopt;
    auto j = engine::ParseJson(*s);
    if (!j.ok()) return std::nullopt;
    return *j;
  }

  Json Resource(const std::string& kind, const Json& object, const char* state) {
    std::string id = engine::GetString(object, {"metadata", "name"});
    const Json& spec = engine::Path(object, {"spec"});
    Json props = spec.is_object() ? spec : Json::object();
    props["provisioningState"] = state;
    return Json{{"name", id.substr(id.rfind('/') + 1)},
                {"id", id},
                {"etag", ArmEtag(engine::Dump(spec.is_object() ? spec : Json::object()))},
                {"type", kind == "Subnet" ? "Microsoft.Network/virtualNetworks/subnets"
                                          : "Microsoft.Network/networkSecurityGroups"},
                {"properties", std::move(props)}};
  }

  HttpAnswer Get(const std::string& kind, const std::string& id) {
    ++stats_.gets;
    auto o = Find(kind, id);
    // Was this answer the previous one for this resource?
    auto same_as_before = [&](const std::string& etag) {
      std::string& last = last_read_[Lowered(id)];
      if (last == etag) ++stats_.unchanged_reads;
      last = etag;
    };
    if (!o) {
      same_as_before("404");
      return ArmError(404, "NotFound", recon::StrCat("Resource ", id, " not found."));
    }
    Json res = Resource(kind, *o, "Succeeded");
    same_as_before(res["etag"].get<std::string>());
    return JsonAnswer(200, std::move(res));
  }

  HttpAnswer Put(const std::string& kind, const std::string& id, const HttpRequest& r) {
    ++stats_.puts;
    auto current = Find(kind, id);
    std::string if_match = r.Header("if-match");
    std::string etag = current ? ArmEtag(engine::Dump(engine::Path(*current, {"spec"}))) : "";
    if (stale_ > 0 || (!if_match.empty() && if_match != "*" && if_match != etag)) {
      if (stale_ > 0) --stale_;
      ++stats_.precondition_failed;
      return ArmError(412, "PreconditionFailed",
                      recon::StrCat("The specified precondition 'If-Match = \"", if_match, "\"' failed."));
    }
    auto body = engine::ParseJson(r.body);
    if (!body.ok() || !body->is_object() || !engine::Path(*body, {"properties"}).is_object())
      return ArmError(400, "InvalidRequestContent", "The request content must hold a properties object.");
    Json spec = (*body)["properties"];
    spec.erase("provisioningState");  // read-only
    // ARM sets each service endpoint's provisioningState itself (what the
    // client sent there is ignored); the operation below stands for the wait.
    if (auto eps = spec.find("serviceEndpoints"); kind == "Subnet" && eps != spec.end() && eps->is_array())
      for (auto& ep : *eps)
        if (ep.is_object()) ep["provisioningState"] = "Succeeded";
    std::string name = current ? engine::GetString(*current, {"metadata", "name"}) : id;
    Json object{{"apiVersion", "network.azure.com/v1"},
                {"kind", kind},
                {"metadata", {{"name", name}}},
                {"spec", spec}};
    ApiResult w = cluster_.Write(current ? "update" : "create", engine::Dump(object));
    if (!w.ok) {
      std::string code = w.error.substr(0, w.error.find(':'));
      return ArmError(w.status, code, w.error);
    }
    ++stats_.puts_by_id[Lowered(name)];
    std::string op = recon::StrCat("op-", ++next_op_);
    ops_[op] = {async_polls_, async_fail_};
    if (async_polls_ > 1) ++stats_.slow_operations;
    HttpAnswer a = JsonAnswer(current ? 200 : 201, Resource(kind, object, "Updating"));
    a.headers.emplace_back("Azure-AsyncOperation",
                           recon::StrCat(url(), "/subscriptions/", id.substr(15, id.find('/', 15) - 15),
                                         "/providers/Microsoft.Network/locations/", opts_.region,
                                         "/operations/", op, "?api-version=", r.Query("api-version")));
    a.headers.emplace_back("Retry-After", std::to_string(opts_.async_retry_after_s));
    return a;
  }

  HttpAnswer OperationStatus(const std::string& op) {
    ++stats_.operation_polls;
    auto it = ops_.find(op);
    if (it == ops_.end()) return ArmError(404, "NotFound", recon::StrCat("Operation ", op, " not found."));
    if (it->second.remaining > 0) {
      --it->second.remaining;
      HttpAnswer a = JsonAnswer(200, Json{{"status", "InProgress"}});
      a.headers.emplace_back("Retry-After", std::to_string(opts_.async_retry_after_s));
      return a;
    }
    if (it->second.fail)
      return JsonAnswer(200, Json{{"status", "Failed"},
                                  {"error",
                                   {{"code", "InternalServerError"},
                                    {"message", "An error occurred (simulated failed operation)."}}}});
    return JsonAnswer(200, Json{{"status", "Succeeded"}});
  }

  ApiServer& cluster_;
  ArmServeOptions opts_;
  int64_t reads_left_, writes_left_;
  std::map<std::string, Operation> ops_;
  uint64_t next_op_ = 0;
  uv_loop_t loop_;
  uv_async_t async_;
  std::unique_ptr<StreamingHttpServer> http_;
  std::thread thread_;
  int port_ = 0;
};

absl::StatusOr<std::unique_ptr<ArmServer>> ArmServer::Start(ApiServer& cluster, ArmServeOptions options) {
  auto impl = std::make_unique<Impl>(cluster, std::move(options));
  if (auto s = impl->Init(); !s.ok()) return s;
  return std::unique_ptr<ArmServer>(new ArmServer(std::move(impl)));
}

ArmServer::ArmServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ArmServer::~ArmServer() { Stop(); }
int ArmServer::port() const { return impl_->port(); }
std::string ArmServer::url() const { return impl_->url(); }
void ArmServer::Stop() { impl_->Stop(); }

void ArmServer::Throttle(int count, int retry_after_s) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->throttle_ = count;
  impl_->throttle_retry_s_ = retry_after_s;
}
void ArmServer::SlowAsync(int polls, bool fail) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->async_polls_ = polls;
  impl_->async_fail_ = fail;
}
void ArmServer::StaleEtags(int count) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->stale_ = count;
}
void ArmServer::RotateSecret(const std::string& new_secret) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->rotated_secret_ = new_secret;
}
void ArmServer::ExpireSecret(bool expired) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->secret_expired_ = expired;
}
void ArmServer::ExpireTokens() {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->ExpireTokensLocked();
}
void ArmServer::SetDown(bool down) {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->down_ = down;
}
ArmStats ArmServer::Stats() {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  return impl_->stats_;
}
std::vector<std::string> ArmServer::IssuedTokens() {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  std::vector<std::string> out(impl_->expired_tokens_.begin(), impl_->expired_tokens_.end());
  for (const auto& [t, aud] : impl_->tokens_) out.push_back(t);
  return out;
}

}  // namespace recon::sim
