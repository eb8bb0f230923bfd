#include "cli/rbac.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace recon::cli {
namespace {

void EmitRules(YAML::Emitter& out, const std::vector<RbacRule>& rules) {
  out << YAML::Key << "rules" << YAML::Value << YAML::BeginSeq;
  for (const auto& r : rules) {
    out << YAML::BeginMap;
    out << YAML::Key << "apiGroups" << YAML::Value << YAML::Flow << YAML::BeginSeq << YAML::DoubleQuoted
        << r.api_group << YAML::EndSeq;
    out << YAML::Key << "resources" << YAML::Value << YAML::Flow << YAML::BeginSeq << r.resource
        << YAML::EndSeq;
    out << YAML::Key << "verbs" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& v : r.verbs) out << v;
    out << YAML::EndSeq << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

void EmitMeta(YAML::Emitter& out, const std::string& name, const std::string* ns) {
  out << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << name;
  if (ns) out << YAML::Key << "namespace" << YAML::Value << *ns;
  out << YAML::Key << "labels" << YAML::Value << YAML::BeginMap << YAML::Key << "app.kubernetes.io/name"
      << YAML::Value << "recon" << YAML::EndMap;
  out << YAML::EndMap;
}

void EmitBinding(YAML::Emitter& out, const std::string& kind, const std::string& role_kind,
                 const RbacOptions& o, bool namespaced) {
  out << YAML::BeginDoc << YAML::BeginMap;
  out << YAML::Key << "apiVersion" << YAML::Value << "rbac.authorization.k8s.io/v1";
  out << YAML::Key << "kind" << YAML::Value << kind;
  EmitMeta(out, o.name, namespaced ? &o.namespace_ : nullptr);
  out << YAML::Key << "roleRef" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "apiGroup" << YAML::Value << "rbac.authorization.k8s.io";
  out << YAML::Key << "kind" << YAML::Value << role_kind;
  out << YAML::Key << "name" << YAML::Value << o.name << YAML::EndMap;
  out << YAML::Key << "subjects" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  out << YAML::Key << "kind" << YAML::Value << "ServiceAccount";
  out << YAML::Key << "name" << YAML::Value << o.name;
  out << YAML::Key << "namespace" << YAML::Value << o.namespace_;
  out << YAML::EndMap << YAML::EndSeq << YAML::EndMap << YAML::EndDoc;
}

}  // namespace

std::vector<RbacRule> ClusterRules(const std::vector<engine::ResourceUse>& uses, bool read_only) {
  std::map<std::pair<std::string, std::string>, std::set<std::string>> rules;
  for (const auto& use : uses) {
    const std::string& g = use.type.group;
    if (read_only) {
      // Status is read through the resource itself; nothing else is needed.
      std::set<std::string> reads;
      for (const auto& v : use.verbs) {
        if (v == "get" || v == "list" || v == "watch") reads.insert(v);
      }
      if (!reads.empty()) rules[{g, use.type.plural}].insert(reads.begin(), reads.end());
      continue;
    }
    if (!use.verbs.empty()) rules[{g, use.type.plural}].insert(use.verbs.begin(), use.verbs.end());
    if (!use.status_verbs.empty()) {
      rules[{g, use.type.plural + "/status"}].insert(use.status_verbs.begin(), use.status_verbs.end());
    }
    for (const auto& sub : use.create_subresources) rules[{g, sub}].insert("create");
  }
  std::vector<RbacRule> out;
  for (auto& [key, verbs] : rules) out.push_back({key.first, key.second, {verbs.begin(), verbs.end()}});
  return out;
}

std::vector<RbacRule> NamespaceRules() {
  // client-go's leader election reads the Lease, creates it once and
  // updates it to renew or take over; nothing else in the namespace.
  return {{"coordination.k8s.io", "leases", {"create", "get", "update"}}};
}

std::string RenderRbac(const std::vector<engine::ResourceUse>& uses, const RbacOptions& o) {
  YAML::Emitter out;
  out.SetIndent(2);
  out << YAML::BeginDoc << YAML::BeginMap;
  out << YAML::Key << "apiVersion" << YAML::Value << "rbac.authorization.k8s.io/v1";
  out << YAML::Key << "kind" << YAML::Value << "ClusterRole";
  EmitMeta(out, o.name, nullptr);
  EmitRules(out, ClusterRules(uses, o.shadow));
  out << YAML::EndMap << YAML::EndDoc;
  EmitBinding(out, "ClusterRoleBinding", "ClusterRole", o, false);
  if (o.shadow) {
    std::string text = out.c_str();
    return text + "\n";
  }
  out << YAML::BeginDoc << YAML::BeginMap;
  out << YAML::Key << "apiVersion" << YAML::Value << "rbac.authorization.k8s.io/v1";
  out << YAML::Key << "kind" << YAML::Value << "Role";
  EmitMeta(out, o.name, &o.namespace_);
  EmitRules(out, NamespaceRules());
  out << YAML::EndMap << YAML::EndDoc;
  EmitBinding(out, "RoleBinding", "Role", o, true);
  std::string text = out.c_str();
  text += "\n";
  return text;
}

}  // namespace recon::cli
