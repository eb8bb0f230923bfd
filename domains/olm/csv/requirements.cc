#include "domains/olm/csv/requirements.h"

#include <algorithm>
#include <map>
#include <utility>

#include "base/strings.h"

namespace recon::olm {
namespace {

using engine::Json;

constexpr std::string_view kAlongsidePrefix = "operatorframework.io/installed-alongside-";

bool ConditionTrue(const Json& obj, std::string_view type) {
  for (const Json& c : engine::Path(obj, {"status", "conditions"})) {
    if (engine::GetString(c, {"type"}) == type) return engine::GetString(c, {"status"}) == "True";
  }
  return false;
}

std::vector<std::string> Strings(const Json& list) {
  std::vector<std::string> out;
  if (!list.is_array()) return out;
  for (const Json& s : list) out.push_back(s.is_string() ? s.get<std::string>() : "");
  return out;
}

bool Has(const std::vector<std::string>& list, std::string_view v) {
  for (const std::string& s : list) {
    if (s == v) return true;
  }
  return false;
}

Json Entry(std::string_view group, std::string_view version, std::string_view kind, std::string_view name) {
  return Json{{"group", group}, {"version", version}, {"kind", kind}, {"name", name}};
}

void SetStatus(Json& entry, std::string_view status, std::string_view message) {
  entry["status"] = status;
  entry["message"] = message;
}

// The CSVs of this namespace this CSV replaces that the CRD says it was
// installed alongside, unless it names this CSV too (upstream keeps the
// CRD's owner then).
std::string AlongsideConflict(const Json& crd, std::string_view ns, std::string_view csv,
                              const RequirementView& v) {
  std::vector<std::string> others;
  bool self = false;
  const Json& annotations = engine::Path(crd, {"metadata", "annotations"});
  if (!annotations.is_object()) return "";
  for (const auto& [key, value] : annotations.items()) {
    if (key.rfind(kAlongsidePrefix, 0) != 0 || !value.is_string()) continue;
    const std::string& nn = value.get_ref<const std::string&>();
    size_t slash = nn.find('/');
    if (slash == std::string::npos || std::string_view(nn).substr(0, slash) != ns) continue;
    std::string name = nn.substr(slash + 1);
    if (name == csv) self = true;
    if (v.replaced_chain.contains(name)) others.push_back(name);
  }
  if (self || others.empty()) return "";
  // Upstream joins in Go map order; sorted here, so the message is stable.
  std::sort(others.begin(), others.end());
  std::string out;
  for (size_t i = 0; i < others.size(); ++i) StrAppend(&out, i ? ", " : "", others[i]);
  return out;
}

void CheckCrds(const Json& csv, const RequirementView& v, RequirementResult& r) {
  std::string ns = engine::GetString(csv, {"metadata", "namespace"});
  std::string name = engine::GetString(csv, {"metadata", "name"});
  struct Wanted {
    const Json* desc;
    bool owned;
  };
  std::map<std::string, Wanted, std::less<>> crds;  // by name: the order of the entries
  for (const Json& d : engine::Path(csv, {"spec", "customresourcedefinitions", "required"})) {
    crds.insert_or_assign(engine::GetString(d, {"name"}), Wanted{&d, false});
  }
  for (const Json& d : engine::Path(csv, {"spec", "customresourcedefinitions", "owned"})) {
    crds.insert_or_assign(engine::GetString(d, {"name"}), Wanted{&d, true});
  }
  for (const auto& [crd_name, want] : crds) {
    Json e = Entry("apiextensions.k8s.io", "v1", "CustomResourceDefinition", crd_name);
    const Json* crd = v.crd ? v.crd(crd_name) : nullptr;
    bool served = false;
    if (crd) {
      std::string version = engine::GetString(*want.desc, {"version"});
      for (const Json& ver : engine::Path(*crd, {"spec", "versions"})) {
        if (engine::GetString(ver, {"name"}) != version) continue;
        served = engine::Path(ver, {"served"}).is_boolean() && engine::Path(ver, {"served"}).get<bool>();
        break;
      }
    }
    std::string alongside = crd && want.owned ? AlongsideConflict(*crd, ns, name, v) : "";
    if (!crd) {
      SetStatus(e, "NotPresent", "CRD is not present");
    } else if (!alongside.empty()) {
      SetStatus(e, "PresentNotSatisfied", StrCat("CRD installed alongside other CSV(s): ", alongside));
    } else if (!served) {
      SetStatus(e, "NotPresent", "CRD version not served");
    } else if (ConditionTrue(*crd, "Established") && ConditionTrue(*crd, "NamesAccepted")) {
      SetStatus(e, "Present", "CRD is present and Established condition is true");
      e["uuid"] = engine::GetString(*crd, {"metadata", "uid"});
    } else {
      SetStatus(e, "PresentNotAvailable",
                "CRD is present but the Established condition is False (not available)");
    }
    r.met &= engine::GetString(e, {"status"}) == "Present";
    r.statuses.push_back(std::move(e));
  }
}

// Go's json of an rbacv1.PolicyRule: verbs always, the rest when not empty.
std::string RuleJson(const Json& rule) {
  Json out = Json::object();
  out["verbs"] = engine::Path(rule, {"verbs"}).is_array() ? engine::Path(rule, {"verbs"}) : Json(nullptr);
  for (const char* key : {"apiGroups", "resources", "resourceNames", "nonResourceURLs"}) {
    const Json& list = engine::Path(rule, {key});
    if (list.is_array() && !list.empty()) out[key] = list;
  }
  return engine::Dump(out);
}

std::optional<std::string> RuleInvalid(const Json& rule) {
  auto size = [&](const char* key) { return Strings(engine::Path(rule, {key})).size(); };
  if (size("verbs") == 0) return "rule invalid: policy rule must have at least one verb";
  if (size("apiGroups") + size("resources") + size("resourceNames") > 0 && size("nonResourceURLs") > 0) {
    return "rule invalid: rule cannot apply to both regular resources and non-resource URLs";
  }
  return std::nullopt;
}

void CheckServiceAccounts(const Json& csv, const RequirementView& v, RequirementResult& r) {
  std::string ns = engine::GetString(csv, {"metadata", "namespace"});
  std::string uid = engine::GetString(csv, {"metadata", "uid"});
  // Upstream keys the entries by service account in a Go map; here by name.
  std::map<std::string, Json, std::less<>> entries;
  for (const auto& [field, cluster] :
       {std::pair{"permissions", false}, std::pair{"clusterPermissions", true}}) {
    for (const Json& p : engine::Path(csv, {"spec", "install", "spec", field})) {
      std::string sa_name = engine::GetString(p, {"serviceAccountName"});
      auto [it, fresh] = entries.try_emplace(sa_name, Entry("", "v1", "ServiceAccount", sa_name));
      Json& e = it->second;
      const Json* sa = v.service_account ? v.service_account(sa_name) : nullptr;
      if (!sa) {
        SetStatus(e, "NotPresent", "Service account does not exist");
        continue;
      }
      bool csv_owned = false, mine = false;
      for (const Json& o : engine::Path(*sa, {"metadata", "ownerReferences"})) {
        if (engine::GetString(o, {"kind"}) != "ClusterServiceVersion") continue;
        csv_owned = true;
        mine |= engine::GetString(o, {"uid"}) == uid;
      }
      if (csv_owned && !mine) {
        SetStatus(e, "PresentNotSatisfied", "Service account is owned by another ClusterServiceVersion");
        continue;
      }
      if (fresh) SetStatus(e, "Present", "");
      for (const Json& rule : engine::Path(p, {"rules"})) {
        if (auto bad = RuleInvalid(rule)) {
          if (!r.invalid) r.invalid = *bad;
          continue;
        }
        bool ok = RuleSatisfied(rule, ns, sa_name, cluster ? "" : ns, v);
        Json dep = {{"group", "rbac.authorization.k8s.io"},
                    {"version", "v1"},
                    {"kind", "PolicyRule"},
                    {"status", ok ? "Satisfied" : "NotSatisfied"},
                    {"message", StrCat(cluster ? "cluster rule:" : "namespaced rule:", RuleJson(rule))}};
        e["dependents"].push_back(std::move(dep));
        if (!ok) SetStatus(e, "PresentNotSatisfied", "Policy rule not satisfied for service account");
      }
    }
  }
  for (auto& [name, e] : entries) {
    r.met &= engine::GetString(e, {"status"}) == "Present";
    r.statuses.push_back(std::move(e));
  }
}

// Kubernetes' rbac.ResourceMatches: "*", the resource (with its
// subresource) itself, or "*/sub" for any resource's subresource.
bool ResourceMatches(const std::vector<std::string>& rule, std::string_view resource) {
  size_t slash = resource.find('/');
  for (const std::string& r : rule) {
    if (r == "*" || r == resource) return true;
    if (slash != std::string_view::npos && r.size() > 2 && r.rfind("*/", 0) == 0 &&
        std::string_view(r).substr(1) == resource.substr(slash)) {
      return true;
    }
  }
  return false;
}

bool UrlMatches(const std::vector<std::string>& rule, std::string_view url) {
  for (const std::string& u : rule) {
    if (u == "*" || u == url) return true;
    if (!u.empty() && u.back() == '*' &&
        url.substr(0, u.size() - 1) == std::string_view(u).substr(0, u.size() - 1)) {
      return true;
    }
  }
  return false;
}

struct Request {
  std::string verb, group, resource, name, url;
  bool resource_request = true;
};

bool RuleAllows(const Json& rule, const Request& q) {
  std::vector<std::string> verbs = Strings(engine::Path(rule, {"verbs"}));
  if (!Has(verbs, "*") && !Has(verbs, q.verb)) return false;
  if (!q.resource_request) return UrlMatches(Strings(engine::Path(rule, {"nonResourceURLs"})), q.url);
  std::vector<std::string> groups = Strings(engine::Path(rule, {"apiGroups"}));
  if (!Has(groups, "*") && !Has(groups, q.group)) return false;
  if (!ResourceMatches(Strings(engine::Path(rule, {"resources"})), q.resource)) return false;
  std::vector<std::string> names = Strings(engine::Path(rule, {"resourceNames"}));
  return names.empty() || Has(names, q.name);
}

bool BindsUser(const Json& binding, std::string_view binding_ns, std::string_view sa_ns,
               std::string_view sa) {
  std::string user = StrCat("system:serviceaccount:", sa_ns, ":", sa);
  for (const Json& s : engine::Path(binding, {"subjects"})) {
    std::string kind = engine::GetString(s, {"kind"});
    if (kind == "User" && engine::GetString(s, {"name"}) == user) return true;
    if (kind != "ServiceAccount" || engine::GetString(s, {"name"}) != sa) continue;
    std::string ns = engine::GetString(s, {"namespace"});
    if ((ns.empty() ? std::string(binding_ns) : ns) == sa_ns) return true;
  }
  return false;
}

// The rules a binding grants, through its roleRef.
const Json* RulesOf(const Json& binding, std::string_view binding_ns, const RequirementView& v) {
  std::string kind = engine::GetString(binding, {"roleRef", "kind"});
  std::string name = engine::GetString(binding, {"roleRef", "name"});
  const Json* role = nullptr;
  if (kind == "ClusterRole" && v.cluster_role) role = v.cluster_role(name);
  if (kind == "Role" && !binding_ns.empty() && v.role) role = v.role(binding_ns, name);
  return role ? &engine::Path(*role, {"rules"}) : nullptr;
}

bool Allowed(const Request& q, std::string_view sa_ns, std::string_view sa, std::string_view ns,
             const RequirementView& v) {
  auto grants = [&](const Json* binding, std::string_view binding_ns) {
    if (!BindsUser(*binding, binding_ns, sa_ns, sa)) return false;
    const Json* rules = RulesOf(*binding, binding_ns, v);
    if (!rules || !rules->is_array()) return false;
    for (const Json& rule : *rules) {
      if (RuleAllows(rule, q)) return true;
    }
    return false;
  };
  if (v.cluster_role_bindings) {
    for (const Json* b : v.cluster_role_bindings()) {
      if (grants(b, "")) return true;
    }
  }
  if (!ns.empty() && q.resource_request && v.role_bindings) {
    for (const Json* b : v.role_bindings(ns)) {
      if (grants(b, ns)) return true;
    }
  }
  return false;
}

std::vector<std::string> OrEmpty(std::vector<std::string> list) {
  if (list.empty()) list.push_back("");
  return list;
}

}  // namespace

bool RuleSatisfied(const Json& rule, std::string_view sa_namespace, std::string_view sa, std::string_view ns,
                   const RequirementView& view) {
  std::vector<std::string> urls = Strings(engine::Path(rule, {"nonResourceURLs"}));
  const bool resource_request = urls.empty();
  for (const std::string& verb : OrEmpty(Strings(engine::Path(rule, {"verbs"})))) {
    for (const std::string& group : OrEmpty(Strings(engine::Path(rule, {"apiGroups"})))) {
      for (const std::string& resource : OrEmpty(Strings(engine::Path(rule, {"resources"})))) {
        for (const std::string& name : OrEmpty(Strings(engine::Path(rule, {"resourceNames"})))) {
          for (const std::string& url : OrEmpty(urls)) {
            Request q{verb, group, resource, name, url, resource_request};
            if (!Allowed(q, sa_namespace, sa, ns, view)) return false;
          }
        }
      }
    }
  }
  return true;
}

RequirementResult CheckRequirements(const Json& csv, const RequirementView& view) {
  RequirementResult r;
  if (!engine::GetString(csv, {"spec", "minKubeVersion"}).empty())
    r.unchecked.push_back("spec.minKubeVersion");
  if (!engine::Path(csv, {"spec", "apiservicedefinitions"}).is_null()) r.unchecked.push_back("APIServices");
  if (!engine::Path(csv, {"spec", "webhookdefinitions"}).is_null()) r.not_built.push_back("webhooks");
  if (!engine::Path(csv, {"spec", "nativeAPIs"}).is_null()) r.unchecked.push_back("spec.nativeAPIs");
  CheckCrds(csv, view, r);
  CheckServiceAccounts(csv, view, r);
  return r;
}

}  // namespace recon::olm
