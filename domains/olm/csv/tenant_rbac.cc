#include "domains/olm/csv/tenant_rbac.h"

#include <string>

#include "domains/olm/csv/deployments.h"

namespace recon::olm {
namespace {

using engine::Json;

constexpr char kCsvKind[] = "ClusterServiceVersion";

// One list of the strategy's permissions: each service account present,
// not another CSV's, and its rules granted in `ns` ("" cluster-wide).
bool Met(const Json& perms, const Json& csv, std::string_view ns, const RequirementView& view) {
  const std::string csv_ns = engine::GetString(csv, {"metadata", "namespace"});
  for (const Json& p : perms.is_array() ? perms : Json::array()) {
    const std::string sa_name = engine::GetString(p, {"serviceAccountName"});
    const Json* sa = view.service_account(sa_name);
    if (sa == nullptr) return false;
    bool other_csv = false, this_csv = false;
    for (const Json& r : engine::Path(*sa, {"metadata", "ownerReferences"})) {
      if (engine::GetString(r, {"kind"}) != kCsvKind) continue;
      other_csv = true;
      this_csv |= engine::GetString(r, {"uid"}) == engine::GetString(csv, {"metadata", "uid"});
    }
    if (other_csv && !this_csv) return false;
    for (const Json& rule : engine::Path(p, {"rules"}))
      if (!RuleSatisfied(rule, csv_ns, sa_name, ns, view)) return false;
  }
  return true;
}

}  // namespace

bool PermissionsMet(const Json& csv, std::string_view target_ns, bool lift, const RequirementView& view) {
  const Json& spec = engine::Path(csv, {"spec", "install", "spec"});
  const Json& perms = engine::Path(spec, {"permissions"});
  return Met(perms, csv, lift ? "" : target_ns, view) &&
         Met(engine::Path(spec, {"clusterPermissions"}), csv, "", view);
}

bool OwnedByCsv(const Json& object, const Json& csv) {
  const std::string uid = engine::GetString(csv, {"metadata", "uid"});
  if (uid.empty()) return false;
  for (const Json& r : engine::Path(object, {"metadata", "ownerReferences"}))
    if (engine::GetString(r, {"uid"}) == uid) return true;
  return false;
}

Json LiftedClusterRole(const Json& role) {
  Json rules = engine::Path(role, {"rules"}).is_array() ? role["rules"] : Json::array();
  rules.push_back(Json{{"verbs", Json::array({"get", "list", "watch"})},
                       {"apiGroups", Json::array({""})},
                       {"resources", Json::array({"namespaces"})}});
  Json meta = {{"name", engine::GetString(role, {"metadata", "name"})}};
  if (const Json& labels = engine::Path(role, {"metadata", "labels"}); labels.is_object())
    meta["labels"] = labels;
  return Json{{"apiVersion", "rbac.authorization.k8s.io/v1"},
              {"kind", "ClusterRole"},
              {"metadata", std::move(meta)},
              {"rules", std::move(rules)}};
}

Json LiftedClusterRoleBinding(const Json& binding) {
  Json meta = {{"name", engine::GetString(binding, {"metadata", "name"})}};
  if (const Json& labels = engine::Path(binding, {"metadata", "labels"}); labels.is_object())
    meta["labels"] = labels;
  return Json{
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "ClusterRoleBinding"},
      {"metadata", std::move(meta)},
      {"subjects", engine::Path(binding, {"subjects"}).is_array() ? binding["subjects"] : Json::array()},
      {"roleRef",
       {{"apiGroup", "rbac.authorization.k8s.io"},
        {"kind", "ClusterRole"},
        {"name", engine::GetString(binding, {"roleRef", "name"})}}}};
}

Json TenantCopy(const Json& object, const Json& copy, std::string_view operator_ns) {
  const Json& meta = engine::Path(object, {"metadata"});
  const std::string ns = engine::GetString(copy, {"metadata", "namespace"});
  Json labels = engine::Path(meta, {"labels"}).is_object() ? meta["labels"] : Json::object();
  labels["olm.owner"] = engine::GetString(copy, {"metadata", "name"});
  labels["olm.owner.namespace"] = ns;
  labels["olm.owner.kind"] = kCsvKind;
  labels["olm.copiedFrom"] = std::string(operator_ns);
  Json out_meta = {
      {"name", engine::GetString(meta, {"name"})},
      {"namespace", ns},
      {"labels", std::move(labels)},
      {"ownerReferences", Json::array({Json{{"apiVersion", engine::GetString(copy, {"apiVersion"})},
                                            {"kind", kCsvKind},
                                            {"name", engine::GetString(copy, {"metadata", "name"})},
                                            {"uid", engine::GetString(copy, {"metadata", "uid"})},
                                            {"controller", false},
                                            {"blockOwnerDeletion", false}}})}};
  if (const Json& a = engine::Path(meta, {"annotations"}); a.is_object() && !a.empty())
    out_meta["annotations"] = a;
  Json out = {{"apiVersion", engine::GetString(object, {"apiVersion"})},
              {"kind", engine::GetString(object, {"kind"})},
              {"metadata", std::move(out_meta)}};
  for (const char* f : {"rules", "subjects", "roleRef"})
    if (object.contains(f)) out[f] = object[f];
  return out;
}

}  // namespace recon::olm
