#include "domains/aro/geneva_objects.h"

#include <array>
#include <cstdint>
#include <map>
#include <regex>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "base/strings.h"
#include "domains/aro/common.h"
#include "domains/aro/flags.h"
#include "domains/aro/geneva_config.h"

namespace recon::aro {
namespace {

constexpr std::string_view kCertsView = "aro/geneva-certificates";

Json OwnerRef(const engine::Object& cluster) {
  return Json::array({{{"apiVersion", "aro.openshift.io/v1alpha1"},
                       {"kind", "Cluster"},
                       {"name", "cluster"},
                       {"uid", engine::GetString(cluster.json(), {"metadata", "uid"})},
                       {"controller", true},
                       {"blockOwnerDeletion", true}}});
}

Json Meta(std::string_view ns, std::string_view name, const engine::Object& cluster) {
  Json md = {{"name", name}};
  if (!ns.empty()) md["namespace"] = ns;
  md["ownerReferences"] = OwnerRef(cluster);
  return md;
}

// Whether the cluster's release (ClusterVersion history: the first
// Completed entry, else the first) is at least 4.11.0: pod-security
// labels then (upstream's ShouldUsePodSecurityStandard). Errors as
// upstream's version package words them.
absl::StatusOr<bool> UsePodSecurity(const engine::World& world) {
  const engine::Object* cv = world.Get("config.openshift.io", "ClusterVersion", "", "version");
  if (cv == nullptr) return absl::NotFoundError("clusterversions.config.openshift.io \"version\" not found");
  const Json& history = engine::Path(cv->json(), {"status", "history"});
  if (!history.is_array() || history.empty()) return absl::FailedPreconditionError("unknown cluster version");
  std::string version = Str(history[0], "version");
  for (const auto& h : history) {
    if (Str(h, "state") == "Completed") {
      version = Str(h, "version");
      break;
    }
  }
  static const std::regex kVersion(R"(^(\d+)\.(\d+)\.(\d+)(.*))");
  std::string trimmed(absl::StripAsciiWhitespace(version));
  std::smatch m;
  if (!std::regex_search(trimmed, m, kVersion)) {
    return absl::InvalidArgumentError(recon::StrCat("could not parse version \"", version, "\""));
  }
  std::array<uint64_t, 3> v{};
  for (int i = 0; i < 3; ++i) {
    if (!absl::SimpleAtoi(m[i + 1].str(), &v[i]) || v[i] > UINT32_MAX) {
      return absl::InvalidArgumentError(recon::StrCat("could not parse version \"", version, "\""));
    }
  }
  return v >= std::array<uint64_t, 3>{4, 11, 0};
}

// go-autorest's azure.ParseResourceID: subscription, resource group and
// the last segment of the resource name.
struct ResourceId {
  std::string subscription, group, name;
};
absl::StatusOr<ResourceId> ParseResourceId(const std::string& id) {
  static const std::regex kPattern(R"(^/subscriptions/(.+)/resourceGroups/(.+)/providers/(.+?)/(.+?)/(.+)$)",
                                   std::regex::icase);
  std::smatch m;
  if (!std::regex_search(id, m, kPattern)) {
    return absl::InvalidArgumentError(
        recon::StrCat("parsing failed for ", id, ". Invalid resource Id format"));
  }
  std::string rest = m[5].str();
  return ResourceId{m[1].str(), m[2].str(), rest.substr(rest.rfind('/') + 1)};
}

std::string Image(const Flags& flags, std::string_view flag, const std::string& fallback) {
  std::string v = flags.GetWithDefault(flag, "");
  return v.empty() ? fallback : v;
}
// An EnvVar as Go marshals it: an empty value is left out.
Json Env(std::string_view name, std::string_view value) {
  Json e = {{"name", name}};
  if (!value.empty()) e["value"] = value;
  return e;
}

Json Mount(std::string_view name, std::string_view path, bool read_only) {
  Json m = {{"mountPath", path}, {"name", name}};
  if (read_only) m["readOnly"] = true;
  return m;
}

Json HostPath(std::string_view name, std::string_view path) {
  return {{"hostPath", {{"path", path}}}, {"name", name}};
}

Json MdsdEnv(const Json& spec, const ResourceId& id) {
  const Json& gl = engine::Path(spec, {"genevaLogging"});
  std::string location = Str(spec, "location");
  return Json::array({Env("MONITORING_GCS_ENVIRONMENT", Str(gl, "monitoringGCSEnvironment")),
                      Env("MONITORING_GCS_ACCOUNT", Str(gl, "monitoringGCSAccount")),
                      Env("MONITORING_GCS_REGION", location),
                      Env("MONITORING_GCS_CERT_CERTFILE", "/etc/mdsd.d/secret/gcscert.pem"),
                      Env("MONITORING_GCS_CERT_KEYFILE", "/etc/mdsd.d/secret/gcskey.pem"),
                      Env("MONITORING_GCS_NAMESPACE", Str(gl, "monitoringGCSNamespace")),
                      Env("MONITORING_CONFIG_VERSION", Str(gl, "configVersion")),
                      Env("MONITORING_USE_GENEVA_CONFIG_SERVICE", "true"),
                      Env("MONITORING_TENANT", location),
                      Env("MONITORING_ROLE", "cluster"),
                      {{"name", "MONITORING_ROLE_INSTANCE"},
                       {"valueFrom", {{"fieldRef", {{"apiVersion", "v1"}, {"fieldPath", "spec.nodeName"}}}}}},
                      Env("MDSD_MSGPACK_ARRAY_SIZE_ITEMS", "2048"),
                      Env("RESOURCE_ID", Lower(Str(spec, "resourceId"))),
                      Env("SUBSCRIPTION_ID", Lower(id.subscription)),
                      Env("RESOURCE_GROUP", Lower(id.group)),
                      Env("RESOURCE_NAME", Lower(id.name))});
}

Json DaemonSet(const engine::Object& cluster, const ResourceId& id, const Json& certs_view) {
  const Json& spec = engine::Path(cluster.json(), {"spec"});
  Flags flags = Flags::FromCluster(cluster.json());
  std::string acr = Str(spec, "acrDomain");
  Json privileged = {{"privileged", true}, {"runAsUser", 0}};
  Json fluentbit = {{"args", Json::array({"-c", "/etc/td-agent-bit/fluent.conf"})},
                    {"command", Json::array({"/opt/td-agent-bit/bin/td-agent-bit"})},
                    {"image", Image(flags, "aro.genevalogging.fluentbit.pullSpec",
                                    recon::StrCat(acr, "/", kFluentbitImage))},
                    {"name", "fluentbit"},
                    {"resources", Json::object()},
                    {"securityContext", privileged},
                    {"volumeMounts", Json::array({Mount("fluent-config", "/etc/td-agent-bit", true),
                                                  Mount("machine-id", "/etc/machine-id", true),
                                                  Mount("log", "/var/log", true),
                                                  Mount("fluent", "/var/lib/fluent", false)})}};
  Json mdsd = {
      {"args", Json::array({"-A", "-D", "-f", "24224", "-r", "/var/run/mdsd/default"})},
      {"command", Json::array({"/usr/sbin/mdsd"})},
      {"env", MdsdEnv(spec, id)},
      {"image", Image(flags, "aro.genevalogging.mdsd.pullSpec", recon::StrCat(acr, "/", kMdsdImage))},
      {"name", "mdsd"},
      {"resources",
       {{"limits", {{"cpu", "200m"}, {"memory", "1000Mi"}}},
        {"requests", {{"cpu", "10m"}, {"memory", "100Mi"}}}}},
      {"securityContext", privileged},
      {"volumeMounts", Json::array({Mount("certificates", "/etc/mdsd.d/secret", false)})}};
  Json annotations = {
      {"checksum/configmap-fluent-config", ConfigMapHash({{"fluent.conf", std::string(FluentConf())},
                                                          {"parsers.conf", std::string(ParsersConf())}})},
      {"scheduler.alpha.kubernetes.io/critical-pod", ""}};
  if (certs_view.is_string()) annotations[std::string(kSecretChecksum)] = certs_view;
  Json pod = {
      {"containers", Json::array({fluentbit, mdsd})},
      {"serviceAccount", "geneva"},
      {"serviceAccountName", "geneva"},
      {"tolerations", Json::array({{{"effect", "NoExecute"}, {"operator", "Exists"}},
                                   {{"effect", "NoSchedule"}, {"operator", "Exists"}}})},
      {"volumes", Json::array({HostPath("log", "/var/log"),
                               HostPath("fluent", "/var/lib/fluent"),
                               {{"configMap", {{"name", "fluent-config"}}}, {"name", "fluent-config"}},
                               HostPath("machine-id", "/etc/machine-id"),
                               {{"name", "certificates"}, {"secret", {{"secretName", "certificates"}}}}})}};
  return {{"apiVersion", "apps/v1"},
          {"kind", "DaemonSet"},
          {"metadata", Meta(kLoggingNamespace, "mdsd", cluster)},
          {"spec",
           {{"selector", {{"matchLabels", {{"app", "mdsd"}}}}},
            {"template",
             {{"metadata", {{"annotations", annotations}, {"labels", {{"app", "mdsd"}}}}}, {"spec", pod}}},
            {"updateStrategy", Json::object()}}}};
}

}  // namespace

engine::SecretView GenevaCertificatesView() {
  return {"openshift-azure-operator",
          "cluster",
          std::string(kCertsView),
          engine::SecretView::Form::kConfigHash,
          {"gcscert.pem", "gcskey.pem"}};
}

absl::StatusOr<std::vector<Json>> GenevaDesiredObjects(const engine::World& world,
                                                       const engine::Object& cluster) {
  const engine::Object* certs = world.Get("", "Secret", "openshift-azure-operator", "cluster");
  if (certs == nullptr) return absl::NotFoundError("secrets \"cluster\" not found");
  const engine::Object* privileged =
      world.Get("security.openshift.io", "SecurityContextConstraints", "", "privileged");
  if (privileged == nullptr) {
    return absl::NotFoundError("securitycontextconstraints.security.openshift.io \"privileged\" not found");
  }
  auto id = ParseResourceId(engine::GetString(cluster.json(), {"spec", "resourceId"}));
  if (!id.ok()) return id.status();
  auto pod_security = UsePodSecurity(world);
  if (!pod_security.ok()) return pod_security.status();

  std::vector<Json> out;
  // A copy of the live privileged SCC under new metadata.
  Json scc = privileged->json();
  scc.erase("status");
  scc["metadata"] = Meta("", "privileged-genevalogging", cluster);
  scc["users"] = Json::array({recon::StrCat("system:serviceaccount:", kLoggingNamespace, ":geneva")});
  scc["groups"] = Json::array();
  out.push_back(std::move(scc));

  Json ns = {{"apiVersion", "v1"},
             {"kind", "Namespace"},
             {"metadata", Meta("", kLoggingNamespace, cluster)},
             {"spec", Json::object()}};
  ns["metadata"]["annotations"] = {{"openshift.io/node-selector", ""}};
  if (*pod_security) {
    ns["metadata"]["labels"] = {{"pod-security.kubernetes.io/audit", "privileged"},
                                {"pod-security.kubernetes.io/enforce", "privileged"},
                                {"pod-security.kubernetes.io/warn", "privileged"}};
  }
  out.push_back(std::move(ns));

  out.push_back({{"apiVersion", "v1"},
                 {"kind", "ConfigMap"},
                 {"metadata", Meta(kLoggingNamespace, "fluent-config", cluster)},
                 {"data", {{"fluent.conf", FluentConf()}, {"parsers.conf", ParsersConf()}}}});
  // Redacted values: the dispatcher puts the real ones back.
  out.push_back({{"apiVersion", "v1"},
                 {"kind", "Secret"},
                 {"metadata", Meta(kLoggingNamespace, "certificates", cluster)},
                 {"data",
                  {{"gcscert.pem", engine::GetString(certs->json(), {"data", "gcscert.pem"})},
                   {"gcskey.pem", engine::GetString(certs->json(), {"data", "gcskey.pem"})}}}});
  out.push_back({{"apiVersion", "v1"},
                 {"kind", "ServiceAccount"},
                 {"metadata", Meta(kLoggingNamespace, "geneva", cluster)}});
  out.push_back(DaemonSet(
      cluster, *id,
      engine::Path(certs->json(), {std::string(engine::kSecretViewsField), std::string(kCertsView)})));
  return out;
}

}  // namespace recon::aro
