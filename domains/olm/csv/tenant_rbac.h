// The RBAC the olm operator spreads from a CSV's namespace to the
// namespaces its OperatorGroup targets (reference olm-operator.md §B.1.5,
// upstream's ensureRBACInTargetNamespace, ensureSingletonRBAC and
// ensureTenantRBAC at v0.24.0), as pure functions:
//   - AllNamespaces lifting: while the CSV's permissions, taken as cluster
//     permissions, are not granted, each Role and RoleBinding of the
//     operator namespace carrying the CSV's owner labels gets a
//     ClusterRole (its rules plus get/list/watch of namespaces) or a
//     ClusterRoleBinding of the same name, created when absent;
//   - tenant RBAC: for a target namespace T where the CSV's permissions
//     are not granted, each Role and RoleBinding it owns (labels and owner
//     reference) copied into T, owned by the CSV's copy there; an existing
//     Role in T gets the rules, an existing RoleBinding is left alone.
#ifndef RECON_DOMAINS_OLM_CSV_TENANT_RBAC_H_
#define RECON_DOMAINS_OLM_CSV_TENANT_RBAC_H_

#include <string_view>
#include <vector>

#include "domains/olm/csv/requirements.h"
#include "engine/json.h"

namespace recon::olm {

// Upstream's permissionStatus: every service account of the strategy's
// `permissions` present in the CSV's namespace, not owned by another CSV,
// and each of its rules granted in `target_ns`; every `clusterPermissions`
// entry so, cluster-wide. `lift`: the `permissions` are checked as
// cluster permissions too (the AllNamespaces check).
bool PermissionsMet(const engine::Json& csv, std::string_view target_ns, bool lift,
                    const RequirementView& view);

// (The CSV's three olm.owner* labels: HasCsvOwnerLabels, csv/deployments.h.)
// Whether one of `object`'s owner references is the CSV (by uid).
bool OwnedByCsv(const engine::Json& object, const engine::Json& csv);

// The ClusterRole lifted from an owned Role, the ClusterRoleBinding from
// an owned RoleBinding (same name and labels).
engine::Json LiftedClusterRole(const engine::Json& role);
engine::Json LiftedClusterRoleBinding(const engine::Json& binding);

// The copy of an owned Role or RoleBinding into the namespace of `copy`
// (the CSV's copy there): owned by it (non-blocking), its owner labels,
// and olm.copiedFrom = the operator namespace.
engine::Json TenantCopy(const engine::Json& object, const engine::Json& copy, std::string_view operator_ns);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CSV_TENANT_RBAC_H_
