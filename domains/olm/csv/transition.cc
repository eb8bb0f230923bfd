#include "domains/olm/csv/transition.h"

#include <optional>
#include <utility>

#include "base/strings.h"
#include "engine/time_format.h"

namespace recon::olm {
namespace {

using engine::Json;

// The reasons a failed gate leaves; once the gates pass, the CSV starts over.
bool GateReason(std::string_view reason) {
  return reason == "NoTargetNamespaces" || reason == "NoOperatorGroup" || reason == "TooManyOperatorGroups" ||
         reason == "UnsupportedOperatorGroup";
}

// A CSV Failed at a gate that now passes starts over (the phase table's
// Failed rows): the message upstream gives, per reason; nullopt for others.
std::optional<std::string> StartOver(std::string_view reason) {
  if (GateReason(reason)) return "InstallModes now support target namespaces";
  if (reason == "InterOperatorGroupOwnerConflict")
    return "OperatorGroup no longer intersecting with conflicting owner";
  if (reason == "CannotModifyStaticOperatorGroupProvidedAPIs")
    return "static OperatorGroup and intersecting groups now support providedAPIs";
  return std::nullopt;
}

const DeploymentDrift* FirstDrift(const CsvSyncInputs& in) {
  for (const auto& d : in.deployments) {
    if (d) return &*d;
  }
  return nullptr;
}

bool Reinstall(const DeploymentDrift& d) {
  return d.cls == DeploymentDriftClass::kDeploymentUpdated ||
         d.cls == DeploymentDriftClass::kAnnotationsMissing;
}

class Stepper {
 public:
  explicit Stepper(CsvStep& s) : s_(s) {}
  CsvStep& Set(std::string phase, std::string reason, std::string message, bool if_changed) {
    s_.phase = CsvPhase{std::move(phase), std::move(reason), std::move(message)};
    s_.if_changed = if_changed;
    return s_;
  }
  CsvStep& Stay(std::string note) {
    s_.note = std::move(note);
    return s_;
  }

 private:
  CsvStep& s_;
};

// §B.3.4 from Installing, Succeeded or Failed: healthy, or the calling
// phase's row for the first failure.
CsvStep& InstallCheck(Stepper& st, const CsvSyncInputs& in, std::string_view phase) {
  const DeploymentDrift* d = FirstDrift(in);
  if (d == nullptr)
    return st.Set("Succeeded", "InstallSucceeded", "install strategy completed with no errors", true);
  if (d->cls == DeploymentDriftClass::kUnrecoverable) {
    return st.Set("Failed", "InstallCheckFailed", StrCat("install failed: ", d->message), true);
  }
  std::string installing = StrCat("installing: ", d->message);
  if (phase == "Installing") {
    return Reinstall(*d) ? st.Set("InstallReady", "InstallWaiting", installing, true)
                         : st.Set("Installing", "InstallWaiting", installing, true);
  }
  if (phase == "Succeeded") {
    return Reinstall(*d) ? st.Set("InstallReady", "ComponentUnhealthy", installing, true)
                         : st.Set("Failed", "ComponentUnhealthy", installing, true);
  }
  return Reinstall(*d) ? st.Set("InstallReady", "NeedsReinstall", installing, true)
                       : st.Set("Pending", "NeedsReinstall", installing, true);
}

// §B.1.4's outcome; nullopt: the sync goes on. Upstream's AddAPIs also
// writes the group's annotation and ends the sync; recon's group sync
// writes it (operator_group.cc WriteProvidedApis) and the CSV goes on.
std::optional<CsvStep> ApiGate(Stepper& st, CsvStep& s, ApiReconcile apis, bool static_group,
                               const std::string& reason) {
  const bool failed_already = reason == "InterOperatorGroupOwnerConflict";
  const bool fail_static =
      static_group && (apis == ApiReconcile::kAddApis || apis == ApiReconcile::kRemoveApis);
  if (apis == ApiReconcile::kConflict || fail_static) {
    if (failed_already) return st.Stay("its APIs still conflict with an intersecting OperatorGroup's");
    s.delete_deployments = true;
    return fail_static ? st.Set("Failed", "CannotModifyStaticOperatorGroupProvidedAPIs",
                                "static provided api operatorgroup cannot be modified by these apis", false)
                       : st.Set("Failed", "InterOperatorGroupOwnerConflict",
                                "intersecting operatorgroups provide the same apis", false);
  }
  if (apis == ApiReconcile::kRemoveApis) {
    s.remove_apis = true;
    return st.Stay(
        "an intersecting OperatorGroup provides its APIs: taken out of its group's olm.providedAPIs");
  }
  return std::nullopt;
}

}  // namespace

CsvStep NextCsvStep(const Json& csv, const CsvSyncInputs& in) {
  CsvStep s;
  Stepper st(s);
  const std::string phase = engine::GetString(csv, {"status", "phase"});
  const std::string reason = engine::GetString(csv, {"status", "reason"});
  const std::string name = engine::GetString(csv, {"metadata", "name"});
  // §B.2.2 gates.
  if (reason == "InstallComponentFailedNoRetry")
    return st.Stay("failed for good (InstallComponentFailedNoRetry)");
  if (in.groups == 0)
    return st.Set("Failed", "NoOperatorGroup", "csv in namespace with no operatorgroups", false);
  if (in.groups > 1) {
    if (reason == "TooManyOperatorGroups") return st.Stay("more than one OperatorGroup in the namespace");
    return st.Set("Failed", "TooManyOperatorGroups",
                  "csv created in namespace with multiple operatorgroups, can't pick one automatically",
                  false);
  }
  if (!in.annotated) return st.Stay("waits for its OperatorGroup's annotations");
  if (in.install_modes) return st.Set("Failed", in.install_modes->reason, in.install_modes->message, true);
  if (in.apis) {
    if (std::optional<CsvStep> s2 = ApiGate(st, s, *in.apis, in.static_group, reason)) return *s2;
  }

  const bool strategy_ok = engine::GetString(csv, {"spec", "install", "strategy"}) == "deployment";
  const RequirementResult& req = in.requirements;
  if (phase.empty()) return st.Set("Pending", "RequirementsUnknown", "requirements not yet checked", false);
  if (phase == "Pending") {
    // The CSV it replaces holds the upgrade (its OperatorCondition).
    if (in.replaced_phase && in.not_upgradeable)
      return st.Set("Pending", "OperatorConditionNotUpgradeable",
                    StrCat("operator is not upgradeable: ", *in.not_upgradeable), true);
    if (req.invalid)
      return st.Set("Failed", "InvalidInstallStrategy", StrCat("install strategy invalid: ", *req.invalid),
                    false);
    s.store_requirements = true;
    if (!req.met)
      return st.Set("Pending", "RequirementsNotMet", "one or more requirements couldn't be found", true);
    if (in.replaced_phase && *in.replaced_phase != "Replacing") {
      return st.Stay(StrCat("waits for ", engine::GetString(csv, {"spec", "replaces"}), " to be Replacing"));
    }
    return st.Set("InstallReady", "AllRequirementsMet", "all requirements found, attempting install", false);
  }
  if ((phase == "InstallReady" || phase == "Installing" || phase == "Succeeded" || phase == "Failed") &&
      !strategy_ok) {
    return st.Set("Failed", "InvalidInstallStrategy",
                  "install strategy invalid: unrecognized install strategy", false);
  }
  if (phase == "InstallReady") {
    s.install = true;
    return st.Set("Installing", "InstallSucceeded", "waiting for install components to report healthy",
                  false);
  }
  if (phase == "Installing" && in.install_failed) {
    // Upstream installs at InstallReady and fails there; recon's writes
    // are answered after the CSV moved on, so the failure lands here.
    return st.Set("Failed", "ComponentFailed", StrCat("install strategy failed: ", *in.install_failed),
                  false);
  }
  if (phase == "Installing") {
    CsvStep& checked = InstallCheck(st, in, phase);
    if (!checked.phase || checked.phase->phase != "Installing" || in.now_ns == 0) return checked;
    // Still not ready: five minutes after the last transition the install
    // has timed out (upstream's check after a failed install check).
    auto since = engine::ParseRfc3339(engine::GetString(csv, {"status", "lastTransitionTime"}));
    if (!since.ok()) return checked;
    if (in.now_ns - *since >= kCsvInstallTimeoutNs)
      return st.Set("Failed", "InstallCheckFailed", "install timeout", false);
    checked.wake_at_ns = *since + kCsvInstallTimeoutNs;
    return checked;
  }
  if (phase == "Succeeded") {
    if (in.replacement) {
      return st.Set("Replacing", "BeingReplaced", StrCat("being replaced by csv: ", *in.replacement), false);
    }
    if (req.invalid)
      return st.Set("Failed", "InvalidInstallStrategy", StrCat("install strategy invalid: ", *req.invalid),
                    false);
    if (!req.met) {
      s.store_requirements = true;
      return st.Set("Failed", "RequirementsNotMet", "requirements no longer met", false);
    }
    if (FirstDrift(in) == nullptr) {
      s.cluster_roles = true;
      return st.Stay("healthy");
    }
    return InstallCheck(st, in, phase);
  }
  if (phase == "Failed") {
    if (std::optional<std::string> m = StartOver(reason))
      return st.Set("Pending", "RequirementsUnknown", *m, false);
    if (req.invalid && reason != "InvalidInstallStrategy") {
      return st.Set("Failed", "InvalidInstallStrategy", StrCat("install strategy invalid: ", *req.invalid),
                    false);
    }
    if (req.invalid || !req.met) {
      s.store_requirements = true;
      return st.Set("Pending", "RequirementsNotMet", "requirements not met", false);
    }
    return InstallCheck(st, in, phase);
  }
  if (phase == "Replacing") {
    if (in.replaced_phase)
      return st.Stay(StrCat("waits for ", engine::GetString(csv, {"spec", "replaces"}), " to go"));
    if (!in.replacement) return st.Stay("marked as replacement, but no replacement CSV found in cluster");
    if (in.replacement_phase != "Succeeded")
      return st.Stay(StrCat("waits for ", *in.replacement, " to succeed"));
    return st.Set("Deleting", "Replaced",
                  "has been replaced by a newer ClusterServiceVersion that has successfully installed.",
                  false);
  }
  if (phase == "Deleting") {
    s.remove = true;
    return st.Stay(StrCat(name, " replaced: deleted"));
  }
  return st.Stay(StrCat("phase ", phase, " is not one the olm operator moves"));
}

}  // namespace recon::olm
