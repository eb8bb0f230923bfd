// The resource types the olm reducer reads and writes, with the verbs it
// really uses: it creates InstallPlans (and deletes the oldest, the GC of
// §10.1), writes the status of Subscriptions and InstallPlans, and keeps
// OperatorGroups' status and olm.providedAPIs annotation (the olm-operator
// half); everything else is only watched. With executePlans it also
// creates what plans install (CSVs, CRDs, RBAC, ServiceAccounts, Services,
// ConfigMaps, dependency Subscriptions) and updates what upstream's steps
// update, watching those kinds to see them land.
#include "domains/olm/reducer.h"

namespace recon::olm {

namespace {
// Watched and written both when recon carries plans out and, for the
// component labels and requirement checks, when it only moves CSVs.
const engine::ResourceType kCrdType{
    "apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", false, true,
    {"crd", "crds"}};
const engine::ResourceType kServiceAccountType{"",    "v1",  "ServiceAccount", "serviceaccounts", true,
                                               false, {"sa"}};

// csvLifecycle: what the olm operator writes beside CSVs.
void OlmOperatorResources(const std::string& group, std::vector<engine::ResourceUse>& out) {
  using engine::ResourceType;
  out.push_back({ResourceType{"apps", "v1", "Deployment", "deployments", true, true, {"deploy"}},
                 {"get", "list", "watch", "create", "update", "delete"},
                 {},
                 {}});
  // Each CSV's OperatorCondition (§B.6), and its status from its spec.
  out.push_back(
      {ResourceType{group, "v2", "OperatorCondition", "operatorconditions", true, true, {"condition"}},
       {"get", "list", "watch", "create", "update"},
       {"update"},
       {}});
  // Whether copies are disabled (§B.5.3), and its condition saying so.
  out.push_back({ResourceType{group, "v1", "OLMConfig", "olmconfigs", false, true, {}},
                 {"get", "list", "watch"},
                 {"update"},
                 {}});
  // Where the copies of a CSV whose group targets every namespace go.
  // (update: the groups' labels on them, §B.1.6)
  out.push_back({ResourceType{"", "v1", "Namespace", "namespaces", false, true, {"ns"}},
                 {"get", "list", "watch", "update"},
                 {},
                 {}});
}

}  // namespace

std::vector<engine::ResourceUse> OlmReducer::Resources() const {
  using engine::ResourceType;
  const std::string group(kGroup);
  const std::vector<std::string> watch = {"get", "list", "watch"};
  const std::vector<std::string> install = {"get", "list", "watch", "create", "update"};
  const bool x = execute_plans_;
  const bool lifecycle = csv_lifecycle_;
  std::vector<engine::ResourceUse> out = {
      // csvLifecycle: update, the Operator API's label (adoption.cc), as on
      // the plans and the operators' parts below.
      {ResourceType{group, "v1alpha1", "Subscription", "subscriptions", true, true, {"sub", "subs"}},
       [&] {
         std::vector<std::string> v = watch;
         if (x) v.push_back("create");
         if (lifecycle) v.push_back("update");
         return v;
       }(),
       {"update"},
       {}},
      {ResourceType{group, "v1alpha1", "CatalogSource", "catalogsources", true, true, {"catsrc"}},
       watch,
       {},
       {}},
      {ResourceType{group, "v1alpha1", "InstallPlan", "installplans", true, true, {"ip"}},
       lifecycle ? std::vector<std::string>{"get", "list", "watch", "create", "update", "delete"}
                 : std::vector<std::string>{"get", "list", "watch", "create", "delete"},
       {"update"},
       {}},
      {ResourceType{
           group, "v1alpha1", "ClusterServiceVersion", "clusterserviceversions", true, true, {"csv", "csvs"}},
       // update: the OperatorGroup's annotations (olm.operatorGroup, ...);
       // csvLifecycle: the status, delete (a replaced CSV) and copies
       // (create, delete).
       [&] {
         std::vector<std::string> v = {"get", "list", "watch"};
         if (x || lifecycle) v.push_back("create");
         v.push_back("update");
         if (lifecycle) v.push_back("delete");
         return v;
       }(),
       lifecycle ? std::vector<std::string>{"update"} : std::vector<std::string>{},
       {}},
      {ResourceType{group, "v1", "OperatorGroup", "operatorgroups", true, true, {"og"}},
       {"get", "list", "watch", "update"},
       {"update"},
       {}},
  };
  // csvLifecycle: the operators' Deployments from their install strategies, and more.
  if (lifecycle) OlmOperatorResources(group, out);
  const std::string rbac = "rbac.authorization.k8s.io";
  if (!x) {
    // What a CSV's requirements are checked against, watched and updated
    // only for the Operator API's label on an operator's parts; each
    // OperatorCondition's Role and RoleBinding created (they grant only
    // what recon holds: update of that OperatorCondition).
    if (!lifecycle) return out;
    const std::vector<std::string> labelled = {"get", "list", "watch", "update"};
    for (ResourceType t : {kCrdType, kServiceAccountType}) out.push_back({std::move(t), labelled, {}, {}});
    // An all-namespaces operator's RoleBindings lifted (tenant_rbac.cc),
    // and gone with its CSV.
    out.push_back({ResourceType{rbac, "v1", "ClusterRoleBinding", "clusterrolebindings", false, false, {}},
                   {"get", "list", "watch", "create", "update", "delete"},
                   {},
                   {}});
    // The generated ClusterRoles grant an operator's APIs, which recon does
    // not hold: escalate (and aggregation rules need it too).
    out.push_back({ResourceType{rbac, "v1", "ClusterRole", "clusterroles", false, false, {}},
                   {"get", "list", "watch", "create", "update", "delete", "escalate", "bind"},
                   {},
                   {}});
    for (ResourceType t : {ResourceType{rbac, "v1", "Role", "roles", true, false, {}},
                           ResourceType{rbac, "v1", "RoleBinding", "rolebindings", true, false, {}}})
      out.push_back({std::move(t), install, {}, {}});
    return out;
  }
  for (ResourceType t :
       {kCrdType, kServiceAccountType, ResourceType{"", "v1", "Service", "services", true, true, {"svc"}},
        ResourceType{"", "v1", "ConfigMap", "configmaps", true, false, {"cm"}},
        ResourceType{rbac, "v1", "RoleBinding", "rolebindings", true, false, {}}})
    out.push_back({std::move(t), install, {}, {}});
  // csvLifecycle: a deleted CSV's ClusterRoleBindings go with it (§B.7).
  std::vector<std::string> bindings = install;
  if (lifecycle) bindings.push_back("delete");
  out.push_back({ResourceType{rbac, "v1", "ClusterRoleBinding", "clusterrolebindings", false, false, {}},
                 bindings,
                 {},
                 {}});
  // A CSV's permissions are the operator's, not recon's: the API server lets
  // a role grant them, and a binding name it, only with `escalate` and `bind`
  // on roles (Kubernetes' RBAC escalation rules; OLM runs as cluster-admin).
  std::vector<std::string> roles = install;
  roles.insert(roles.end(), {"escalate", "bind"});
  out.push_back({ResourceType{rbac, "v1", "Role", "roles", true, false, {}}, roles, {}, {}});
  // csvLifecycle: a deleted OperatorGroup's ClusterRoles go with it.
  if (lifecycle) roles.push_back("delete");
  out.push_back({ResourceType{rbac, "v1", "ClusterRole", "clusterroles", false, false, {}}, roles, {}, {}});
  // Bundle images unpacked by a Job in the catalog's namespace.
  out.push_back({ResourceType{"batch", "v1", "Job", "jobs", true, true, {}}, {"get", "list", "watch", "create"}, {}, {}});
  return out;
}

}  // namespace recon::olm
