// What is not a resource: discovery (/api, /apis and their groups and
// resource lists), just enough OpenAPI v3 for kubectl, /version, health
// endpoints, and the simulator's probe endpoint.
#include <algorithm>
#include <cctype>

#include "absl/strings/str_split.h"
#include "adapters/sim/api_server_impl.h"
#include "adapters/sim/api_status.h"
#include "base/strings.h"

namespace recon::sim {
namespace {

// k8s.io/apimachinery's CompareKubeAwareVersionStrings as a "sorts before":
// v<major>[(alpha|beta)<minor>] forms first by stability, then major, then
// minor, all descending; any other string after them, in lexical order.
bool KubeVersionBefore(const std::string& a, const std::string& b) {
  struct Parsed {
    bool ok = false;
    int stability = 0;  // 2 GA, 1 beta, 0 alpha
    long major = 0, minor = 0;
  };
  auto parse = [](const std::string& v) {
    Parsed p;
    if (v.size() < 2 || v[0] != 'v' || !std::isdigit(static_cast<unsigned char>(v[1]))) return p;
    size_t i = 1;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i])))
      p.major = p.major * 10 + (v[i++] - '0');
    if (i == v.size()) {
      p.ok = true;
      p.stability = 2;
      return p;
    }
    std::string_view rest(v.data() + i, v.size() - i);
    if (rest.starts_with("alpha")) {
      rest.remove_prefix(5);
    } else if (rest.starts_with("beta")) {
      p.stability = 1;
      rest.remove_prefix(4);
    } else {
      return p;
    }
    if (rest.empty()) return p;
    for (char c : rest) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return p;
      p.minor = p.minor * 10 + (c - '0');
    }
    p.ok = true;
    return p;
  };
  Parsed x = parse(a), y = parse(b);
  if (x.ok != y.ok) return x.ok;
  if (!x.ok) return a < b;
  if (x.stability != y.stability) return x.stability > y.stability;
  if (x.major != y.major) return x.major > y.major;
  return x.minor > y.minor;
}

}  // namespace

Json ApiServer::Impl::GroupJson(const std::string& group) const {
  Json versions = Json::array();
  std::vector<std::string> vs = table_.Versions(group);
  // As apiextensions-apiserver lists a group: Kubernetes version priority
  // (GA > beta > alpha, higher numbers first), the first one preferred.
  std::stable_sort(vs.begin(), vs.end(), KubeVersionBefore);
  for (const auto& v : vs) versions.push_back({{"groupVersion", group + "/" + v}, {"version", v}});
  std::string preferred = vs.front();
  return {{"name", group},
          {"versions", versions},
          {"preferredVersion", {{"groupVersion", group + "/" + preferred}, {"version", preferred}}}};
}

HttpAnswer ApiServer::Impl::ResourceList(const std::string& group, const std::string& version) const {
  Json resources = Json::array();
  for (const auto& r : table_.all()) {
    if (r.type.group != group || r.type.version != version) continue;
    Json e = {{"name", r.type.plural},
              {"singularName", r.singular},
              {"namespaced", r.type.namespaced},
              {"kind", r.type.kind},
              {"verbs", r.verbs}};
    if (!r.type.short_names.empty()) e["shortNames"] = r.type.short_names;
    resources.push_back(e);
    if (r.type.status_subresource) {
      resources.push_back({{"name", r.type.plural + "/status"},
                           {"singularName", ""},
                           {"namespaced", r.type.namespaced},
                           {"kind", r.type.kind},
                           {"verbs", {"get", "patch", "update"}}});
    }
  }
  if (resources.empty())
    return StatusAnswer(404, "NotFound", "the server could not find the requested resource");
  return JsonAnswer(200, {{"kind", "APIResourceList"},
                          {"apiVersion", "v1"},
                          {"groupVersion", group.empty() ? version : group + "/" + version},
                          {"resources", resources}});
}

HttpAnswer ApiServer::Impl::NonResource(const HttpRequest& req) {
  const std::string& p = req.path;
  if (req.method != "GET") return StatusAnswer(405, "MethodNotAllowed", recon::StrCat(req.method, " ", p));
  if (p == "/version" || p == "/version/") {
    return JsonAnswer(200, {{"major", "1"},
                            {"minor", "32"},
                            {"gitVersion", "v1.32.0-recon-sim"},
                            {"gitCommit", "0000000000000000000000000000000000000000"},
                            {"gitTreeState", "clean"},
                            {"buildDate", "2026-01-01T00:00:00Z"},
                            {"goVersion", "none"},
                            {"compiler", "none"},
                            {"platform", "linux/amd64"}});
  }
  if (p == "/healthz" || p == "/readyz" || p == "/livez") {
    HttpAnswer a;
    a.content_type = "text/plain; charset=utf-8";
    a.body = "ok";
    return a;
  }
  if (p == "/api" || p == "/api/") {
    return JsonAnswer(
        200, {{"kind", "APIVersions"},
              {"versions", {"v1"}},
              {"serverAddressByClientCIDRs",
               {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", recon::StrCat(opts_.host, ":", port_)}}}}});
  }
  if (p == "/api/v1" || p == "/api/v1/") return ResourceList("", "v1");
  if (p == "/apis" || p == "/apis/") {
    Json groups = Json::array();
    for (const auto& g : table_.Groups()) {
      if (!g.empty()) groups.push_back(GroupJson(g));
    }
    return JsonAnswer(200, {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}});
  }
  if (p == "/recon-sim/v1/probe") return Probe(req);
  if (p == "/openapi/v3" || p.starts_with("/openapi/v3/"))
    return OpenApiV3(p.substr(std::min<size_t>(p.size(), 12)));
  std::vector<std::string> segs = absl::StrSplit(Av(p), '/', absl::SkipEmpty());
  if (segs.size() == 2 && segs[0] == "apis" && !table_.Versions(segs[1]).empty()) {
    Json g = GroupJson(segs[1]);
    g["kind"] = "APIGroup";
    g["apiVersion"] = "v1";
    return JsonAnswer(200, g);
  }
  if (segs.size() == 3 && segs[0] == "apis") return ResourceList(segs[1], segs[2]);
  return StatusAnswer(404, "NotFound", "the server could not find the requested resource");
}

// Just enough OpenAPI v3 for kubectl's field validation check: every
// served kind has a PATCH operation that takes fieldValidation, so kubectl
// leaves validation to the server (which does not validate: documented).
// No schemas: kubectl then computes apply patches without them.
HttpAnswer ApiServer::Impl::OpenApiV3(const std::string& gv) {
  std::vector<std::pair<std::string, std::string>> gvs;  // (group, version)
  for (const auto& r : table_.all()) {
    std::pair<std::string, std::string> k{r.type.group, r.type.version};
    if (std::find(gvs.begin(), gvs.end(), k) == gvs.end()) gvs.push_back(k);
  }
  auto prefix = [](const std::pair<std::string, std::string>& k) {
    return k.first.empty() ? "api/" + k.second : "apis/" + k.first + "/" + k.second;
  };
  if (gv.empty()) {
    Json paths = Json::object();
    for (const auto& k : gvs) {
      paths[prefix(k)] = {{"serverRelativeURL", "/openapi/v3/" + prefix(k) + "?hash=recon-sim"}};
    }
    return JsonAnswer(200, {{"paths", paths}});
  }
  Json paths = Json::object();
  for (const auto& r : table_.all()) {
    if (prefix({r.type.group, r.type.version}) != gv) continue;
    std::string path = recon::StrCat("/", gv, r.type.namespaced ? "/namespaces/{namespace}/" : "/",
                                     r.type.plural, "/{name}");
    paths[path] = {
        {"patch",
         {{"x-kubernetes-group-version-kind",
           {{"group", r.type.group}, {"version", r.type.version}, {"kind", r.type.kind}}},
          {"parameters", {{{"name", "fieldValidation"}, {"in", "query"}, {"schema", {{"type", "string"}}}}}},
          {"responses", {{"200", {{"description", "OK"}}}}}}}};
  }
  if (paths.empty()) return StatusAnswer(404, "NotFound", "the server could not find the requested resource");
  return JsonAnswer(
      200, {{"openapi", "3.0.0"}, {"info", {{"title", "recon sim"}, {"version", "v1"}}}, {"paths", paths}});
}

HttpAnswer ApiServer::Impl::Probe(const HttpRequest& req) {
  std::string name = req.Query("name");
  if (name.empty()) return StatusAnswer(400, "BadRequest", "probe: the name parameter is required");
  records::EventRecord e = sim_->probes().Answer(name, req.Query("target"), sim_->now());
  Json out = {{"ok", e.probe.ok},
              {"status", e.probe.status ? Json(*e.probe.status) : Json()},
              {"detail", e.probe.detail},
              {"data", Json()}};
  if (!e.probe.data.empty()) {
    auto data = engine::ParseJson(e.probe.data);
    if (data.ok()) out["data"] = std::move(*data);
  }
  return JsonAnswer(200, out);
}

}  // namespace recon::sim
