// A CSV's requirement check and its status.requirementStatus (reference
// olm-operator.md §B.2.4; upstream's requirementAndPermissionStatus at
// v0.24.0): its CRDs present and Established, its service accounts present
// and owned by it, and every permission rule it asks for granted to them by
// Kubernetes RBAC. Not checked yet: spec.minKubeVersion, APIServices and
// nativeAPIs (a CSV naming them is reported and not judged).
#ifndef RECON_DOMAINS_OLM_CSV_REQUIREMENTS_H_
#define RECON_DOMAINS_OLM_CSV_REQUIREMENTS_H_

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/json.h"

namespace recon::olm {

// The objects the check reads, as the caller's view of the cluster.
struct RequirementView {
  // A CustomResourceDefinition by name; null when there is none.
  std::function<const engine::Json*(std::string_view name)> crd;
  // A ServiceAccount of the CSV's namespace; null when there is none.
  std::function<const engine::Json*(std::string_view name)> service_account;
  // RBAC: the RoleBindings of a namespace, every ClusterRoleBinding, a
  // Role, a ClusterRole (null when absent).
  std::function<std::vector<const engine::Json*>(std::string_view ns)> role_bindings;
  std::function<std::vector<const engine::Json*>()> cluster_role_bindings;
  std::function<const engine::Json*(std::string_view ns, std::string_view name)> role;
  std::function<const engine::Json*(std::string_view name)> cluster_role;
  // The CSVs this one replaces, directly or through them (their names).
  std::set<std::string, std::less<>> replaced_chain;
};

struct RequirementResult {
  engine::Json statuses = engine::Json::array();  // status.requirementStatus
  bool met = true;
  // A rule that cannot be checked (no verbs; resources and
  // nonResourceURLs both): upstream's `rule invalid: …`, which fails the
  // CSV with InvalidInstallStrategy.
  std::optional<std::string> invalid;
  // What was not judged (minKubeVersion, APIServices, nativeAPIs), for explain.
  std::vector<std::string> unchecked;
  // What the CSV asks for that recon does not install (not built): "webhooks".
  std::vector<std::string> not_built;
};

RequirementResult CheckRequirements(const engine::Json& csv, const RequirementView& view);

// Kubernetes RBAC for user system:serviceaccount:<ns>:<sa> with no
// groups: whether `rule` (a PolicyRule) is granted whole, every
// combination of its verbs, groups, resources, names and URLs. `ns` ""
// is a cluster-wide check (ClusterRoleBindings only).
bool RuleSatisfied(const engine::Json& rule, std::string_view sa_namespace, std::string_view sa,
                   std::string_view ns, const RequirementView& view);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CSV_REQUIREMENTS_H_
