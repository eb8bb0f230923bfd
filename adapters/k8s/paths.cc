#include "adapters/k8s/paths.h"

#include "adapters/http/transport.h"
#include "base/strings.h"

namespace recon::k8s {

using http::UrlEncode;

std::string GroupVersionPath(std::string_view group, std::string_view version) {
  return group.empty() ? recon::StrCat("/api/", version) : recon::StrCat("/apis/", group, "/", version);
}

std::string CollectionPath(const engine::ResourceType& type, std::string_view ns) {
  std::string path = GroupVersionPath(type.group, type.version);
  if (type.namespaced && !ns.empty()) recon::StrAppend(&path, "/namespaces/", UrlEncode(ns));
  recon::StrAppend(&path, "/", type.plural);
  return path;
}

std::string ObjectPath(const engine::ResourceType& type, std::string_view ns, std::string_view name) {
  return recon::StrCat(CollectionPath(type, ns), "/", UrlEncode(name));
}

}  // namespace recon::k8s
