// The ClusterRoles the olm operator generates for provided APIs (reference
// olm-operator.md §B.1.5; upstream's ensureOpGroupClusterRoles and
// ensureClusterRolesForCSV at v0.24.0): per owned CRD an admin, edit, view
// and crdview role that Kubernetes aggregates into its own admin/edit/view
// roles, and per OperatorGroup an admin, edit and view role aggregating the
// per-API roles of the APIs its operators provide, so that a tenant bound
// to `<group>-edit` may edit exactly those APIs.
#ifndef RECON_DOMAINS_OLM_CSV_CLUSTER_ROLES_H_
#define RECON_DOMAINS_OLM_CSV_CLUSTER_ROLES_H_

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/json.h"

namespace recon::olm {

// The APIs ("Kind.version.group") a CSV provides: its owned CRDs (the
// group from the descriptor's name after the first dot; names without a
// dot or descriptors without a kind skipped) and owned APIServices.
std::set<std::string> CsvProvidedApis(const engine::Json& csv);
// The APIs of an OperatorGroup's olm.providedAPIs annotation.
std::set<std::string> GroupProvidedApis(const engine::Json& og);

// fnv64a of "Kind.version.group", in lower-case hex (APIKeyToGVKHash): the
// key of the aggregation labels.
std::string ApiHash(std::string_view kind_version_group);

// The group's `<og>-admin`, `-edit` and `-view` ClusterRoles: the group's
// olm.owner labels, no rules, and one aggregation selector per API
// ("Kind.version.group") in `apis` (sorted: upstream walks a Go map), none
// when there is no API.
std::vector<engine::Json> GroupClusterRoles(const engine::Json& og, const std::set<std::string>& apis);

// The names of CrdClusterRoles' roles, in its order (none when the
// descriptor's name has no dot).
std::vector<std::string> CrdClusterRoleNames(const engine::Json& descriptor);

// The per-API ClusterRoles of one owned CRD descriptor of a CSV, given the
// CRD (its uid owns them): `<crd>-<version>-admin`, `-edit`, `-view` and
// `-crdview`, each labelled to aggregate into Kubernetes' role of its
// suffix and into the groups' roles of the API. nullopt when the
// descriptor's name has no dot.
std::optional<std::vector<engine::Json>> CrdClusterRoles(const engine::Json& descriptor,
                                                         const engine::Json& crd);

// An existing ClusterRole made `want`: its labels, rules (when `want` has
// them) and aggregation rule, and, for the per-API roles, owner
// references; nullopt when they already agree.
std::optional<engine::Json> ClusterRoleUpdate(const engine::Json& live, const engine::Json& want);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CSV_CLUSTER_ROLES_H_
