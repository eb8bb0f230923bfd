#include "adapters/k8s/kubeconfig.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

#include "absl/strings/escaping.h"
#include "base/strings.h"

namespace recon::k8s {
namespace {

// yaml-cpp throws; nothing escapes this file.
std::string Str(const YAML::Node& n, const char* key) {
  const YAML::Node v = n[key];
  if (!v || !v.IsScalar()) return "";
  return v.as<std::string>();
}

const YAML::Node FindNamed(const YAML::Node& list, const std::string& name, const char* inner) {
  if (list && list.IsSequence()) {
    for (const auto& item : list) {
      if (item.IsMap() && Str(item, "name") == name) return item[inner];
    }
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

std::string Names(const YAML::Node& list) {
  std::string out;
  if (list && list.IsSequence()) {
    for (const auto& item : list) {
      if (!item.IsMap()) continue;
      recon::StrAppend(&out, out.empty() ? "" : ", ", Str(item, "name"));
    }
  }
  return out.empty() ? "none" : out;
}

std::string ResolvePath(std::string_view base_dir, const std::string& path) {
  if (path.empty() || path[0] == '/' || base_dir.empty()) return path;
  return recon::StrCat(base_dir, "/", path);
}

absl::StatusOr<std::string> Base64(const std::string& field, const std::string& where,
                                   const std::string& text) {
  std::string out;
  if (!absl::Base64Unescape(text, &out)) {
    return absl::InvalidArgumentError(recon::StrCat(where, ": ", field, " is not valid base64"));
  }
  return out;
}

}  // namespace

absl::StatusOr<Kubeconfig> Kubeconfig::Parse(std::string_view yaml, std::string_view source) {
  Kubeconfig k;
  k.source_ = std::string(source);
  try {
    auto root = std::make_shared<YAML::Node>(YAML::Load(std::string(yaml)));
    if (!root->IsMap())
      return absl::InvalidArgumentError(recon::StrCat("kubeconfig ", k.source_, ": expected a mapping"));
    k.root_ = std::move(root);
  } catch (const YAML::Exception& e) {
    // The mark is enough to find the spot; e.what() may quote the text.
    return absl::InvalidArgumentError(recon::StrCat("kubeconfig ", k.source_, ": not valid YAML at line ",
                                                    e.mark.line + 1, " column ", e.mark.column + 1));
  }
  return k;
}

absl::StatusOr<RestConfig> ParseKubeconfig(std::string_view yaml, std::string_view source,
                                           std::string_view context, std::string_view base_dir) {
  auto k = Kubeconfig::Parse(yaml, source);
  if (!k.ok()) return k.status();
  return k->Resolve(context, base_dir);
}

absl::StatusOr<RestConfig> Kubeconfig::Resolve(std::string_view context, std::string_view base_dir) const {
  const std::string& src = source_;
  // Read-only access: a const node's operator[] never inserts.
  const YAML::Node& root = *root_;
  try {
    RestConfig c;
    c.source = src;
    c.context = context.empty() ? Str(root, "current-context") : std::string(context);
    if (c.context.empty()) {
      return absl::InvalidArgumentError(recon::StrCat(
          "kubeconfig ", src,
          ": current-context is not set and no --context given (contexts: ", Names(root["contexts"]), ")"));
    }
    const YAML::Node ctx = FindNamed(root["contexts"], c.context, "context");
    if (!ctx || !ctx.IsMap()) {
      return absl::NotFoundError(recon::StrCat("kubeconfig ", src, ": context \"", c.context,
                                               "\" not found (contexts: ", Names(root["contexts"]), ")"));
    }
    std::string where = recon::StrCat("kubeconfig ", src, ": context \"", c.context, "\"");
    std::string cluster_name = Str(ctx, "cluster");
    if (cluster_name.empty()) return absl::InvalidArgumentError(recon::StrCat(where, ": cluster is missing"));
    c.ns = Str(ctx, "namespace");
    const YAML::Node cl = FindNamed(root["clusters"], cluster_name, "cluster");
    if (!cl || !cl.IsMap()) {
      return absl::NotFoundError(recon::StrCat(where, ": cluster \"", cluster_name,
                                               "\" not found (clusters: ", Names(root["clusters"]), ")"));
    }
    std::string cwhere = recon::StrCat(where, ", cluster \"", cluster_name, "\"");
    c.server = Str(cl, "server");
    if (c.server.empty()) return absl::InvalidArgumentError(recon::StrCat(cwhere, ": server is missing"));
    while (!c.server.empty() && c.server.back() == '/') c.server.pop_back();
    if (c.server.rfind("https://", 0) != 0 && c.server.rfind("http://", 0) != 0) {
      return absl::InvalidArgumentError(
          recon::StrCat(cwhere, ": server \"", c.server, "\": expected an https:// (or http://) URL"));
    }
    if (std::string d = Str(cl, "certificate-authority-data"); !d.empty()) {
      auto pem = Base64("certificate-authority-data", cwhere, d);
      if (!pem.ok()) return pem.status();
      c.ca_pem = std::move(*pem);
    } else {
      c.ca_file = ResolvePath(base_dir, Str(cl, "certificate-authority"));
    }
    std::string insecure = Str(cl, "insecure-skip-tls-verify");
    if (!insecure.empty() && insecure != "true" && insecure != "false") {
      return absl::InvalidArgumentError(recon::StrCat(
          cwhere, ": insecure-skip-tls-verify: expected true or false, got \"", insecure, "\""));
    }
    c.insecure_skip_tls_verify = insecure == "true";
    c.tls_server_name = Str(cl, "tls-server-name");

    std::string user_name = Str(ctx, "user");
    if (!user_name.empty()) {
      const YAML::Node u = FindNamed(root["users"], user_name, "user");
      if (!u || !u.IsMap()) {
        return absl::NotFoundError(
            recon::StrCat(where, ": user \"", user_name, "\" not found (users: ", Names(root["users"]), ")"));
      }
      std::string uwhere = recon::StrCat(where, ", user \"", user_name, "\"");
      if (u["exec"] || u["auth-provider"]) {
        return absl::UnimplementedError(recon::StrCat(
            uwhere,
            ": exec and auth-provider credential plugins are not supported; use a token, tokenFile or a "
            "client certificate"));
      }
      c.token = Str(u, "token");
      c.token_file = ResolvePath(base_dir, Str(u, "tokenFile"));
      for (auto [field, pem, file] :
           {std::tuple{"client-certificate", &c.client_cert_pem, &c.client_cert_file},
            std::tuple{"client-key", &c.client_key_pem, &c.client_key_file}}) {
        std::string data_field = recon::StrCat(field, "-data");
        if (std::string d = Str(u, data_field.c_str()); !d.empty()) {
          auto decoded = Base64(data_field, uwhere, d);
          if (!decoded.ok()) return decoded.status();
          *pem = std::move(*decoded);
        } else {
          *file = ResolvePath(base_dir, Str(u, field));
        }
      }
      bool has_cert = !c.client_cert_pem.empty() || !c.client_cert_file.empty();
      bool has_key = !c.client_key_pem.empty() || !c.client_key_file.empty();
      if (has_cert != has_key) {
        return absl::InvalidArgumentError(
            recon::StrCat(uwhere, has_cert ? ": client-certificate is set but client-key(-data) is missing"
                                           : ": client-key is set but client-certificate(-data) is missing"));
      }
      if (!Str(u, "username").empty()) {
        return absl::UnimplementedError(
            recon::StrCat(uwhere, ": basic auth (username/password) is not supported"));
      }
    }
    return c;
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(recon::StrCat("kubeconfig ", src, ": unexpected structure at line ",
                                                    e.mark.line + 1, " column ", e.mark.column + 1));
  }
}

std::string KubeconfigPath(std::string_view flag, std::string_view kubeconfig_env, std::string_view home) {
  if (!flag.empty()) return std::string(flag);
  // A list merges in kubectl; recon takes the first non-empty entry.
  while (!kubeconfig_env.empty()) {
    size_t colon = kubeconfig_env.find(':');
    std::string_view first = kubeconfig_env.substr(0, colon);
    if (!first.empty()) return std::string(first);
    if (colon == std::string_view::npos) break;
    kubeconfig_env.remove_prefix(colon + 1);
  }
  return recon::StrCat(home, "/.kube/config");
}

absl::StatusOr<RestConfig> LoadKubeconfig(const std::string& path, std::string_view context) {
  auto text = ReadFile(path);
  if (!text.ok()) return absl::NotFoundError(recon::StrCat("kubeconfig ", path, ": cannot read"));
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  return ParseKubeconfig(*text, path, context, dir);
}

absl::StatusOr<RestConfig> InClusterConfig(std::string_view host, std::string_view port,
                                           const InClusterPaths& paths) {
  if (host.empty() || port.empty()) {
    return absl::FailedPreconditionError(
        "in-cluster config: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set (not running in "
        "a pod?)");
  }
  RestConfig c;
  c.context = c.source = "in-cluster";
  bool v6 = host.find(':') != std::string_view::npos;
  c.server = recon::StrCat("https://", v6 ? "[" : "", host, v6 ? "]" : "", ":", port);
  auto token = ReadFile(paths.token);
  if (!token.ok())
    return absl::NotFoundError(recon::StrCat("in-cluster config: token file ", paths.token, ": cannot read"));
  if (token->empty())
    return absl::InvalidArgumentError(
        recon::StrCat("in-cluster config: token file ", paths.token, " is empty"));
  c.token_file = paths.token;
  auto ca = ReadFile(paths.ca);
  if (!ca.ok())
    return absl::NotFoundError(recon::StrCat("in-cluster config: CA file ", paths.ca, ": cannot read"));
  c.ca_file = paths.ca;
  if (auto ns = ReadFile(paths.ns); ns.ok()) {
    c.ns = *ns;
    while (!c.ns.empty() && (c.ns.back() == '\n' || c.ns.back() == ' ')) c.ns.pop_back();
  }
  return c;
}

}  // namespace recon::k8s
