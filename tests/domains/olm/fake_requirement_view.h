// A fake cluster that csv/requirements.h's RequirementView reads: CRDs,
// service accounts (of the CSV's namespace), Roles ("ns/name"),
// ClusterRoles, RoleBindings and ClusterRoleBindings, held by value.
#ifndef RECON_TESTS_DOMAINS_OLM_FAKE_REQUIREMENT_VIEW_H_
#define RECON_TESTS_DOMAINS_OLM_FAKE_REQUIREMENT_VIEW_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "domains/olm/csv/requirements.h"
#include "engine/json.h"

namespace recon::olm {

struct FakeRequirementCluster {
  std::map<std::string, engine::Json> crds, sas, roles, cluster_roles;
  std::vector<engine::Json> role_bindings, cluster_role_bindings;

  RequirementView View() {
    RequirementView v;
    v.crd = [this](std::string_view n) -> const engine::Json* {
      auto it = crds.find(std::string(n));
      return it == crds.end() ? nullptr : &it->second;
    };
    v.service_account = [this](std::string_view n) -> const engine::Json* {
      auto it = sas.find(std::string(n));
      return it == sas.end() ? nullptr : &it->second;
    };
    v.role = [this](std::string_view ns, std::string_view n) -> const engine::Json* {
      auto it = roles.find(std::string(ns) + "/" + std::string(n));
      return it == roles.end() ? nullptr : &it->second;
    };
    v.cluster_role = [this](std::string_view n) -> const engine::Json* {
      auto it = cluster_roles.find(std::string(n));
      return it == cluster_roles.end() ? nullptr : &it->second;
    };
    v.role_bindings = [this](std::string_view ns) {
      std::vector<const engine::Json*> out;
      for (const engine::Json& b : role_bindings) {
        if (engine::GetString(b, {"metadata", "namespace"}) == ns) out.push_back(&b);
      }
      return out;
    };
    v.cluster_role_bindings = [this] {
      std::vector<const engine::Json*> out;
      for (const engine::Json& b : cluster_role_bindings) out.push_back(&b);
      return out;
    };
    return v;
  }
};

}  // namespace recon::olm

#endif  // RECON_TESTS_DOMAINS_OLM_FAKE_REQUIREMENT_VIEW_H_
