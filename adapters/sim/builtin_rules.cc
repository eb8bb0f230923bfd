#include "adapters/sim/builtin_rules.h"

#include "absl/strings/escaping.h"
#include "base/strings.h"

namespace recon::sim {
namespace {

// Scope, name rule, AllowUnconditionalUpdate and status as the real
// strategies (k8s.io/kubernetes pkg/registry/*, openshift-apiserver) have them.
constexpr BuiltinType kTypes[] = {
    {"", "Namespace", "namespaces", false, NameRule::kLabel, true, true, true},
    {"", "ConfigMap", "configmaps", true, NameRule::kSubdomain, true, false, false},
    {"", "Secret", "secrets", true, NameRule::kSubdomain, true, false, false},
    {"", "ServiceAccount", "serviceaccounts", true, NameRule::kSubdomain, true, false, false},
    {"", "Service", "services", true, NameRule::kLabel, true, true, true},
    {"", "Pod", "pods", true, NameRule::kSubdomain, true, true, true},
    {"", "Event", "events", true, NameRule::kSubdomain, true, false, false},
    {"", "PersistentVolumeClaim", "persistentvolumeclaims", true, NameRule::kSubdomain, true, true, true},
    {"apps", "Deployment", "deployments", true, NameRule::kSubdomain, true, true, true},
    {"apps", "DaemonSet", "daemonsets", true, NameRule::kSubdomain, true, true, true},
    {"batch", "Job", "jobs", true, NameRule::kSubdomain, true, true, true},
    {"coordination.k8s.io", "Lease", "leases", true, NameRule::kSubdomain, true, false, false},
    {"rbac.authorization.k8s.io", "ClusterRole", "clusterroles", false, NameRule::kPathSegment, true, false,
     false},
    {"rbac.authorization.k8s.io", "ClusterRoleBinding", "clusterrolebindings", false, NameRule::kPathSegment,
     true, false, false},
    {"rbac.authorization.k8s.io", "Role", "roles", true, NameRule::kPathSegment, true, false, false},
    {"rbac.authorization.k8s.io", "RoleBinding", "rolebindings", true, NameRule::kPathSegment, true, false,
     false},
    // openshift-apiserver: both strategies refuse unconditional updates.
    // Schemaless here: no name or field checks.
    {"image.openshift.io", "ImageStream", "imagestreams", true, NameRule::kNone, false, true, true},
    {"template.openshift.io", "Template", "templates", true, NameRule::kNone, false, false, true},
};

bool IsAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

bool IsLabel(std::string_view v) {
  if (v.empty() || !IsAlnum(v.front()) || !IsAlnum(v.back())) return false;
  for (char c : v) {
    if (!IsAlnum(c) && c != '-') return false;
  }
  return true;
}

constexpr std::string_view kSubdomainMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
constexpr std::string_view kLabelMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
    "and "
    "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
constexpr std::string_view kConfigKeyMsg =
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or "
    "'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

// Go's %q for the strings these messages quote.
std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

crd::FieldError Invalid(std::string field, std::string_view value, std::string_view detail) {
  return {"FieldValueInvalid", std::move(field),
          recon::StrCat("Invalid value: ", Quote(value), ": ", detail)};
}
crd::FieldError Required(std::string field, std::string_view detail = "") {
  return {"FieldValueRequired", std::move(field),
          detail.empty() ? std::string("Required value") : recon::StrCat("Required value: ", detail)};
}
crd::FieldError Forbidden(std::string field, std::string_view detail) {
  return {"FieldValueForbidden", std::move(field), recon::StrCat("Forbidden: ", detail)};
}

std::vector<std::string> IsPathSegmentName(std::string_view v) {
  if (v == ".") return {"may not be '.'"};
  if (v == "..") return {"may not be '..'"};
  std::vector<std::string> out;
  if (v.find('/') != std::string_view::npos) out.push_back("may not contain '/'");
  if (v.find('%') != std::string_view::npos) out.push_back("may not contain '%'");
  return out;
}

std::vector<std::string> CheckName(std::string_view v, NameRule rule) {
  switch (rule) {
    case NameRule::kSubdomain:
      return IsDns1123Subdomain(v);
    case NameRule::kLabel:
      return IsDns1123Label(v);
    case NameRule::kPathSegment:
      return IsPathSegmentName(v);
    case NameRule::kNone:
      break;
  }
  return {};
}

std::vector<std::string> IsConfigMapKey(std::string_view v) {
  std::vector<std::string> out;
  if (v.size() > 253) out.push_back("must be no more than 253 characters");
  bool ok = !v.empty();
  for (char c : v) {
    if (!(IsAlnum(c) || (c >= 'A' && c <= 'Z') || c == '-' || c == '_' || c == '.')) ok = false;
  }
  if (!ok) out.push_back(std::string(kConfigKeyMsg));
  if (v == ".") {
    out.push_back("must not be '.'");
  } else if (v == "..") {
    out.push_back("must not be '..'");
  } else if (v.starts_with("..")) {
    out.push_back("must not start with '..'");
  }
  return out;
}

std::string_view JsonTypeName(const Json& v) {
  if (v.is_number()) return "number";
  if (v.is_boolean()) return "bool";
  if (v.is_array()) return "array";
  if (v.is_object()) return "object";
  return "string";
}

// data / binaryData / stringData: a map of strings, as Go decodes it.
absl::Status StringMap(std::string_view kind, std::string_view field, const Json& m) {
  if (m.is_null() || !m.contains(std::string(field))) return absl::OkStatus();
  const Json& v = m[std::string(field)];
  if (v.is_null()) return absl::OkStatus();
  if (!v.is_object()) {
    return absl::InvalidArgumentError(recon::StrCat(
        kind, " in version \"v1\" cannot be handled as a ", kind, ": json: cannot unmarshal ",
        JsonTypeName(v), " into Go struct field ", kind, ".", field, " of type map[string]",
        field == "stringData" || (kind == "ConfigMap" && field == "data") ? "string" : "[]uint8"));
  }
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (it->is_string() || it->is_null()) continue;
    bool bytes = field == "binaryData" || (kind == "Secret" && field == "data");
    return absl::InvalidArgumentError(recon::StrCat(kind, " in version \"v1\" cannot be handled as a ", kind,
                                                    ": json: cannot unmarshal ", JsonTypeName(*it),
                                                    " into Go struct field ", kind, ".", field, " of type ",
                                                    bytes ? "[]uint8" : "string"));
  }
  return absl::OkStatus();
}

// Go's encoding/base64 error: the offset of the first byte it cannot use.
absl::Status Base64Values(std::string_view kind, const Json& object, std::string_view field) {
  const Json& m = engine::Path(object, {std::string(field)});
  if (!m.is_object()) return absl::OkStatus();
  for (auto it = m.begin(); it != m.end(); ++it) {
    if (!it->is_string()) continue;
    const std::string& s = it->get_ref<const std::string&>();
    std::string raw;
    if (absl::Base64Unescape(s, &raw) && s.size() % 4 == 0) continue;
    size_t at = 0;
    for (; at < s.size(); ++at) {
      char c = s[at];
      bool b64 =
          (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
      if (!b64) break;
    }
    if (at == s.size()) at = s.size() - s.size() % 4;  // a short final quantum
    return absl::InvalidArgumentError(recon::StrCat(kind, " in version \"v1\" cannot be handled as a ", kind,
                                                    ": illegal base64 data at input byte ", at));
  }
  return absl::OkStatus();
}

void CheckKeys(const Json& object, std::string_view field, std::vector<crd::FieldError>* errs) {
  const Json& m = engine::Path(object, {std::string(field)});
  if (!m.is_object()) return;
  for (auto it = m.begin(); it != m.end(); ++it) {
    for (const auto& msg : IsConfigMapKey(it.key()))
      errs->push_back(Invalid(recon::StrCat(field, "[", it.key(), "]"), it.key(), msg));
  }
}

bool IsTrue(const Json& v) { return v.is_boolean() && v.get<bool>(); }

}  // namespace

const BuiltinType* FindBuiltin(std::string_view group, std::string_view kind) {
  for (const auto& t : kTypes) {
    if (t.group == group && t.kind == kind) return &t;
  }
  return nullptr;
}

std::vector<std::string> IsDns1123Subdomain(std::string_view v) {
  std::vector<std::string> out;
  if (v.size() > 253) out.push_back("must be no more than 253 characters");
  bool ok = !v.empty();
  size_t start = 0;
  while (ok && start <= v.size()) {
    size_t dot = v.find('.', start);
    std::string_view part =
        v.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (!IsLabel(part)) ok = false;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (!ok) out.push_back(std::string(kSubdomainMsg));
  return out;
}

std::vector<std::string> IsDns1123Label(std::string_view v) {
  std::vector<std::string> out;
  if (v.size() > 63) out.push_back("must be no more than 63 characters");
  if (!IsLabel(v)) out.push_back(std::string(kLabelMsg));
  return out;
}

std::vector<crd::FieldError> ValidateMeta(const Json& object, bool namespaced, NameRule rule) {
  std::vector<crd::FieldError> errs;
  std::string name = engine::GetString(object, {"metadata", "name"});
  std::string generate = engine::GetString(object, {"metadata", "generateName"});
  if (name.empty() && generate.empty()) {
    errs.push_back(Required("metadata.name", "name or generateName is required"));
  } else if (!name.empty()) {
    for (const auto& msg : CheckName(name, rule)) errs.push_back(Invalid("metadata.name", name, msg));
  }
  if (!generate.empty() && name.empty()) {
    // apimachinery checks the prefix with its trailing dash masked.
    std::string prefix = generate;
    if (prefix.size() > 1 && prefix.back() == '-') prefix.back() = 'a';
    for (const auto& msg : CheckName(prefix, rule))
      errs.push_back(Invalid("metadata.generateName", generate, msg));
  }
  std::string ns = engine::GetString(object, {"metadata", "namespace"});
  if (namespaced) {
    if (ns.empty()) {
      errs.push_back(Required("metadata.namespace"));
    } else {
      for (const auto& msg : IsDns1123Label(ns)) errs.push_back(Invalid("metadata.namespace", ns, msg));
    }
  } else if (!ns.empty()) {
    errs.push_back(Forbidden("metadata.namespace", "not allowed on this type"));
  }
  return errs;
}

absl::Status DecodeBuiltin(const BuiltinType& type, Json& object) {
  if (!type.has_status) object.erase("status");  // an unknown field: dropped by the decoder
  if (type.group != "") return absl::OkStatus();
  if (type.kind == "ConfigMap") {
    if (auto s = StringMap("ConfigMap", "data", object); !s.ok()) return s;
    if (auto s = StringMap("ConfigMap", "binaryData", object); !s.ok()) return s;
    return Base64Values("ConfigMap", object, "binaryData");
  }
  if (type.kind != "Secret") return absl::OkStatus();
  if (auto s = StringMap("Secret", "data", object); !s.ok()) return s;
  if (auto s = StringMap("Secret", "stringData", object); !s.ok()) return s;
  if (auto s = Base64Values("Secret", object, "data"); !s.ok()) return s;
  // stringData is write-only: merged into data (winning), never stored.
  const Json& sd = engine::Path(object, {"stringData"});
  if (sd.is_object()) {
    if (!object["data"].is_object()) object["data"] = Json::object();
    for (auto it = sd.begin(); it != sd.end(); ++it) {
      if (it->is_string()) object["data"][it.key()] = absl::Base64Escape(it->get<std::string>());
    }
  }
  object.erase("stringData");
  return absl::OkStatus();
}

std::vector<crd::FieldError> ValidateBuiltin(const BuiltinType& type, const Json& object, const Json* old) {
  std::vector<crd::FieldError> errs;
  if (type.group != "" || (type.kind != "ConfigMap" && type.kind != "Secret")) return errs;
  CheckKeys(object, "data", &errs);
  if (type.kind == "ConfigMap") {
    CheckKeys(object, "binaryData", &errs);
    const Json& data = engine::Path(object, {"data"});
    const Json& bin = engine::Path(object, {"binaryData"});
    if (data.is_object() && bin.is_object()) {
      for (auto it = bin.begin(); it != bin.end(); ++it) {
        if (data.contains(it.key()))
          errs.push_back(Invalid(recon::StrCat("data[", it.key(), "]"), it.key(),
                                 "duplicate of key present in binaryData"));
      }
    }
  }
  if (old != nullptr && IsTrue(engine::Path(*old, {"immutable"}))) {
    if (!IsTrue(engine::Path(object, {"immutable"})))
      errs.push_back(Forbidden("immutable", "field is immutable when `immutable` is set"));
    for (const char* f : {"data", "binaryData"}) {
      if (engine::Path(*old, {f}) != engine::Path(object, {f}))
        errs.push_back(Forbidden(f, "field is immutable when `immutable` is set"));
    }
  }
  if (type.kind == "Secret") {
    std::string t = engine::GetString(object, {"type"});
    if (old != nullptr) {
      std::string was = engine::GetString(*old, {"type"});
      if (t.empty()) t = was;
      if (t != was) errs.push_back(Invalid("type", t, "field is immutable"));
    }
    const Json& data = engine::Path(object, {"data"});
    auto need = [&](const char* key) {
      if (!data.is_object() || !data.contains(key))
        errs.push_back(Required(recon::StrCat("data[", key, "]")));
    };
    if (t == "kubernetes.io/dockerconfigjson") need(".dockerconfigjson");
    if (t == "kubernetes.io/dockercfg") need(".dockercfg");
    if (t == "kubernetes.io/tls") {
      need("tls.crt");
      need("tls.key");
    }
    if (t == "kubernetes.io/basic-auth" && data.is_object() && !data.contains("username") &&
        !data.contains("password")) {
      errs.push_back(Required("data[username]"));
      errs.push_back(Required("data[password]"));
    }
  }
  return errs;
}

std::string InvalidMessageFor(std::string_view qualified_kind, std::string_view name,
                              const std::vector<crd::FieldError>& errors) {
  std::string list;
  for (size_t i = 0; i < errors.size(); ++i) {
    if (i > 0) list += ", ";
    list +=
        errors[i].field.empty() ? errors[i].message : recon::StrCat(errors[i].field, ": ", errors[i].message);
  }
  if (errors.size() > 1) list = recon::StrCat("[", list, "]");
  return recon::StrCat(qualified_kind, " \"", name, "\" is invalid: ", list);
}

}  // namespace recon::sim
