#include "domains/olm/install/bundle_steps.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>

#include "base/strings.h"
#include "domains/olm/install/json_values.h"

namespace recon::olm {
namespace {

using engine::Json;

constexpr std::string_view kRbacApiVersion = "rbac.authorization.k8s.io/v1";

// A step of the bundle for `manifest` (its group, version, kind and name).
Json Step(const BundleContent& b, std::string_view resolving, std::string_view kind, const Json& manifest) {
  std::string api = engine::GetString(manifest, {"apiVersion"});
  std::string group, version = api;
  if (auto slash = api.find('/'); slash != std::string::npos) {
    group = api.substr(0, slash);
    version = api.substr(slash + 1);
  }
  std::string name = engine::GetString(manifest, {"metadata", "name"});
  if (name.empty()) name = engine::GetString(manifest, {"metadata", "generateName"});
  return Json{{"resolving", resolving},
              {"resource", Json{{"sourceName", b.catalog},
                                {"sourceNamespace", b.catalog_ns},
                                {"group", group},
                                {"version", version},
                                {"kind", kind},
                                {"name", name},
                                {"manifest", engine::Dump(manifest)}}},
              {"status", "Unknown"}};
}

Json OwnerLabels(std::string_view csv, std::string_view ns) {
  return Json{{"olm.owner", csv}, {"olm.owner.namespace", ns}, {"olm.owner.kind", "ClusterServiceVersion"}};
}

Json Rbac(std::string_view kind, const std::string& name, std::string_view ns, const Json& labels) {
  Json meta = Json{{"name", name}};
  if (!ns.empty()) meta["namespace"] = ns;
  meta["labels"] = labels;
  return Json{{"apiVersion", kRbacApiVersion}, {"kind", kind}, {"metadata", std::move(meta)}};
}

// One service account's permissions: namespaced and cluster-wide entries.
struct Permissions {
  std::vector<const Json*> namespaced, cluster;
};

// §A.3 item 3: per service account (in name order), the ServiceAccount,
// its Roles, RoleBindings, ClusterRoles and ClusterRoleBindings.
void RbacSteps(const BundleContent& b, const std::string& csv, std::string_view ns, std::vector<Json>* out) {
  std::map<std::string, Permissions> by_sa;
  const Json& spec = engine::Path(b.csv, {"spec", "install", "spec"});
  for (const auto& [field, cluster] : {std::pair{"permissions", false}, std::pair{"clusterPermissions", true}}) {
    const Json& list = engine::Path(spec, {field});
    for (const Json& p : ArrayOrEmpty(list)) {
      Permissions& perms = by_sa[engine::GetString(p, {"serviceAccountName"})];
      (cluster ? perms.cluster : perms.namespaced).push_back(&p);
    }
  }
  const Json labels = OwnerLabels(csv, ns);
  for (const auto& [sa, perms] : by_sa) {
    if (sa != "default") {
      Json account = Json{{"apiVersion", "v1"},
                          {"kind", "ServiceAccount"},
                          {"metadata", Json{{"name", sa},
                                            {"namespace", ns},
                                            {"ownerReferences", Json::array({CsvOwnerRef(csv)})}}}};
      out->push_back(Step(b, csv, "ServiceAccount", account));
    }
    const Json subjects = Json::array({Json{{"kind", "ServiceAccount"}, {"name", sa}, {"namespace", ns}}});
    std::vector<Json> roles, bindings, cluster_roles, cluster_bindings;
    for (const Json* p : perms.namespaced) {
      std::string name = RbacName(StrCat(csv, "-", sa), RbacHash(Json::array({csv, *p})));
      Json role = Rbac("Role", name, ns, labels);
      role["metadata"]["ownerReferences"] = Json::array({CsvOwnerRef(csv)});
      role["rules"] = engine::Path(*p, {"rules"}).is_array() ? (*p)["rules"] : Json::array();
      Json binding = Rbac("RoleBinding", name, ns, labels);
      binding["metadata"]["ownerReferences"] = Json::array({CsvOwnerRef(csv)});
      binding["roleRef"] = Json{{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", name}};
      binding["subjects"] = subjects;
      roles.push_back(Step(b, csv, "Role", role));
      bindings.push_back(Step(b, csv, "RoleBinding", binding));
    }
    for (const Json* p : perms.cluster) {
      std::string name = RbacName(csv, RbacHash(Json::array({csv, ns, *p})));
      Json role = Rbac("ClusterRole", name, "", labels);
      role["rules"] = engine::Path(*p, {"rules"}).is_array() ? (*p)["rules"] : Json::array();
      Json binding = Rbac("ClusterRoleBinding", name, "", labels);
      binding["roleRef"] =
          Json{{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", name}};
      binding["subjects"] = subjects;
      cluster_roles.push_back(Step(b, csv, "ClusterRole", role));
      cluster_bindings.push_back(Step(b, csv, "ClusterRoleBinding", binding));
    }
    for (auto* group : {&roles, &bindings, &cluster_roles, &cluster_bindings})
      for (Json& s : *group) out->push_back(std::move(s));
  }
}

}  // namespace

Json CsvOwnerRef(std::string_view csv, std::string_view uid) {
  return Json{{"apiVersion", kCsvApiVersion}, {"kind", "ClusterServiceVersion"}, {"name", csv},
              {"uid", uid},                   {"blockOwnerDeletion", false},   {"controller", false}};
}

std::string RbacHash(const Json& inputs) {
  uint32_t h = 2166136261u;
  for (char c : engine::Dump(inputs)) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  for (char digit : std::to_string(h)) out.push_back(kAlphabet[static_cast<unsigned char>(digit) % 27]);
  return out;
}

std::string RbacName(std::string_view base, std::string_view hash) {
  if (base.size() + hash.size() > 63) base = base.substr(0, 63 - hash.size() - 1);
  return StrCat(base, "-", hash);
}

absl::StatusOr<std::vector<Json>> BundleSteps(const BundleContent& b, std::string_view ns) {
  const std::string csv_name = engine::GetString(b.csv, {"metadata", "name"});
  if (engine::GetString(b.csv, {"apiVersion"}).empty())
    return absl::InvalidArgumentError(StrCat("bundle CSV ", csv_name, " missing APIVersion"));
  if (engine::GetString(b.csv, {"kind"}).empty())
    return absl::InvalidArgumentError(StrCat("bundle CSV ", csv_name, " missing Kind"));
  Json csv = b.csv;
  csv["metadata"]["namespace"] = ns;
  if (!csv.contains("spec") || !csv["spec"].is_object()) csv["spec"] = Json::object();
  // The resolved replaces overwrites the bundle's (empty: none).
  if (b.replaces.empty()) {
    csv["spec"].erase("replaces");
  } else {
    csv["spec"]["replaces"] = b.replaces;
  }
  Json& annotations = csv["metadata"]["annotations"];
  if (!annotations.is_object()) annotations = Json::object();
  annotations["operatorframework.io/properties"] = engine::Dump(Json{{"properties", b.properties}});
  std::vector<Json> steps;
  steps.push_back(Step(b, csv_name, "ClusterServiceVersion", csv));
  for (const Json& o : b.objects) {
    std::string kind = engine::GetString(o, {"kind"});
    if (kind == "ClusterServiceVersion") continue;
    steps.push_back(Step(b, csv_name, kind == "Secret" ? "BundleSecret" : kind, o));
  }
  RbacSteps(b, csv_name, ns, &steps);
  return steps;
}

std::vector<Json> OrderSteps(std::vector<Json> steps) {
  auto rank = [](const Json& s) {
    std::string kind = engine::GetString(s, {"resource", "kind"});
    return kind == "ClusterServiceVersion" ? 0 : kind == "CustomResourceDefinition" ? 1 : 2;
  };
  std::stable_sort(steps.begin(), steps.end(),
                   [&](const Json& a, const Json& b) { return rank(a) < rank(b); });
  return steps;
}

}  // namespace recon::olm
