#include "domains/olm/install/bundle_lookup.h"

#include <zlib.h>

#include <map>
#include <utility>

#include "absl/strings/escaping.h"
#include "base/sha256.h"
#include "base/strings.h"
#include "crd/yaml_json.h"
#include "domains/olm/install/json_values.h"
#include "engine/time_format.h"

namespace recon::olm {
namespace {

using engine::Json;

constexpr std::string_view kRbacGroup = "rbac.authorization.k8s.io";

Json Condition(std::string_view type, std::string_view reason, std::string_view message) {
  return Json{{"type", type}, {"status", "True"}, {"reason", reason}, {"message", message}};
}

Json OwnedBy(std::string_view api, std::string_view kind, std::string_view name, std::string_view uid) {
  return Json::array({Json{{"apiVersion", api},
                           {"kind", kind},
                           {"name", name},
                           {"uid", uid},
                           {"controller", false},
                           {"blockOwnerDeletion", false}}});
}

Json* FindCond(Json& lookup, std::string_view type) {
  auto it = lookup.find("conditions");  // never adds the key
  if (it == lookup.end() || !it->is_array()) return nullptr;
  Json& cs = *it;
  for (Json& c : cs)
    if (engine::GetString(c, {"type"}) == type) return &c;
  return nullptr;
}

const Json* JobCondition(const Json& job, std::string_view type) {
  const Json& cs = engine::Path(job, {"status", "conditions"});
  if (!cs.is_array()) return nullptr;
  for (const Json& c : cs)
    if (engine::GetString(c, {"type"}) == type && engine::GetString(c, {"status"}) == "True") return &c;
  return nullptr;
}

absl::StatusOr<std::string> Gunzip(const std::string& in) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return absl::InternalError("zlib init failed");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  std::string out;
  char buf[16384];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof(buf);
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof(buf) - z.avail_out);
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END) return absl::DataLossError(z.msg != nullptr ? z.msg : "unexpected EOF");
  return out;
}

// The pending pods' init containers not ready, as upstream words them.
std::string PodMessages(const UnpackView& view) {
  std::string out;
  for (const Json* pod : view.pods) {
    if (engine::GetString(*pod, {"status", "phase"}) != "Pending") continue;
    const Json& inits = engine::Path(*pod, {"status", "initContainerStatuses"});
    for (const Json& c : ArrayOrEmpty(inits)) {
      const Json& ready = engine::Path(c, {"ready"});
      if (ready.is_boolean() && ready.get<bool>()) continue;
      std::string msg = StrCat("Unpack pod(", engine::GetString(*pod, {"metadata", "namespace"}), "/",
                               engine::GetString(*pod, {"metadata", "name"}), ") container(",
                               engine::GetString(c, {"name"}), ") is pending");
      const Json& waiting = engine::Path(c, {"state", "waiting"});
      if (waiting.is_object())
        StrAppend(&msg, ". Reason: ", engine::GetString(waiting, {"reason"}),
                  ", Message: ", engine::GetString(waiting, {"message"}));
      StrAppend(&out, out.empty() ? "" : " | ", msg);
    }
  }
  return out;
}

// Sets a lookup condition; its lastTransitionTime kept while status and
// reason stay (BundleUnpackResult.SetCondition).
void SetLookupCondition(Json& lookup, std::string_view type, std::string_view reason, std::string_view message,
                        int64_t now_ns) {
  Json c = Condition(type, reason, message);
  Json* old = FindCond(lookup, type);
  std::string now = engine::FormatRfc3339Seconds(now_ns);
  if (old != nullptr) {
    bool keep = engine::GetString(*old, {"status"}) == "True" && engine::GetString(*old, {"reason"}) == reason &&
                old->contains("lastTransitionTime");
    c["lastTransitionTime"] = keep ? (*old)["lastTransitionTime"] : Json(now);
    *old = std::move(c);
    return;
  }
  c["lastTransitionTime"] = now;
  if (!lookup["conditions"].is_array()) lookup["conditions"] = Json::array();
  lookup["conditions"].push_back(std::move(c));
}

void RemoveLookupCondition(Json& lookup, std::string_view type) {
  auto it = lookup.find("conditions");
  if (it == lookup.end() || !it->is_array()) return;
  Json& cs = *it;
  Json kept = Json::array();
  for (Json& c : cs)
    if (engine::GetString(c, {"type"}) != type) kept.push_back(std::move(c));
  cs = std::move(kept);
}

}  // namespace

Json NewBundleLookup(std::string_view path, std::string_view identifier, std::string_view replaces,
                     std::string_view catalog, std::string_view catalog_ns, const Json& properties) {
  std::string props = properties.is_array() && !properties.empty()
                          ? engine::Dump(Json{{"properties", properties}})
                          : std::string("{}");
  return Json{{"path", path},
              {"identifier", identifier},
              {"replaces", replaces},
              {"catalogSourceRef", Json{{"namespace", catalog_ns}, {"name", catalog}}},
              {"conditions", Json::array({Condition("BundleLookupNotPersisted", "BundleNotUnpacked",
                                                    "bundle contents have not yet been persisted to installplan status"),
                                          Condition("BundleLookupPending", "JobNotStarted",
                                                    "unpack job not yet started")})},
              {"properties", props}};
}

std::string UnpackName(std::string_view path) { return recon::Sha256Hex(path).substr(0, 63); }

int64_t UnpackTimeout(const Json& ip, int64_t default_ns) {
  const Json& a = engine::Path(ip, {"metadata", "annotations", "operatorframework.io/bundle-unpack-timeout"});
  if (!a.is_string()) return default_ns;
  auto d = engine::ParseDurationNs(a.get<std::string>());
  return d.ok() && *d >= 0 ? *d : default_ns;
}

Json UnpackConfigMap(std::string_view path, const Json& catalog) {
  return Json{{"apiVersion", "v1"},
              {"kind", "ConfigMap"},
              {"metadata", Json{{"name", UnpackName(path)},
                                {"namespace", engine::GetString(catalog, {"metadata", "namespace"})},
                                {"labels", Json{{"olm.managed", "true"}}},
                                {"ownerReferences",
                                 OwnedBy("operators.coreos.com/v1alpha1", "CatalogSource",
                                         engine::GetString(catalog, {"metadata", "name"}),
                                         engine::GetString(catalog, {"metadata", "uid"}))}}}};
}

Json UnpackRole(std::string_view path, std::string_view ns, std::string_view cm_uid) {
  std::string name = UnpackName(path);
  return Json{{"apiVersion", StrCat(kRbacGroup, "/v1")},
              {"kind", "Role"},
              {"metadata", Json{{"name", name},
                                {"namespace", ns},
                                {"ownerReferences", OwnedBy("v1", "ConfigMap", name, cm_uid)}}},
              {"rules", Json::array({Json{{"apiGroups", Json::array({""})},
                                          {"resources", Json::array({"configmaps"})},
                                          {"resourceNames", Json::array({name})},
                                          {"verbs", Json::array({"create", "get", "update"})}}})}};
}

Json UnpackRoleBinding(std::string_view path, std::string_view ns, std::string_view cm_uid) {
  std::string name = UnpackName(path);
  return Json{{"apiVersion", StrCat(kRbacGroup, "/v1")},
              {"kind", "RoleBinding"},
              {"metadata", Json{{"name", name},
                                {"namespace", ns},
                                {"ownerReferences", OwnedBy("v1", "ConfigMap", name, cm_uid)}}},
              {"subjects", Json::array({Json{{"kind", "ServiceAccount"}, {"name", "default"}, {"namespace", ns}}})},
              {"roleRef", Json{{"apiGroup", kRbacGroup}, {"kind", "Role"}, {"name", name}}}};
}

Json UnpackJob(std::string_view path, const Json& catalog, std::string_view cm_uid, const UnpackOptions& options,
               int64_t timeout_ns) {
  const std::string name = UnpackName(path);
  const std::string ns = engine::GetString(catalog, {"metadata", "namespace"});
  const Json resources = Json{{"requests", Json{{"cpu", "10m"}, {"memory", "50Mi"}}}};
  const Json security =
      Json{{"allowPrivilegeEscalation", false}, {"capabilities", Json{{"drop", Json::array({"ALL"})}}}};
  auto container = [&](std::string_view cname, std::string_view image, Json command, Json mounts) {
    return Json{{"name", cname},          {"image", image},         {"command", std::move(command)},
                {"volumeMounts", mounts}, {"resources", resources}, {"securityContext", security}};
  };
  Json util = container("util", options.util_image, Json::array({"/bin/cp", "-Rv", "/bin/cpb", "/util/cpb"}),
                        Json::array({Json{{"name", "util"}, {"mountPath", "/util"}}}));
  Json pull = container("pull", path, Json::array({"/util/cpb", "/bundle"}),
                        Json::array({Json{{"name", "bundle"}, {"mountPath", "/bundle"}},
                                     Json{{"name", "util"}, {"mountPath", "/util"}}}));
  pull["imagePullPolicy"] = path.find('@') != std::string_view::npos ? "IfNotPresent" : "Always";
  Json extract = container("extract", options.opm_image,
                           Json::array({"opm", "alpha", "bundle", "extract", "-m", "/bundle/", "-n", ns, "-c", name, "-z"}),
                           Json::array({Json{{"name", "bundle"}, {"mountPath", "/bundle"}}}));
  extract["env"] = Json::array({Json{{"name", "CONTAINER_IMAGE"}, {"value", path}}});
  Json pull_secrets = Json::array();
  const Json& secrets = engine::Path(catalog, {"spec", "secrets"});
  for (const Json& s : ArrayOrEmpty(secrets)) pull_secrets.push_back(Json{{"name", s}});
  Json pod_spec = Json{{"restartPolicy", "Never"},
                       {"imagePullSecrets", pull_secrets},
                       {"securityContext", Json{{"seccompProfile", Json{{"type", "RuntimeDefault"}}}}},
                       {"initContainers", Json::array({util, pull})},
                       {"containers", Json::array({extract})},
                       {"volumes", Json::array({Json{{"name", "bundle"}, {"emptyDir", Json::object()}},
                                                Json{{"name", "util"}, {"emptyDir", Json::object()}}})}};
  Json spec = Json{{"backoffLimit", 3}, {"template", Json{{"metadata", Json{{"name", name}}}, {"spec", pod_spec}}}};
  if (timeout_ns > 0) spec["activeDeadlineSeconds"] = timeout_ns / 1'000'000'000;
  return Json{{"apiVersion", "batch/v1"},
              {"kind", "Job"},
              {"metadata", Json{{"name", name},
                                {"namespace", ns},
                                {"ownerReferences", OwnedBy("v1", "ConfigMap", name, cm_uid)}}},
              {"spec", std::move(spec)}};
}

absl::StatusOr<std::vector<Json>> LoadBundleConfigMap(const Json& cm) {
  const bool gzipped =
      engine::GetString(cm, {"metadata", "annotations", "olm.contentEncoding"}) == "gzip+base64";
  const Json& entries = engine::Path(cm, {gzipped ? "binaryData" : "data"});
  if (!entries.is_object()) return std::vector<Json>{};
  std::map<std::string, std::string> texts;  // key order: deterministic
  for (auto it = entries.begin(); it != entries.end(); ++it) {
    if (!it.value().is_string()) continue;
    std::string text = it.value().get<std::string>();
    if (gzipped) {
      // binaryData holds bytes (base64 on the wire) that are base64 of gzip.
      std::string once, twice;
      if (!absl::Base64Unescape(text, &once) || !absl::Base64Unescape(once, &twice))
        return absl::DataLossError(StrCat("failed to extract bundle from configmap - error decoding gzip-encoded "
                                          "bundle data: illegal base64 data in ", it.key()));
      auto plain = Gunzip(twice);
      if (!plain.ok())
        return absl::DataLossError(StrCat("failed to extract bundle from configmap - error decoding gzip-encoded "
                                          "bundle data: ", plain.status().message()));
      text = *std::move(plain);
    }
    texts[it.key()] = std::move(text);
  }
  std::vector<Json> out;
  for (const auto& [key, text] : texts) {
    // The first document only, YAML or JSON, as upstream's decoder reads it.
    auto docs = crd::YamlDocumentsToJson(text, key);
    if (!docs.ok() || docs->empty()) continue;
    Json& j = docs->front();
    if (!j.is_object() || engine::GetString(j, {"kind"}).empty()) continue;
    out.push_back(std::move(j));
  }
  return out;
}

absl::StatusOr<BundleContent> LookupContent(const Json& lookup, const std::vector<Json>& objects) {
  BundleContent b;
  for (const Json& o : objects) {
    if (engine::GetString(o, {"kind"}) == "ClusterServiceVersion" && b.csv.is_null()) b.csv = o;
    b.objects.push_back(o);
  }
  if (b.csv.is_null()) return absl::InvalidArgumentError("unexpected end of JSON input");
  std::string props = engine::GetString(lookup, {"properties"});
  if (!props.empty()) {
    auto p = engine::ParseJson(props);
    if (!p.ok())
      return absl::InvalidArgumentError(StrCat("failed to load bundle properties for \"",
                                               engine::GetString(lookup, {"identifier"}), "\": ", p.status().message()));
    const Json& list = engine::Path(*p, {"properties"});
    b.properties = ArrayOrEmpty(list);
  }
  b.replaces = engine::GetString(lookup, {"replaces"});
  b.catalog = engine::GetString(lookup, {"catalogSourceRef", "name"});
  b.catalog_ns = engine::GetString(lookup, {"catalogSourceRef", "namespace"});
  return b;
}

LookupAdvance AdvanceLookup(const Json& lookup, const UnpackView& view, int64_t now_ns) {
  LookupAdvance out;
  out.lookup = lookup;
  Json& l = out.lookup;
  if (const Json* failed = FindCond(l, "BundleLookupFailed");
      failed != nullptr && engine::GetString(*failed, {"status"}) == "True") {
    out.failed = true;
    return out;
  }
  const Json* pending = FindCond(l, "BundleLookupPending");
  if (pending == nullptr || engine::GetString(*pending, {"status"}) != "True") return out;  // unpacked before
  const std::string catalog = engine::GetString(l, {"catalogSourceRef", "name"});
  if (view.catalog == nullptr) {
    if (engine::GetString(*pending, {"reason"}) != "CatalogSourceMissing") {
      SetLookupCondition(l, "BundleLookupPending", "CatalogSourceMissing", "referenced catalogsource not found", now_ns);
    } else {
      out.error = absl::NotFoundError(StrCat("catalogsource.operators.coreos.com \"", catalog, "\" not found"));
    }
    return out;
  }
  if (view.job == nullptr || view.configmap == nullptr) return out;  // the caller ensures them first
  if (const Json* f = JobCondition(*view.job, "Failed")) {
    Json c = Condition("BundleLookupFailed", engine::GetString(*f, {"reason"}), engine::GetString(*f, {"message"}));
    c["lastTransitionTime"] = engine::FormatRfc3339Seconds(now_ns);
    l["conditions"].push_back(std::move(c));
    out.failed = true;
    return out;
  }
  if (JobCondition(*view.job, "Complete") == nullptr) {
    std::string pods = PodMessages(view);
    SetLookupCondition(l, "BundleLookupPending", "JobIncomplete",
                       pods.empty() ? std::string("unpack job not completed")
                                    : StrCat("unpack job not completed: ", pods),
                       now_ns);
    return out;
  }
  auto objects = LoadBundleConfigMap(*view.configmap);
  if (!objects.ok()) {
    out.error = objects.status();
    return out;
  }
  if (objects->empty()) return out;  // the Job's write not seen yet
  RemoveLookupCondition(l, "BundleLookupPending");
  out.objects = *std::move(objects);
  return out;
}

}  // namespace recon::olm
