// OperatorConditions (reference olm-operator.md §B.6; upstream's
// OperatorCondition generator and reconciler and olm/operatorconditions.go
// at v0.24.0): every operator's CSV gets an OperatorCondition
// (operators.coreos.com/v2) of its name through which the operator, or an
// administrator's override, reports whether it may be upgraded; a Role and
// RoleBinding let the operator's service accounts write it, and the olm
// operator holds the next CSV Pending while the one it replaces is not
// upgradeable. Pure functions of the objects; the reducer
// (domains/olm/operator_conditions.cc) carries them out.
#ifndef RECON_DOMAINS_OLM_CSV_OPERATOR_CONDITIONS_H_
#define RECON_DOMAINS_OLM_CSV_OPERATOR_CONDITIONS_H_

#include <optional>
#include <string>
#include <string_view>

#include "engine/json.h"

namespace recon::olm {

inline constexpr std::string_view kOperatorCondition = "OperatorCondition";
inline constexpr std::string_view kOperatorConditionApiVersion = "operators.coreos.com/v2";

// The OperatorCondition the generator keeps for a non-copied CSV: its name
// and namespace, the CSV as controller owner (blockOwnerDeletion false),
// spec.serviceAccounts (the clusterPermissions' then the permissions'
// service accounts, in order, duplicates kept; ["default"] when none) and
// spec.deployments (the install strategy's, in order).
engine::Json OperatorConditionFor(const engine::Json& csv);

// The generator's update of an existing one: only its owner references,
// spec.deployments and spec.serviceAccounts are made `want`'s (conditions
// and overrides are never touched); nullopt when they already agree.
std::optional<engine::Json> OperatorConditionUpdate(const engine::Json& live, const engine::Json& want);

// The reconciler's Role and RoleBinding of an OperatorCondition: the Role
// lets get/update/patch it (by name), the RoleBinding grants the Role to
// spec.serviceAccounts; both controlled by it.
engine::Json OperatorConditionRole(const engine::Json& oc);
engine::Json OperatorConditionRoleBinding(const engine::Json& oc);

// The update of an existing Role or RoleBinding: nullopt when it is owned
// by the OperatorCondition (its uid) and its rules (a binding: roleRef and
// subjects) are `want`'s; else the live object with `want`'s owner
// references and rules (roleRef, subjects).
std::optional<engine::Json> RbacUpdate(const engine::Json& live, const engine::Json& want,
                                       std::string_view owner_uid);

// A Deployment the OperatorCondition names whose containers lack
// OPERATOR_CONDITION_NAME=<name> (or hold another value): the Deployment
// with it set in each; nullopt when every container has it.
std::optional<engine::Json> WithOperatorConditionName(const engine::Json& deployment, std::string_view name);

// The status the reconciler writes: each spec.conditions entry whose type
// the status lacks, or holds with another status or an observedGeneration
// other than metadata.generation, set as Kubernetes' SetStatusCondition
// does (observedGeneration = generation; lastTransitionTime kept unless
// the status changed, then the entry's, or `now` if it has none); nullopt
// when nothing changes. `now`: RFC 3339.
std::optional<engine::Json> OperatorConditionStatus(const engine::Json& oc, std::string_view now);

// The upgrade gate of the CSV the OperatorCondition is named after (null:
// none exists, upgradeable): nullopt when upgradeable, else upstream's
// error, which the next CSV's Pending message quotes. An override of type
// Upgradeable decides alone; else the status condition, outdated when its
// observedGeneration is not the generation.
std::optional<std::string> NotUpgradeable(const engine::Json* oc);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CSV_OPERATOR_CONDITIONS_H_
