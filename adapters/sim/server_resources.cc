#include "adapters/sim/server_resources.h"

#include <algorithm>
#include <cctype>

namespace recon::sim {
namespace {

// The built-in table. ImageStreamImport is create-only (how a client asks
// for an import); CRDs are listed, not written.
const std::vector<engine::ResourceType>& Rows() {
  // group, version, kind, plural, namespaced, status subresource, short names
  static const std::vector<engine::ResourceType> rows = {
      {"", "v1", "Namespace", "namespaces", false, true, {"ns"}},
      {"", "v1", "ConfigMap", "configmaps", true, false, {"cm"}},
      {"", "v1", "Secret", "secrets", true, false, {}},
      {"", "v1", "ServiceAccount", "serviceaccounts", true, false, {"sa"}},
      {"", "v1", "Service", "services", true, true, {"svc"}},
      {"", "v1", "Pod", "pods", true, true, {"po"}},
      {"", "v1", "Event", "events", true, false, {"ev"}},
      {"", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", true, true, {"pvc"}},
      {"apps", "v1", "Deployment", "deployments", true, true, {"deploy"}},
      {"batch", "v1", "Job", "jobs", true, true, {}},
      {"coordination.k8s.io", "v1", "Lease", "leases", true, false, {}},
      // What deploy/ creates besides core objects (kubectl apply maps kinds
      // through discovery, even in client dry-run).
      {"rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", false, false, {}},
      {"rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", false, false, {}},
      {"rbac.authorization.k8s.io", "v1", "Role", "roles", true, false, {}},
      {"rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", true, false, {}},
      {"monitoring.coreos.com", "v1", "ServiceMonitor", "servicemonitors", true, false, {}},
      {"apiextensions.k8s.io",
       "v1",
       "CustomResourceDefinition",
       "customresourcedefinitions",
       false,
       true,
       {"crd", "crds"}},
      {"config.openshift.io", "v1", "ClusterOperator", "clusteroperators", false, true, {"co"}},
      {"config.openshift.io", "v1", "Image", "images", false, true, {}},
      {"config.openshift.io", "v1", "ClusterVersion", "clusterversions", false, true, {}},
      {"samples.operator.openshift.io", "v1", "Config", "configs", false, true, {}},
      {"image.openshift.io", "v1", "ImageStream", "imagestreams", true, true, {"is"}},
      {"image.openshift.io", "v1", "ImageStreamImport", "imagestreamimports", true, false, {}},
      {"template.openshift.io", "v1", "Template", "templates", true, false, {}},
      {"operators.coreos.com", "v1alpha1", "Subscription", "subscriptions", true, true, {"sub", "subs"}},
      {"operators.coreos.com", "v1alpha1", "CatalogSource", "catalogsources", true, true, {"catsrc"}},
      {"operators.coreos.com", "v1alpha1", "InstallPlan", "installplans", true, true, {"ip"}},
      {"operators.coreos.com",
       "v1alpha1",
       "ClusterServiceVersion",
       "clusterserviceversions",
       true,
       true,
       {"csv", "csvs"}},
      {"operators.coreos.com", "v1", "OperatorGroup", "operatorgroups", true, true, {"og"}},
      {"aro.openshift.io", "v1alpha1", "Cluster", "clusters", false, true, {}},
      {"network.azure.com", "v1", "Subnet", "subnets", false, false, {}},
      {"network.azure.com", "v1", "NetworkSecurityGroup", "networksecuritygroups", false, false, {}},
      {"tools.opdev.io",
       "v1alpha1",
       "DisconnectedFriendlyApp",
       "disconnectedfriendlyapps",
       true,
       true,
       {"dfa"}},
  };
  return rows;
}

std::vector<std::string> VerbsOf(const engine::ResourceType& t) {
  if (t.kind == "ImageStreamImport") return {"create"};
  return {"create", "delete", "get", "list", "patch", "update", "watch"};
}

// Groups served by kube-apiserver's (or openshift-apiserver's) own code;
// every other built-in row stands in for a CRD.
bool BuiltinGroup(std::string_view g) {
  return g.empty() || g == "apps" || g == "batch" || g == "policy" || g == "autoscaling" ||
         g == "image.openshift.io" || g == "template.openshift.io" ||
         (g.size() > 7 && g.substr(g.size() - 7) == ".k8s.io");
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

std::vector<engine::ResourceType> BuiltinResources() { return Rows(); }

ResourceTable::ResourceTable(const std::vector<engine::ResourceType>& extra) {
  auto add = [this](const engine::ResourceType& t) {
    if (Find(t.group, t.version, t.plural) != nullptr) return;
    resources_.push_back(ServedResource{t, VerbsOf(t), Lower(t.kind), engine::Json(), BuiltinGroup(t.group)});
  };
  for (const auto& t : BuiltinResources()) add(t);
  for (const auto& t : extra) add(t);
}

void ResourceTable::AddCrd(const engine::ResourceType& type, const engine::Json& printer_columns) {
  for (auto& r : resources_) {
    if (r.type.group == type.group && r.type.version == type.version && r.type.plural == type.plural) {
      r.type.namespaced = type.namespaced;
      r.type.status_subresource = type.status_subresource;
      if (!type.short_names.empty()) r.type.short_names = type.short_names;
      r.printer_columns = printer_columns;
      r.builtin = false;
      return;
    }
  }
  resources_.push_back(ServedResource{type, VerbsOf(type), Lower(type.kind), printer_columns});
}

const ServedResource* ResourceTable::Find(std::string_view group, std::string_view version,
                                          std::string_view plural) const {
  for (const auto& r : resources_) {
    if (r.type.group == group && r.type.version == version && r.type.plural == plural) return &r;
  }
  return nullptr;
}

const ServedResource* ResourceTable::FindKind(std::string_view group, std::string_view kind) const {
  for (const auto& r : resources_) {
    if (r.type.group == group && r.type.kind == kind) return &r;
  }
  return nullptr;
}

std::vector<std::string> ResourceTable::Groups() const { return Distinct(nullptr); }

std::vector<std::string> ResourceTable::Versions(std::string_view group) const { return Distinct(&group); }

std::vector<std::string> ResourceTable::Distinct(const std::string_view* group) const {
  std::vector<std::string> out;
  for (const auto& r : resources_) {
    if (group != nullptr && r.type.group != *group) continue;
    const std::string& v = group == nullptr ? r.type.group : r.type.version;
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

}  // namespace recon::sim
