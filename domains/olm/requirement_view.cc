#include "domains/olm/requirement_view.h"

#include <string>
#include <vector>

namespace recon::olm {
namespace {

using engine::Json;

constexpr std::string_view kRbac = "rbac.authorization.k8s.io";

const Json* JsonOf(const engine::Object* o) { return o == nullptr ? nullptr : &o->json(); }

std::vector<const Json*> JsonsOf(const std::vector<const engine::Object*>& objects) {
  std::vector<const Json*> out;
  for (const engine::Object* o : objects) out.push_back(&o->json());
  return out;
}

}  // namespace

RequirementView RequirementsIn(const engine::World& w, std::string_view ns) {
  RequirementView v;
  v.crd = [&w](std::string_view name) {
    return JsonOf(w.Get("apiextensions.k8s.io", "CustomResourceDefinition", "", name));
  };
  std::string sa_ns(ns);
  v.service_account = [&w, sa_ns](std::string_view name) {
    return JsonOf(w.Get("", "ServiceAccount", sa_ns, name));
  };
  v.role_bindings = [&w](std::string_view in) { return JsonsOf(w.ListIn(kRbac, "RoleBinding", in)); };
  v.cluster_role_bindings = [&w] { return JsonsOf(w.List(kRbac, "ClusterRoleBinding")); };
  v.role = [&w](std::string_view in, std::string_view name) {
    return JsonOf(w.Get(kRbac, "Role", in, name));
  };
  v.cluster_role = [&w](std::string_view name) { return JsonOf(w.Get(kRbac, "ClusterRole", "", name)); };
  return v;
}

}  // namespace recon::olm
