#include "domains/olm/cluster_refs.h"

#include <utility>

#include "base/strings.h"
#include "domains/olm/install/json_values.h"
#include "domains/olm/reducer.h"

namespace recon::olm {
namespace {

using engine::Json;

constexpr std::string_view kRbacGroup = "rbac.authorization.k8s.io";
constexpr std::string_view kCrdApiGroup = "apiextensions.k8s.io";

struct Kept {
  std::string_view group, kind;
};
constexpr Kept kKept[] = {{kGroup, "ClusterServiceVersion"}, {kCrdApiGroup, "CustomResourceDefinition"},
                          {kRbacGroup, "ClusterRole"},       {kRbacGroup, "ClusterRoleBinding"},
                          {kRbacGroup, "RoleBinding"},       {"", "Namespace"}};

bool IsKept(std::string_view group, std::string_view kind) {
  for (const Kept& k : kKept)
    if (k.group == group && k.kind == kind) return true;
  return false;
}

std::string KeyOf(std::string_view group, std::string_view kind, std::string_view ns, std::string_view name) {
  return StrCat(group, "/", kind, "/", ns, "/", name);
}

// The namespaces of the ServiceAccounts a ClusterRoleBinding binds (as the
// permission check's BindsUser reads its subjects).
std::set<std::string> SubjectNamespaces(const Json& binding) {
  std::set<std::string> out;
  constexpr std::string_view kUser = "system:serviceaccount:";
  for (const Json& s : ArrayOrEmpty(engine::Path(binding, {"subjects"}))) {
    const std::string kind = engine::GetString(s, {"kind"});
    if (kind == "ServiceAccount") {
      if (std::string ns = engine::GetString(s, {"namespace"}); !ns.empty()) out.insert(std::move(ns));
    } else if (kind == "User") {
      const std::string user = engine::GetString(s, {"name"});
      if (!user.starts_with(kUser)) continue;
      const std::string rest = user.substr(kUser.size());
      if (size_t colon = rest.find(':'); colon != std::string::npos && colon > 0)
        out.insert(rest.substr(0, colon));
    }
  }
  return out;
}

}  // namespace

void ClusterRefs::Build(const engine::World& world) {
  Clear();
  for (const Kept& k : kKept)
    for (const engine::Object* o : world.List(k.group, k.kind)) {
      Entry e = EntryOf(*o);
      const std::string key = KeyOf(k.group, k.kind, o->ns(), o->name());
      Add(key, e, 1);
      entries_.emplace(key, std::move(e));
    }
}

ClusterRefs::Entry ClusterRefs::EntryOf(const engine::Object& o) const {
  Entry e;
  const Json& j = o.json();
  if (!j.is_object()) return e;
  const Json& labels = engine::Path(j, {"metadata", "labels"});
  if (o.ns().empty() && engine::GetString(labels, {"olm.owner.kind"}) == "ClusterServiceVersion") {
    const std::string owner = engine::GetString(labels, {"olm.owner"}),
                      owner_ns = engine::GetString(labels, {"olm.owner.namespace"});
    if (!owner.empty() && !owner_ns.empty()) e.owner = StrCat(owner_ns, "/", owner);
  }
  const std::string_view kind = o.kind();
  if (kind == "ClusterServiceVersion") {
    for (const char* part : {"owned", "required"})
      for (const Json& d : ArrayOrEmpty(engine::Path(j, {"spec", "customresourcedefinitions", part})))
        if (std::string n = engine::GetString(d, {"name"}); !n.empty()) e.crds.push_back(std::move(n));
  } else if (kind == "RoleBinding" || kind == "ClusterRoleBinding") {
    if (engine::GetString(j, {"roleRef", "kind"}) != "ClusterRole") return e;
    const std::string role = engine::GetString(j, {"roleRef", "name"});
    if (kind == "RoleBinding") {
      e.role_uses.emplace_back(role, std::string(o.ns()));
    } else {
      e.subjects = SubjectNamespaces(j);
      for (const std::string& ns : e.subjects) e.role_uses.emplace_back(role, ns);
    }
  }
  return e;
}

void ClusterRefs::Add(const std::string& key, const Entry& e, int sign) {
  auto count = [sign](std::map<std::string, std::map<std::string, int>, std::less<>>& m, const std::string& a,
                      const std::string& ns) {
    int& n = m[a][ns];
    n += sign;
    if (n > 0) return;
    auto it = m.find(a);
    it->second.erase(ns);
    if (it->second.empty()) m.erase(it);
  };
  const std::string_view rest = key;  // group/kind/ns/name
  const size_t k0 = rest.find('/'), k1 = rest.find('/', k0 + 1), k2 = rest.find('/', k1 + 1);
  const std::string ns(rest.substr(k1 + 1, k2 - k1 - 1));
  for (const std::string& crd : e.crds) count(crd_users_, crd, ns);
  for (const auto& [role, where] : e.role_uses) count(role_users_, role, where);
  if (e.owner.empty()) return;
  const std::string kind_key(rest.substr(0, k1)), name(rest.substr(k2 + 1));
  auto& names = owned_[e.owner][kind_key];
  if (sign > 0) {
    names.insert(name);
    return;
  }
  names.erase(name);
  if (names.empty()) {
    auto it = owned_.find(e.owner);
    it->second.erase(kind_key);
    if (it->second.empty()) owned_.erase(it);
  }
}

void ClusterRefs::Wake(std::string_view kind, const Entry& e, std::set<std::string>* wake) const {
  if (!e.owner.empty()) wake->insert(e.owner.substr(0, e.owner.find('/')));
  if (kind == "ClusterRoleBinding") wake->insert(e.subjects.begin(), e.subjects.end());
}

bool ClusterRefs::Update(const engine::World& world, std::string_view group, std::string_view kind,
                         std::string_view ns, std::string_view name, std::set<std::string>* wake) {
  if (!IsKept(group, kind)) return false;
  const std::string key = KeyOf(group, kind, ns, name);
  if (auto it = entries_.find(key); it != entries_.end()) {
    Wake(kind, it->second, wake);
    Add(key, it->second, -1);
    entries_.erase(it);
  }
  if (const engine::Object* o = world.Get(group, kind, ns, name)) {
    Entry e = EntryOf(*o);
    Add(key, e, 1);
    Wake(kind, e, wake);
    entries_.emplace(key, std::move(e));
  }
  // Who names it (a CRD) or is granted through it (a ClusterRole), whether
  // it is there or not.
  const auto* users = kind == "CustomResourceDefinition" ? &crd_users_
                      : kind == "ClusterRole"            ? &role_users_
                                                         : nullptr;
  if (users != nullptr)
    if (auto it = users->find(name); it != users->end())
      for (const auto& [where, n] : it->second) wake->insert(where);
  return true;
}

const std::set<std::string>* ClusterRefs::OwnedBy(std::string_view ns, std::string_view csv,
                                                  std::string_view group, std::string_view kind) const {
  auto it = owned_.find(StrCat(ns, "/", csv));
  if (it == owned_.end()) return nullptr;
  auto names = it->second.find(StrCat(group, "/", kind));
  return names == it->second.end() ? nullptr : &names->second;
}

}  // namespace recon::olm
