#include "domains/olm/csv/cluster_roles.h"

#include <cinttypes>
#include <cstdio>
#include <utility>

#include "absl/strings/str_split.h"
#include "base/strings.h"
#include "domains/olm/csv/deployments.h"

namespace recon::olm {
namespace {

using engine::Json;

constexpr std::string_view kAggregatePrefix = "olm.opgroup.permissions/aggregate-to-";
constexpr const char* kSuffixes[] = {"admin", "edit", "view"};

Json ClusterRole(std::string_view name, Json labels) {
  return Json{{"apiVersion", "rbac.authorization.k8s.io/v1"},
              {"kind", "ClusterRole"},
              {"metadata", {{"name", name}, {"labels", std::move(labels)}}}};
}

Json Verbs(std::string_view suffix) {
  if (suffix == "admin") return Json::array({"*"});
  if (suffix == "edit") return Json::array({"create", "update", "patch", "delete"});
  return Json::array({"get", "list", "watch"});
}

bool Same(const Json& a, const Json& b) { return CanonicalEqual(a, b); }

}  // namespace

std::set<std::string> CsvProvidedApis(const Json& csv) {
  std::set<std::string> out;
  auto s = [](const Json& j, std::string_view k) { return engine::GetString(j, {k}); };
  for (const Json& crd : engine::Path(csv, {"spec", "customresourcedefinitions", "owned"})) {
    const std::string name = s(crd, "name");
    const size_t dot = name.find('.');
    if (dot == std::string::npos || s(crd, "kind").empty()) continue;
    out.insert(StrCat(s(crd, "kind"), ".", s(crd, "version"), ".", name.substr(dot + 1)));
  }
  for (const Json& api : engine::Path(csv, {"spec", "apiservicedefinitions", "owned"}))
    if (!s(api, "kind").empty())
      out.insert(StrCat(s(api, "kind"), ".", s(api, "version"), ".", s(api, "group")));
  return out;
}

std::set<std::string> GroupProvidedApis(const Json& og) {
  std::set<std::string> out;
  const std::string v = engine::GetString(og, {"metadata", "annotations", "olm.providedAPIs"});
  for (absl::string_view a : absl::StrSplit(v, ',', absl::SkipEmpty())) out.insert(std::string(a));
  return out;
}

std::string ApiHash(std::string_view kind_version_group) {
  uint64_t h = 14695981039346656037ull;
  for (char c : kind_version_group) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  char out[17];
  std::snprintf(out, sizeof out, "%" PRIx64, h);
  return out;
}

std::vector<Json> GroupClusterRoles(const Json& og, const std::set<std::string>& apis) {
  std::vector<Json> out;
  const std::string name = engine::GetString(og, {"metadata", "name"});
  for (const char* suffix : kSuffixes) {
    Json role = ClusterRole(StrCat(name, "-", suffix),
                            Json{{"olm.owner", name},
                                 {"olm.owner.namespace", engine::GetString(og, {"metadata", "namespace"})},
                                 {"olm.owner.kind", "OperatorGroup"}});
    Json selectors = Json::array();
    for (const std::string& api : apis)
      selectors.push_back(
          Json{{"matchLabels", {{StrCat(kAggregatePrefix, ApiHash(api), "-", suffix), "true"}}}});
    if (!selectors.empty()) role["aggregationRule"] = Json{{"clusterRoleSelectors", std::move(selectors)}};
    out.push_back(std::move(role));
  }
  return out;
}

std::vector<std::string> CrdClusterRoleNames(const Json& descriptor) {
  const std::string name = engine::GetString(descriptor, {"name"});
  if (name.find('.') == std::string::npos) return {};
  const std::string version = engine::GetString(descriptor, {"version"});
  std::vector<std::string> out;
  for (const char* suffix : kSuffixes) out.push_back(StrCat(name, "-", version, "-", suffix));
  out.push_back(StrCat(name, "-", version, "-crdview"));
  return out;
}

std::optional<std::vector<Json>> CrdClusterRoles(const Json& descriptor, const Json& crd) {
  const std::string name = engine::GetString(descriptor, {"name"});
  const size_t dot = name.find('.');
  if (dot == std::string::npos) return std::nullopt;
  const std::string plural = name.substr(0, dot), group = name.substr(dot + 1);
  const std::string version = engine::GetString(descriptor, {"version"});
  const std::string hash = ApiHash(StrCat(engine::GetString(descriptor, {"kind"}), ".", version, ".", group));
  const Json owner = {{"apiVersion", "apiextensions.k8s.io/v1"},
                      {"kind", "CustomResourceDefinition"},
                      {"name", engine::GetString(crd, {"metadata", "name"})},
                      {"uid", engine::GetString(crd, {"metadata", "uid"})},
                      {"blockOwnerDeletion", false},
                      {"controller", false}};
  std::vector<Json> out;
  auto add = [&](std::string_view role_suffix, std::string_view aggregate_to, Json rule) {
    Json role = ClusterRole(StrCat(name, "-", version, "-", role_suffix),
                            Json{{StrCat("rbac.authorization.k8s.io/aggregate-to-", aggregate_to), "true"},
                                 {StrCat(kAggregatePrefix, hash, "-", aggregate_to), "true"}});
    role["metadata"]["ownerReferences"] = Json::array({owner});
    role["rules"] = Json::array({std::move(rule)});
    out.push_back(std::move(role));
  };
  for (const char* suffix : kSuffixes)
    add(suffix, suffix,
        Json{{"verbs", Verbs(suffix)},
             {"apiGroups", Json::array({group})},
             {"resources", Json::array({plural})}});
  add("crdview", "view",
      Json{{"verbs", Json::array({"get"})},
           {"apiGroups", Json::array({"apiextensions.k8s.io"})},
           {"resources", Json::array({"customresourcedefinitions"})},
           {"resourceNames", Json::array({name})}});
  return out;
}

std::optional<Json> ClusterRoleUpdate(const Json& live, const Json& want) {
  const Json& want_labels = engine::Path(want, {"metadata", "labels"});
  const Json& live_labels = engine::Path(live, {"metadata", "labels"});
  bool labels = true;
  for (auto it = want_labels.begin(); want_labels.is_object() && it != want_labels.end(); ++it)
    labels &= engine::Path(live_labels, {it.key()}) == it.value();
  const bool rules = !want.contains("rules") || Same(engine::Path(live, {"rules"}), want["rules"]);
  const bool aggregation =
      Same(engine::Path(live, {"aggregationRule"}), engine::Path(want, {"aggregationRule"}));
  bool owned = true;
  for (const Json& ref : engine::Path(want, {"metadata", "ownerReferences"})) {
    bool found = false;
    for (const Json& have : engine::Path(live, {"metadata", "ownerReferences"}))
      found |= engine::GetString(have, {"uid"}) == engine::GetString(ref, {"uid"});
    owned &= found;
  }
  if (labels && rules && aggregation && owned) return std::nullopt;
  Json next = live;
  for (auto it = want_labels.begin(); want_labels.is_object() && it != want_labels.end(); ++it)
    next["metadata"]["labels"][it.key()] = it.value();
  if (want.contains("rules")) next["rules"] = want["rules"];
  if (want.contains("aggregationRule")) {
    next["aggregationRule"] = want["aggregationRule"];
  } else {
    next.erase("aggregationRule");
  }
  if (want["metadata"].contains("ownerReferences"))
    next["metadata"]["ownerReferences"] = want["metadata"]["ownerReferences"];
  return next;
}

}  // namespace recon::olm
