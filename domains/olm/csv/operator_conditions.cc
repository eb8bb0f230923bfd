#include "domains/olm/csv/operator_conditions.h"

#include <utility>

#include "base/strings.h"
#include "domains/olm/csv/deployments.h"
#include "domains/olm/install/bundle_steps.h"

namespace recon::olm {
namespace {

using engine::Json;

constexpr std::string_view kRbacGroup = "rbac.authorization.k8s.io";

const Json& ArrayAt(const Json& j, std::initializer_list<std::string_view> keys) {
  static const Json kEmpty = Json::array();
  const Json& v = engine::Path(j, keys);
  return v.is_array() ? v : kEmpty;
}

// Go's DeepEqual of two decoded values, whichever writer ordered the keys;
// a missing list equals an empty one (both are omitted when written).
bool Same(const Json& a, const Json& b) {
  static const Json kNone;
  auto norm = [](const Json& j) -> const Json& { return j.is_array() && j.empty() ? kNone : j; };
  return CanonicalEqual(norm(a), norm(b));
}

int64_t Generation(const Json& o) {
  const Json& g = engine::Path(o, {"metadata", "generation"});
  return g.is_number_integer() ? g.get<int64_t>() : 0;
}

int64_t ObservedGeneration(const Json& condition) {
  const Json& g = engine::Path(condition, {"observedGeneration"});
  return g.is_number_integer() ? g.get<int64_t>() : 0;
}

// ownerutil.AddOwner(object, owner, blockOwnerDeletion=false, isController=true).
Json ControllerRef(std::string_view api_version, std::string_view kind, const Json& owner) {
  return Json{{"apiVersion", api_version},
              {"kind", kind},
              {"name", engine::GetString(owner, {"metadata", "name"})},
              {"uid", engine::GetString(owner, {"metadata", "uid"})},
              {"controller", true},
              {"blockOwnerDeletion", false}};
}

Json NamedIn(std::string_view api_version, std::string_view kind, const Json& like) {
  return Json{{"apiVersion", api_version},
              {"kind", kind},
              {"metadata",
               {{"name", engine::GetString(like, {"metadata", "name"})},
                {"namespace", engine::GetString(like, {"metadata", "namespace"})}}}};
}

}  // namespace

Json OperatorConditionFor(const Json& csv) {
  Json oc = NamedIn(kOperatorConditionApiVersion, kOperatorCondition, csv);
  oc["metadata"]["ownerReferences"] =
      Json::array({ControllerRef(kCsvApiVersion, "ClusterServiceVersion", csv)});
  Json accounts = Json::array();
  for (const char* list : {"clusterPermissions", "permissions"})
    for (const Json& p : ArrayAt(csv, {"spec", "install", "spec", list}))
      accounts.push_back(engine::GetString(p, {"serviceAccountName"}));
  if (accounts.empty()) accounts.push_back("default");
  Json deployments = Json::array();
  for (const Json& d : ArrayAt(csv, {"spec", "install", "spec", "deployments"}))
    deployments.push_back(engine::GetString(d, {"name"}));
  Json spec = Json{{"serviceAccounts", std::move(accounts)}};
  if (!deployments.empty()) spec["deployments"] = std::move(deployments);
  oc["spec"] = std::move(spec);
  return oc;
}

std::optional<Json> OperatorConditionUpdate(const Json& live, const Json& want) {
  const Json& owners = engine::Path(want, {"metadata", "ownerReferences"});
  const Json& deployments = engine::Path(want, {"spec", "deployments"});
  const Json& accounts = engine::Path(want, {"spec", "serviceAccounts"});
  if (Same(engine::Path(live, {"metadata", "ownerReferences"}), owners) &&
      Same(engine::Path(live, {"spec", "deployments"}), deployments) &&
      Same(engine::Path(live, {"spec", "serviceAccounts"}), accounts))
    return std::nullopt;
  Json next = live;
  next.erase("status");
  next["metadata"]["ownerReferences"] = owners;
  Json& spec = next["spec"];
  if (!spec.is_object()) spec = Json::object();
  spec.erase("deployments");
  if (deployments.is_array() && !deployments.empty()) spec["deployments"] = deployments;
  spec["serviceAccounts"] = accounts;
  return next;
}

Json OperatorConditionRole(const Json& oc) {
  Json role = NamedIn(StrCat(kRbacGroup, "/v1"), "Role", oc);
  role["metadata"]["ownerReferences"] =
      Json::array({ControllerRef(kOperatorConditionApiVersion, kOperatorCondition, oc)});
  role["rules"] =
      Json::array({Json{{"verbs", Json::array({"get", "update", "patch"})},
                        {"apiGroups", Json::array({"operators.coreos.com"})},
                        {"resources", Json::array({"operatorconditions"})},
                        {"resourceNames", Json::array({engine::GetString(oc, {"metadata", "name"})})}}});
  return role;
}

Json OperatorConditionRoleBinding(const Json& oc) {
  Json binding = NamedIn(StrCat(kRbacGroup, "/v1"), "RoleBinding", oc);
  binding["metadata"]["ownerReferences"] =
      Json::array({ControllerRef(kOperatorConditionApiVersion, kOperatorCondition, oc)});
  Json subjects = Json::array();
  for (const Json& sa : ArrayAt(oc, {"spec", "serviceAccounts"}))
    subjects.push_back(Json{{"kind", "ServiceAccount"}, {"name", sa.is_string() ? sa : Json("")}});
  binding["subjects"] = std::move(subjects);
  binding["roleRef"] =
      Json{{"apiGroup", kRbacGroup}, {"kind", "Role"}, {"name", engine::GetString(oc, {"metadata", "name"})}};
  return binding;
}

std::optional<Json> RbacUpdate(const Json& live, const Json& want, std::string_view owner_uid) {
  bool owned = false;
  for (const Json& ref : ArrayAt(live, {"metadata", "ownerReferences"}))
    owned |= !owner_uid.empty() && engine::GetString(ref, {"uid"}) == owner_uid;
  const bool binding = want.contains("roleRef");
  const bool same = binding ? Same(engine::Path(live, {"roleRef"}), want["roleRef"]) &&
                                  Same(engine::Path(live, {"subjects"}), want["subjects"])
                            : Same(engine::Path(live, {"rules"}), want["rules"]);
  if (owned && same) return std::nullopt;
  Json next = live;
  next["metadata"]["ownerReferences"] = want["metadata"]["ownerReferences"];
  for (const char* field : {"rules", "subjects", "roleRef"})
    if (want.contains(field)) next[field] = want[field];
  return next;
}

std::optional<Json> WithOperatorConditionName(const Json& deployment, std::string_view name) {
  Json next = deployment;
  Json& containers = next["spec"]["template"]["spec"]["containers"];
  if (!containers.is_array()) return std::nullopt;
  bool changed = false;
  for (Json& c : containers) {
    if (!c.is_object()) continue;
    Json& env = c["env"];
    if (!env.is_array()) env = Json::array();
    bool found = false;
    for (Json& e : env) {
      if (engine::GetString(e, {"name"}) != "OPERATOR_CONDITION_NAME") continue;
      // upstream's ensureEnvVarIsPresent: the first of that name is fixed.
      if (engine::GetString(e, {"value"}) != name) {
        e["value"] = name;
        changed = true;
      }
      found = true;
      break;
    }
    if (!found) {
      env.push_back(Json{{"name", "OPERATOR_CONDITION_NAME"}, {"value", name}});
      changed = true;
    }
  }
  if (!changed) return std::nullopt;
  return next;
}

std::optional<Json> OperatorConditionStatus(const Json& oc, std::string_view now) {
  const int64_t generation = Generation(oc);
  const Json& seen = engine::Path(oc, {"status"});
  Json status = seen.is_object() ? seen : Json::object();
  if (!status["conditions"].is_array()) status["conditions"] = Json::array();
  Json& conditions = status["conditions"];
  bool changed = false;
  for (const Json& want : ArrayAt(oc, {"spec", "conditions"})) {
    const std::string type = engine::GetString(want, {"type"});
    Json* have = nullptr;
    for (Json& c : conditions)
      if (engine::GetString(c, {"type"}) == type) {
        have = &c;
        break;
      }
    if (have != nullptr && engine::GetString(*have, {"status"}) == engine::GetString(want, {"status"}) &&
        ObservedGeneration(*have) == generation)
      continue;
    changed = true;
    const std::string ltt = engine::GetString(want, {"lastTransitionTime"});
    if (have == nullptr) {
      Json c = want;
      c["observedGeneration"] = generation;
      if (ltt.empty()) c["lastTransitionTime"] = now;
      conditions.push_back(std::move(c));
      continue;
    }
    // meta.SetStatusCondition on an existing entry.
    if (engine::GetString(*have, {"status"}) != engine::GetString(want, {"status"})) {
      (*have)["status"] = want["status"];
      (*have)["lastTransitionTime"] = ltt.empty() ? std::string(now) : ltt;
    }
    (*have)["reason"] = engine::Path(want, {"reason"});
    (*have)["message"] = engine::Path(want, {"message"});
    (*have)["observedGeneration"] = generation;
  }
  if (!changed) return std::nullopt;
  return status;
}

std::optional<std::string> NotUpgradeable(const Json* oc) {
  if (oc == nullptr) return std::nullopt;
  for (const Json& o : ArrayAt(*oc, {"spec", "overrides"})) {
    if (engine::GetString(o, {"type"}) != "Upgradeable") continue;
    if (engine::GetString(o, {"status"}) == "True") return std::nullopt;
    return StrCat("the operator is not upgradeable: ", engine::GetString(o, {"message"}));
  }
  for (const Json& c : ArrayAt(*oc, {"status", "conditions"})) {
    if (engine::GetString(c, {"type"}) != "Upgradeable") continue;
    if (ObservedGeneration(c) != Generation(*oc))
      return StrCat("the operatorcondition status \"", engine::GetString(c, {"type"}), "\"=\"",
                    engine::GetString(c, {"status"}), "\" is outdated");
    if (engine::GetString(c, {"status"}) == "False")
      return StrCat("the operator is not upgradeable: ", engine::GetString(c, {"message"}));
    break;
  }
  return std::nullopt;
}

}  // namespace recon::olm
