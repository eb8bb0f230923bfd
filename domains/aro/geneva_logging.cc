#include "domains/aro/geneva_logging.h"

#include <cstdio>

#include "base/strings.h"
#include "domains/aro/common.h"
#include "domains/aro/flags.h"

namespace recon::aro {
namespace {

constexpr std::string_view kName = "GenevaLogging";

std::string Key(std::string_view kind, std::string_view ns, std::string_view name) {
  return recon::StrCat(kind, "/", ns, "/", name);
}

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

// The release from ClusterVersion history: first Completed entry, else the first.
absl::StatusOr<std::pair<int, int>> ClusterMinor(const engine::World& world) {
  const engine::Object* cv = world.Get("config.openshift.io", "ClusterVersion", "", "version");
  if (cv == nullptr) return absl::NotFoundError("clusterversions.config.openshift.io \"version\" not found");
  const Json& history = engine::Path(cv->json(), {"status", "history"});
  if (!history.is_array() || history.empty())
    return absl::FailedPreconditionError("unknown cluster version: empty history");
  std::string version = Str(history[0], "version");
  for (const auto& h : history) {
    if (Str(h, "state") == "Completed") {
      version = Str(h, "version");
      break;
    }
  }
  int major = 0, minor = 0;
  if (std::sscanf(version.c_str(), "%d.%d", &major, &minor) != 2) {
    return absl::InvalidArgumentError(recon::StrCat("unknown cluster version: \"", version, "\""));
  }
  return std::make_pair(major, minor);
}

std::string Image(const Flags& flags, std::string_view flag, const std::string& fallback) {
  std::string v = flags.GetWithDefault(flag, "");
  return v.empty() ? fallback : v;
}

// Every field of `want` is in `have` with the same value (the API server
// adds defaults, so `have` may hold more).
bool Subset(const Json& want, const Json& have) {
  if (want.is_object()) {
    if (!have.is_object()) return false;
    for (auto it = want.begin(); it != want.end(); ++it) {
      auto h = have.find(it.key());
      if (h == have.end() || !Subset(it.value(), *h)) return false;
    }
    return true;
  }
  if (want.is_array()) {
    if (!have.is_array() || have.size() != want.size()) return false;
    for (size_t i = 0; i < want.size(); ++i) {
      if (!Subset(want[i], have[i])) return false;
    }
    return true;
  }
  return want == have;
}

}  // namespace

absl::StatusOr<std::vector<Json>> GenevaDesiredObjects(const engine::World& world,
                                                       const engine::Object& cluster) {
  const Json& spec = engine::Path(cluster.json(), {"spec"});
  Flags flags = Flags::FromCluster(cluster.json());
  const engine::Object* certs = world.Get("", "Secret", "openshift-azure-operator", "cluster");
  if (certs == nullptr) return absl::NotFoundError("secrets \"cluster\" not found");
  const engine::Object* privileged =
      world.Get("security.openshift.io", "SecurityContextConstraints", "", "privileged");
  if (privileged == nullptr) {
    return absl::NotFoundError("securitycontextconstraints.security.openshift.io \"privileged\" not found");
  }
  auto minor = ClusterMinor(world);
  if (!minor.ok()) return minor.status();

  std::vector<Json> out;
  Json scc = privileged->json();
  scc.erase("status");
  scc["metadata"] = Meta("", "privileged-genevalogging", cluster);
  scc["users"] = Json::array({recon::StrCat("system:serviceaccount:", kLoggingNamespace, ":geneva")});
  scc["groups"] = Json::array();
  out.push_back(std::move(scc));

  Json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", Meta("", kLoggingNamespace, cluster)}};
  ns["metadata"]["annotations"] = {{"openshift.io/node-selector", ""}};
  if (*minor >= std::make_pair(4, 11)) {
    ns["metadata"]["labels"] = {{"pod-security.kubernetes.io/enforce", "privileged"},
                                {"pod-security.kubernetes.io/audit", "privileged"},
                                {"pod-security.kubernetes.io/warn", "privileged"}};
  }
  out.push_back(std::move(ns));

  // The real fluent-bit configuration is not part of the reference; this
  // is a placeholder with the same keys.
  out.push_back({{"apiVersion", "v1"},
                 {"kind", "ConfigMap"},
                 {"metadata", Meta(kLoggingNamespace, "fluent-config", cluster)},
                 {"data",
                  {{"fluent.conf", "[INPUT]\n    Name tail\n    Path /var/log/containers/*.log\n"},
                   {"parsers.conf", "[PARSER]\n    Name crio\n    Format regex\n"}}}});
  out.push_back({{"apiVersion", "v1"},
                 {"kind", "Secret"},
                 {"metadata", Meta(kLoggingNamespace, "certificates", cluster)},
                 {"data",
                  {{"gcscert.pem", engine::GetString(certs->json(), {"data", "gcscert.pem"})},
                   {"gcskey.pem", engine::GetString(certs->json(), {"data", "gcskey.pem"})}}}});
  out.push_back({{"apiVersion", "v1"},
                 {"kind", "ServiceAccount"},
                 {"metadata", Meta(kLoggingNamespace, "geneva", cluster)}});

  std::string acr = Str(spec, "acrDomain");
  std::string env = flags.GetWithDefault("aro.environment", "");
  Json privileged_ctx = {{"privileged", true}};
  Json fluentbit = {{"name", "fluentbit"},
                    {"image", Image(flags, "aro.genevalogging.fluentbit.pullSpec",
                                    recon::StrCat(acr, "/fluentbit:latest"))},
                    {"env", Json::array({{{"name", "ENVIRONMENT"}, {"value", env}}})},
                    {"securityContext", privileged_ctx}};
  Json mdsd = {
      {"name", "mdsd"},
      {"image", Image(flags, "aro.genevalogging.mdsd.pullSpec", recon::StrCat(acr, "/genevamdsd:latest"))},
      {"env", Json::array({{{"name", "MONITORING_GCS_REGION"}, {"value", Str(spec, "location")}},
                           {{"name", "MONITORING_ROLE"}, {"value", "cluster"}},
                           {{"name", "RESOURCE_ID"}, {"value", Lower(Str(spec, "resourceId"))}},
                           {{"name", "MONITORING_ENVIRONMENT"}, {"value", env}}})},
      {"securityContext", privileged_ctx}};
  out.push_back({{"apiVersion", "apps/v1"},
                 {"kind", "DaemonSet"},
                 {"metadata", Meta(kLoggingNamespace, "mdsd", cluster)},
                 {"spec",
                  {{"selector", {{"matchLabels", {{"app", "mdsd"}}}}},
                   {"template",
                    {{"metadata", {{"labels", {{"app", "mdsd"}}}}},
                     {"spec",
                      {{"serviceAccountName", "geneva"},
                       {"tolerations", Json::array({{{"effect", "NoExecute"}, {"operator", "Exists"}},
                                                    {{"effect", "NoSchedule"}, {"operator", "Exists"}}})},
                       {"containers", Json::array({fluentbit, mdsd})}}}}}}}});
  return out;
}

bool GenevaLogging::OwnsObject(std::string_view group, std::string_view kind, std::string_view ns,
                               std::string_view name) {
  if (group == "security.openshift.io" && kind == "SecurityContextConstraints")
    return name == "privileged-genevalogging";
  if (group.empty() && kind == "Namespace") return name == kLoggingNamespace;
  if (ns != kLoggingNamespace) return false;
  return (group.empty() && kind == "ConfigMap" && name == "fluent-config") ||
         (group.empty() && kind == "Secret" && name == "certificates") ||
         (group.empty() && kind == "ServiceAccount" && name == "geneva") ||
         (group == "apps" && kind == "DaemonSet" && name == "mdsd");
}

bool GenevaLogging::Owns(const engine::Event& event) {
  return OwnsObject(event.group, event.kind, event.ns, event.name);
}

void GenevaLogging::OnOwnedEvent(const engine::Event& event, const engine::World& world, engine::Emit& emit,
                                 ClusterStatus& status) {
  Reconcile(event, world, emit, status);
}

void GenevaLogging::OnTimer(const engine::Event& event, const engine::World& world, engine::Emit& emit,
                            ClusterStatus& status) {
  if (requeue_.IsStale(event.time_ns)) return;
  Reconcile(event, world, emit, status);
}

void GenevaLogging::Reconcile(const engine::Event& event, const engine::World& world, engine::Emit& emit,
                              ClusterStatus& status) {
  const engine::Object* cluster = GetCluster(world);
  if (cluster == nullptr || !Flags::FromCluster(cluster->json()).Enabled(kFlagGenevaEnabled)) return;
  auto desired = GenevaDesiredObjects(world, *cluster);
  if (!desired.ok()) {
    status.SetController(
        "GenevaLogging",
        {{"GenevaLoggingControllerDegraded", "True", "", "", std::string(Sv(desired.status().message()))}},
        event, world, emit);
    requeue_.Backoff(emit, event.time_ns);
    return;
  }
  for (const Json& want : *desired) {
    std::string api = Str(want, "apiVersion");
    std::string group = api.find('/') == std::string::npos ? "" : api.substr(0, api.find('/'));
    std::string kind = Str(want, "kind");
    std::string ns = engine::GetString(want, {"metadata", "namespace"});
    std::string name = engine::GetString(want, {"metadata", "name"});
    const engine::Object* have = world.Get(group, kind, ns, name);
    // Our write not shown by the world yet (engine/write_tracker.h): its
    // echo reconciles again (a second create would fail AlreadyExists).
    if (world.writes().Pending(kDomain, group, kind, ns, name) != nullptr) continue;
    if (have == nullptr) {
      emit.Create(want);
      continue;
    }
    if (Subset(want, have->json())) continue;
    Json next = have->json();
    for (auto it = want.begin(); it != want.end(); ++it) {
      if (it.key() == "metadata") {
        for (auto m = it.value().begin(); m != it.value().end(); ++m) next["metadata"][m.key()] = m.value();
      } else {
        next[it.key()] = it.value();
      }
    }
    emit.Update(next);
  }
  std::vector<Condition> clear = {{std::string(kName) + "ControllerAvailable", "True", "", "", ""},
                                  {std::string(kName) + "ControllerProgressing", "False", "", "", ""},
                                  {std::string(kName) + "ControllerDegraded", "False", "", "", ""}};
  status.SetController("GenevaLogging", clear, event, world, emit);
  requeue_.Forget();
}

bool GenevaLogging::OnActionResult(const engine::Event& event, const engine::World& world, engine::Emit& emit,
                                   ClusterStatus& status) {
  const engine::TrackedWrite* w = world.writes().answered();
  if (w == nullptr || w->domain != kDomain || !OwnsObject(w->group, w->kind, w->ns, w->name)) return false;
  std::string key = Key(w->kind, w->ns, w->name);
  if (event.ok) {
    write_failures_ = 0;
    return true;
  }
  std::string error = event.error.empty() ? "write failed" : std::string(event.error);
  status.SetController("GenevaLogging",
                       {{"GenevaLoggingControllerDegraded", "True", "", "", recon::StrCat(key, ": ", error)}},
                       event, world, emit);
  // Counted apart from the requeue's failures, which every reconcile that
  // gets as far as writing resets.
  requeue_.Deadline(emit, event.time_ns + BackoffNs(write_failures_++));
  return true;
}

Json GenevaLogging::ToJson() const {
  Json j = {{"requeue", requeue_.ToJson()}};
  if (write_failures_ != 0) j["writeFailures"] = write_failures_;
  return j;
}

void GenevaLogging::FromJson(const Json& j) {
  // "created" and "writes" of snapshots before issue 19 are ignored: the
  // engine's write tracker holds our writes now.
  *this = GenevaLogging();
  requeue_.FromJson(engine::Path(j, {"requeue"}));
  const Json& failures = engine::Path(j, {"writeFailures"});
  if (failures.is_number_integer()) write_failures_ = failures.get<int>();
}

}  // namespace recon::aro
