// Least-privilege RBAC derived from the domains' declared resource uses.
#ifndef RECON_CLI_RBAC_H_
#define RECON_CLI_RBAC_H_

#include <string>
#include <vector>

#include "engine/resource.h"

namespace recon::cli {

struct RbacRule {
  std::string api_group;  // "" for core
  std::string resource;   // "configs", "configs/status", "imagestreamimports"
  std::vector<std::string> verbs;
};

struct RbacOptions {
  std::string name = "recon";
  std::string namespace_ = "recon";
  // A shadow agent's role (`recon agent --shadow`): it only reads. No write
  // verb, no status or create subresource, no Lease (it takes none), so no
  // Role and RoleBinding at all.
  bool shadow = false;
};

// One rule per resource (and per status subresource), ordered by (group,
// resource): what the ClusterRole grants. `read_only`: only the get, list
// and watch the domains declare, on the resources themselves.
std::vector<RbacRule> ClusterRules(const std::vector<engine::ResourceUse>& uses, bool read_only = false);
// What the agent itself needs in its namespace: its leader-election Lease.
std::vector<RbacRule> NamespaceRules();

// ClusterRole + ClusterRoleBinding + Role + RoleBinding as YAML documents.
std::string RenderRbac(const std::vector<engine::ResourceUse>& uses, const RbacOptions& options);

}  // namespace recon::cli

#endif  // RECON_CLI_RBAC_H_
