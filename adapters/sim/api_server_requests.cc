// One request: routing its path and method to a served resource and a
// Kubernetes verb, the checks every request passes, and the answers for
// failed writes and missing objects.
#include <algorithm>

#include "absl/strings/str_split.h"
#include "adapters/sim/api_server_impl.h"
#include "adapters/sim/api_status.h"
#include "base/strings.h"

namespace recon::sim {
namespace {

constexpr size_t kMaxLog = 100000;  // requests kept for Requests()

}  // namespace

bool ParseUint(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 19) return false;
  uint64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = n;
  return true;
}

HttpAnswer ApiServer::Impl::Handle(const HttpRequest& req, ConnId conn) {
  Sync();
  Route route = Parse(req);
  ++stats_.requests;
  HttpAnswer a;
  if (static_cast<int64_t>(uv_now(&loop_)) < unavailable_until_ms_) {
    ++stats_.unavailable;
    a = StatusAnswer(503, "ServiceUnavailable", "the server is currently unable to handle the request");
  } else {
    a = Dispatch(req, route, conn);
    CountWrite(req, route, a);
  }
  if (log_.size() < kMaxLog) log_.push_back(RequestLogEntry{req.method, req.url, a.status});
  return a;
}

// Writes applied, and the same action (X-Recon-Action) applied twice.
void ApiServer::Impl::CountWrite(const HttpRequest& req, const Route& route, const HttpAnswer& a) {
  const std::string& v = route.verb;
  if (v != "create" && v != "update" && v != "patch" && v != "delete") return;
  if (a.status < 200 || a.status > 299) return;
  ++stats_.writes_applied;
  std::string id = req.Header("x-recon-action");
  if (id.empty()) return;
  if (++applied_[id] == 2) {
    ++stats_.actions_applied_twice;
    if (stats_.examples.size() < 10)
      stats_.examples.push_back(recon::StrCat(req.method, " ", req.path, " (action ", id, ") applied twice"));
  }
}

HttpAnswer ApiServer::Impl::Dispatch(const HttpRequest& req, const Route& route, ConnId conn) {
  if (!opts_.token.empty() && req.Header("authorization") != "Bearer " + opts_.token) {
    return StatusAnswer(401, "Unauthorized", "Unauthorized");
  }
  if (auto injected = InjectedAnswer(route)) return *injected;
  if (!route.resource) return NonResource(req);
  if (route.res == nullptr) {
    return StatusAnswer(404, "NotFound", "the server could not find the requested resource");
  }
  if (route.verb.empty()) {
    return StatusAnswer(405, "MethodNotAllowed",
                        recon::StrCat(req.method, " is not supported on ", req.path));
  }
  const auto& verbs = route.res->verbs;
  if (std::find(verbs.begin(), verbs.end(),
                route.verb == "watch" || route.verb == "list" ? "list" : route.verb) == verbs.end()) {
    return StatusAnswer(405, "MethodNotAllowed",
                        recon::StrCat(route.verb, " is not supported on ", route.res->type.plural));
  }
  if (!route.sub.empty() && (route.sub != "status" || !route.res->type.status_subresource)) {
    return StatusAnswer(404, "NotFound", "the server could not find the requested resource");
  }
  // A dry run must not write; rather refused than silently applied.
  if (!req.Query("dryRun").empty()) {
    return StatusAnswer(400, "BadRequest", "dryRun is not supported by the simulated API server");
  }
  if (route.verb == "list") return List(req, route);
  if (route.verb == "watch") return StartWatch(req, route, conn);
  if (route.verb == "get") return Get(route);
  if (route.verb == "create") return Create(req, route);
  if (route.verb == "update") return Update(req, route);
  if (route.verb == "patch") return Patch(req, route);
  return Delete(req, route);
}

Route ApiServer::Impl::Parse(const HttpRequest& req) const {
  Route r;
  std::vector<std::string> segs;
  for (absl::string_view s : absl::StrSplit(Av(req.path), '/', absl::SkipEmpty())) {
    segs.push_back(PercentDecode(Sv(s), false));
  }
  size_t at = 0;
  if (segs.size() >= 3 && segs[0] == "api" && segs[1] == "v1") {
    r.version = "v1";
    at = 2;
  } else if (segs.size() >= 4 && segs[0] == "apis") {
    r.group = segs[1];
    r.version = segs[2];
    at = 3;
  } else {
    return r;
  }
  r.resource = true;
  std::vector<std::string> rest(segs.begin() + static_cast<long>(at), segs.end());
  if (rest.size() >= 3 && rest[0] == "namespaces") {
    const ServedResource* res = table_.Find(r.group, r.version, rest[2]);
    if (res != nullptr && res->type.namespaced) {
      if (rest.size() > 5) return r;
      r.res = res;
      r.ns = rest[1];
      r.name = rest.size() > 3 ? rest[3] : "";
      r.sub = rest.size() > 4 ? rest[4] : "";
    }
  }
  if (r.res == nullptr) {
    if (rest.size() > 3) return r;
    r.res = table_.Find(r.group, r.version, rest[0]);
    r.name = rest.size() > 1 ? rest[1] : "";
    r.sub = rest.size() > 2 ? rest[2] : "";
    // A namespaced object is only addressable under its namespace.
    if (r.res != nullptr && r.res->type.namespaced && !r.name.empty()) r.res = nullptr;
  }
  if (r.res == nullptr) return r;
  const std::string& m = req.method;
  if (m == "GET") {
    r.verb = r.name.empty() ? (IsTrue(req.Query("watch")) ? "watch" : "list") : "get";
  } else if (m == "POST" && r.name.empty()) {
    r.verb = "create";
  } else if (m == "PUT" && !r.name.empty()) {
    r.verb = "update";
  } else if (m == "PATCH" && !r.name.empty()) {
    r.verb = "patch";
  } else if (m == "DELETE" && !r.name.empty()) {
    r.verb = "delete";
  }
  return r;
}

Json ApiServer::Impl::Details(const Route& route, const std::string& name) const {
  Json d = {{"name", name.empty() ? route.name : name}, {"kind", route.res->type.plural}};
  if (!route.res->type.group.empty()) d["group"] = route.res->type.group;
  return d;
}

HttpAnswer ApiServer::Impl::Failed(const ApiResult& r, const Route& route, const std::string& name) {
  std::string_view err = r.error;
  size_t colon = err.find(": ");
  std::string reason =
      colon == std::string_view::npos ? ReasonFor(r.status) : std::string(err.substr(0, colon));
  std::string message(colon == std::string_view::npos ? err : err.substr(colon + 2));
  Json details = Details(route, name);
  if (!r.details_kind.empty()) {
    // An Invalid: NewInvalid's details (the object's kind, or the resource
    // for a missing resourceVersion) and one cause per field error.
    details = {{"name", name.empty() ? route.name : name}};
    if (!r.details_group.empty()) details["group"] = r.details_group;
    details["kind"] = r.details_kind;
    Json causes = Json::array();
    for (const auto& c : r.causes)
      causes.push_back({{"reason", c.reason}, {"message", c.message}, {"field", c.field}});
    details["causes"] = std::move(causes);
  }
  HttpAnswer a = StatusAnswer(r.status, reason, message, details);
  if (r.status == 429) a.headers.emplace_back("Retry-After", "1");
  return a;
}

ObjectKey ApiServer::Impl::KeyFor(const Route& route, const std::string& name) const {
  return ObjectKey{route.res->type.group, route.res->type.kind, route.res->type.namespaced ? route.ns : "",
                   name};
}

HttpAnswer ApiServer::Impl::NotFound(const Route& route) {
  std::string what = route.res->type.group.empty()
                         ? route.res->type.plural
                         : recon::StrCat(route.res->type.plural, ".", route.res->type.group);
  return StatusAnswer(404, "NotFound", recon::StrCat(what, " \"", route.name, "\" not found"),
                      Details(route));
}

}  // namespace recon::sim
