#include "domains/aro/sp_checker.h"

#include "base/strings.h"
#include "domains/aro/common.h"
#include "domains/aro/flags.h"

namespace recon::aro {
namespace {

constexpr std::string_view kType = "ServicePrincipalValid";
constexpr std::string_view kCloudErrorPrefix =
    "400: InvalidServicePrincipalCredentials: properties.servicePrincipalProfile: ";

Condition Unavailable(std::string_view err) {
  return {std::string(kType), std::string(kUnknown), "", "Validation Unavailable",
          recon::StrCat("Unable to validate: ", err)};
}

// bf96a7527b's controller: any error of the check.
Condition CheckFailed(std::string_view err) {
  return {std::string(kType), std::string(kFalse), "", "CheckFailed", std::string(err)};
}

Condition Failed(std::string_view err, bool default_credential) {
  return default_credential ? CheckFailed(err) : Unavailable(err);
}

// The Graph scope of the cluster's cloud, or "" for an unknown cloud. At
// bf96a7527b it is go-autorest's MicrosoftGraphEndpoint (with its trailing
// slash) + "/.default", as upstream sends it.
std::string GraphScope(std::string_view az_environment, bool default_credential) {
  std::string_view sep = default_credential ? "//" : "/";
  if (EqualFold(az_environment, "AzurePublicCloud"))
    return recon::StrCat("https://graph.microsoft.com", sep, ".default");
  if (EqualFold(az_environment, "AzureUSGovernmentCloud"))
    return recon::StrCat("https://graph.microsoft.us", sep, ".default");
  return "";
}

}  // namespace

Condition ServicePrincipalCondition(bool ok, std::string_view detail, std::string_view data,
                                    bool default_credential) {
  if (!ok && default_credential) return CheckFailed(detail);
  if (!ok) {
    for (std::string_view code : {"AADSTS7000215", "AADSTS7000222", "AADSTS700016"}) {
      if (detail.find(code) != std::string_view::npos) {
        return {std::string(kType), std::string(kFalse), "", "Service Principal invalid",
                std::string(detail)};
      }
    }
    return Unavailable(detail);
  }
  auto claims = engine::ParseJson(data);
  if (!claims.ok() || !claims->is_object()) {
    return Failed(recon::StrCat(kCloudErrorPrefix, "token claims missing or malformed"), default_credential);
  }
  const Json& roles = engine::Path(*claims, {"roles"});
  if (roles.is_array()) {
    for (const auto& r : roles) {
      if (r == Json("Application.ReadWrite.OwnedBy")) {
        return Failed(recon::StrCat(kCloudErrorPrefix,
                                    "The provided service principal must not have the "
                                    "Application.ReadWrite.OwnedBy permission."),
                      default_credential);
      }
    }
  }
  if (default_credential)
    return {std::string(kType), std::string(kTrue), "", "CheckDone", "service principal is valid"};
  return {std::string(kType), std::string(kTrue), "", "Validation Successful", "Service Principal is valid"};
}

void ServicePrincipalChecker::Trigger(const engine::Event& event, const engine::World& world,
                                      engine::Emit& emit, ClusterStatus& status, const Options& options) {
  if (open_) {
    dirty_ = true;
    return;
  }
  Start(event, world, emit, status, options);
}

void ServicePrincipalChecker::OnTimer(const engine::Event& event, const engine::World& world,
                                      engine::Emit& emit, ClusterStatus& status, const Options& options) {
  if (requeue_.IsStale(event.time_ns)) return;
  if (open_) {
    if (event.time_ns - start_ >= kProbeRoundDeadline) {
      return Finish(Failed("no token probe answer before the round deadline", options.sp_default_credential),
                    event, world, emit, status, options);
    }
    dirty_ = true;
    return;
  }
  Start(event, world, emit, status, options);
}

void ServicePrincipalChecker::Start(const engine::Event& event, const engine::World& world,
                                    engine::Emit& emit, ClusterStatus& status, const Options& options) {
  const engine::Object* cluster = GetCluster(world);
  if (cluster == nullptr) return;
  if (!Flags::FromCluster(cluster->json()).Enabled(kFlagCheckerEnabled)) {
    status.SetChecker("ServicePrincipalChecker", {std::string(kType), std::string(kUnknown), "", "", ""},
                      options.operator_version, event, world, emit);
    requeue_.Forget();
    return;
  }
  open_ = true;
  dirty_ = false;
  start_ = event.time_ns;
  round_ = event.seq;
  std::string env = engine::GetString(cluster->json(), {"spec", "azEnvironment"});
  target_ = GraphScope(env, options.sp_default_credential);
  if (target_.empty()) {
    return Finish(Failed(recon::StrCat("cloud environment \"", env, "\" is unsupported by ARO"),
                         options.sp_default_credential),
                  event, world, emit, status, options);
  }
  emit.Probe(kSpProbe, target_);
  requeue_.Deadline(emit, event.time_ns + kProbeRoundDeadline);
}

bool ServicePrincipalChecker::OnProbe(const engine::Event& event, const engine::World& world,
                                      engine::Emit& emit, ClusterStatus& status, const Options& options) {
  if (event.probe != kSpProbe) return false;
  if (!open_ || event.target != target_) return true;  // a closed round's answer
  Finish(ServicePrincipalCondition(event.ok, event.detail, event.data, options.sp_default_credential), event,
         world, emit, status, options);
  return true;
}

void ServicePrincipalChecker::Finish(const Condition& c, const engine::Event& event,
                                     const engine::World& world, engine::Emit& emit, ClusterStatus& status,
                                     const Options& options) {
  open_ = false;
  status.SetChecker("ServicePrincipalChecker", c, options.operator_version, event, world, emit);
  bool success = c.status == kTrue;
  if (dirty_) {
    if (success) {
      requeue_.Forget();
    } else {
      requeue_.CountFailure();
    }
    return Start(event, world, emit, status, options);
  }
  if (success) {
    requeue_.After(emit, event.time_ns, kHour);
  } else {
    requeue_.Backoff(emit, event.time_ns);
  }
}

Json ServicePrincipalChecker::ToJson() const {
  Json j = {{"open", open_},
            {"dirty", dirty_},
            {"start", start_},
            {"target", target_},
            {"requeue", requeue_.ToJson()}};
  if (round_ != 0) j["round"] = round_;  // only when set: earlier snapshots read back the same
  return j;
}

void ServicePrincipalChecker::FromJson(const Json& j) {
  *this = ServicePrincipalChecker();
  if (!j.is_object()) return;
  open_ = engine::Path(j, {"open"}) == Json(true);
  dirty_ = engine::Path(j, {"dirty"}) == Json(true);
  const Json& start = engine::Path(j, {"start"});
  start_ = start.is_number_integer() ? start.get<int64_t>() : 0;
  target_ = Str(j, "target");
  round_ = U64(j, "round");
  requeue_.FromJson(engine::Path(j, {"requeue"}));
}

}  // namespace recon::aro
