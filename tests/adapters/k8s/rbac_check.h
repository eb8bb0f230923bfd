// Checks the requests a live adapter really sent (the sim's request log)
// against the RBAC deploy/ grants (cli/rbac.h): every resource request must
// be allowed by the ClusterRole or the agent's namespaced Role.
#ifndef RECON_TESTS_ADAPTERS_K8S_RBAC_CHECK_H_
#define RECON_TESTS_ADAPTERS_K8S_RBAC_CHECK_H_

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "adapters/sim/api_server.h"
#include "cli/rbac.h"

namespace recon::k8s::testing {

struct RbacRequest {
  std::string group, resource, verb;  // resource may be "plural/status"
  bool namespaced = false;
};

// Maps a Kubernetes API path and method to what RBAC authorizes; false for
// non-resource paths (discovery, /version, the sim's probe endpoint).
inline bool ToRbacRequest(const std::string& method, const std::string& path_and_query, RbacRequest* out) {
  *out = RbacRequest{};
  std::string path = path_and_query.substr(0, path_and_query.find('?'));
  std::string query = path_and_query.size() > path.size() ? path_and_query.substr(path.size()) : "";
  std::vector<std::string> seg;
  for (absl::string_view s : absl::StrSplit(path, '/', absl::SkipEmpty())) seg.emplace_back(s);
  size_t i = 0;
  if (seg.size() >= 2 && seg[0] == "api") {
    out->group = "";
    i = 2;
  } else if (seg.size() >= 3 && seg[0] == "apis") {
    out->group = seg[1];
    i = 3;
  } else {
    return false;
  }
  if (i >= seg.size()) return false;  // group/version discovery
  // namespaces/<ns>/<plural>... is namespaced; namespaces[/<name>] is the
  // Namespace resource itself.
  if (seg[i] == "namespaces" && seg.size() > i + 2) {
    out->namespaced = true;
    i += 2;
  }
  out->resource = seg[i];
  bool named = seg.size() > i + 1;
  if (seg.size() > i + 2) out->resource += "/" + seg[i + 2];
  if (method == "GET") {
    bool watch = query.find("watch=1") != std::string::npos || query.find("watch=true") != std::string::npos;
    out->verb = watch ? "watch" : named ? "get" : "list";
  } else if (method == "POST") {
    out->verb = "create";
  } else if (method == "PUT") {
    out->verb = "update";
  } else if (method == "PATCH") {
    out->verb = "patch";
  } else if (method == "DELETE") {
    out->verb = "delete";
  } else {
    return false;
  }
  return true;
}

// The requests not allowed by `cluster` or `ns_rules`, as "VERB group/resource".
inline std::set<std::string> Unauthorized(const std::vector<sim::RequestLogEntry>& log,
                                          const std::vector<cli::RbacRule>& cluster,
                                          const std::vector<cli::RbacRule>& ns_rules, size_t* checked) {
  auto allows = [](const std::vector<cli::RbacRule>& rules, const RbacRequest& r) {
    return std::any_of(rules.begin(), rules.end(), [&](const cli::RbacRule& rule) {
      return rule.api_group == r.group && rule.resource == r.resource &&
             std::find(rule.verbs.begin(), rule.verbs.end(), r.verb) != rule.verbs.end();
    });
  };
  std::set<std::string> bad;
  for (const auto& entry : log) {
    RbacRequest r;
    if (!ToRbacRequest(entry.method, entry.path, &r)) continue;
    ++*checked;
    if (allows(cluster, r) || (r.namespaced && allows(ns_rules, r))) continue;
    bad.insert(r.verb + " " + (r.group.empty() ? "core" : r.group) + "/" + r.resource);
  }
  return bad;
}

}  // namespace recon::k8s::testing

#endif  // RECON_TESTS_ADAPTERS_K8S_RBAC_CHECK_H_
