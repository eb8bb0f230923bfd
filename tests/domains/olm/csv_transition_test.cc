// One CSV sync's step (domains/olm/csv/transition.h): the gates and each
// modelled row of the reference's phase table (olm-operator.md §B.2.3),
// with upstream's reasons and messages, as a table.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "domains/olm/csv/transition.h"

namespace recon::olm {
namespace {

using engine::Json;

Json Csv(std::string phase, std::string reason = "", std::string strategy = "deployment") {
  Json csv = {{"metadata", {{"name", "etcd.v2"}, {"namespace", "ops"}}},
              {"spec", {{"replaces", "etcd.v1"}, {"install", {{"strategy", strategy}}}}}};
  if (!phase.empty()) csv["status"] = {{"phase", phase}, {"reason", reason}};
  return csv;
}

// A sync whose gates pass, requirements met, Deployments healthy.
CsvSyncInputs Ok() {
  CsvSyncInputs in;
  in.groups = 1;
  in.annotated = true;
  in.deployments.push_back(std::nullopt);
  return in;
}

std::string Text(const CsvStep& s) {
  std::string out = s.phase ? s.phase->phase + "/" + s.phase->reason + ": " + s.phase->message +
                                  (s.if_changed ? " (if changed)" : "")
                            : "stay: " + s.note;
  if (s.store_requirements) out += " +requirements";
  if (s.install) out += " +install";
  if (s.remove) out += " +delete";
  return out;
}

DeploymentDrift Drift(DeploymentDriftClass cls, std::string m) { return DeploymentDrift{cls, std::move(m)}; }

TEST(CsvTransition, GatesComeFirst) {
  CsvSyncInputs none = Ok();
  none.groups = 0;
  EXPECT_EQ(Text(NextCsvStep(Csv("Succeeded"), none)),
            "Failed/NoOperatorGroup: csv in namespace with no operatorgroups");
  CsvSyncInputs two = Ok();
  two.groups = 2;
  EXPECT_EQ(
      Text(NextCsvStep(Csv(""), two)),
      "Failed/TooManyOperatorGroups: csv created in namespace with multiple operatorgroups, can't pick one "
      "automatically");
  EXPECT_EQ(Text(NextCsvStep(Csv("Failed", "TooManyOperatorGroups"), two)),
            "stay: more than one OperatorGroup in the namespace");
  CsvSyncInputs bare = Ok();
  bare.annotated = false;
  EXPECT_EQ(Text(NextCsvStep(Csv(""), bare)), "stay: waits for its OperatorGroup's annotations");
  CsvSyncInputs modes = Ok();
  modes.install_modes =
      InstallModeFailure{"UnsupportedOperatorGroup", "AllNamespaces InstallModeType not supported"};
  EXPECT_EQ(Text(NextCsvStep(Csv("Pending"), modes)),
            "Failed/UnsupportedOperatorGroup: AllNamespaces InstallModeType not supported (if changed)");
  EXPECT_EQ(Text(NextCsvStep(Csv("Failed", "InstallComponentFailedNoRetry"), none)),
            "stay: failed for good (InstallComponentFailedNoRetry)");
  // Once the gates pass, a CSV they failed starts over.
  EXPECT_EQ(Text(NextCsvStep(Csv("Failed", "NoOperatorGroup"), Ok())),
            "Pending/RequirementsUnknown: InstallModes now support target namespaces");
}

TEST(CsvTransition, PendingToInstalled) {
  struct Row {
    std::string phase;
    CsvSyncInputs in;
    std::string want;
  };
  CsvSyncInputs unmet = Ok();
  unmet.requirements.met = false;
  CsvSyncInputs invalid = Ok();
  invalid.requirements.invalid = "rule invalid: policy rule must have at least one verb";
  CsvSyncInputs waits = Ok();
  waits.replaced_phase = "Succeeded";
  CsvSyncInputs replacing = Ok();
  replacing.replaced_phase = "Replacing";
  CsvSyncInputs missing = Ok();
  missing.deployments = {std::nullopt,
                         Drift(DeploymentDriftClass::kComponentMissing, "missing deployment with name=b")};
  CsvSyncInputs waiting = Ok();
  waiting.deployments = {
      Drift(DeploymentDriftClass::kWaiting, "waiting for deployment a to become ready: x")};
  CsvSyncInputs updated = Ok();
  updated.deployments = {
      Drift(DeploymentDriftClass::kDeploymentUpdated, "deployment changed old hash=b, new hash=c")};
  CsvSyncInputs dead = Ok();
  dead.deployments = {
      Drift(DeploymentDriftClass::kUnrecoverable, "deployment a not ready before timeout: y")};
  const std::vector<Row> rows = {
      {"", Ok(), "Pending/RequirementsUnknown: requirements not yet checked"},
      {"Pending", unmet,
       "Pending/RequirementsNotMet: one or more requirements couldn't be found (if changed) +requirements"},
      {"Pending", invalid,
       "Failed/InvalidInstallStrategy: install strategy invalid: rule invalid: policy rule must have at "
       "least one verb"},
      {"Pending", waits, "stay: waits for etcd.v1 to be Replacing +requirements"},
      {"Pending", replacing,
       "InstallReady/AllRequirementsMet: all requirements found, attempting install +requirements"},
      {"Pending", Ok(),
       "InstallReady/AllRequirementsMet: all requirements found, attempting install +requirements"},
      {"InstallReady", Ok(),
       "Installing/InstallSucceeded: waiting for install components to report healthy +install"},
      {"Installing", missing,
       "Installing/InstallWaiting: installing: missing deployment with name=b (if changed)"},
      {"Installing", waiting,
       "Installing/InstallWaiting: installing: waiting for deployment a to become ready: x (if changed)"},
      {"Installing", updated,
       "InstallReady/InstallWaiting: installing: deployment changed old hash=b, new hash=c (if changed)"},
      {"Installing", dead,
       "Failed/InstallCheckFailed: install failed: deployment a not ready before timeout: y (if changed)"},
      {"Installing", Ok(),
       "Succeeded/InstallSucceeded: install strategy completed with no errors (if changed)"},
      {"Succeeded", Ok(), "stay: healthy"},
      {"Succeeded", waiting,
       "Failed/ComponentUnhealthy: installing: waiting for deployment a to become ready: x (if changed)"},
      {"Succeeded", updated,
       "InstallReady/ComponentUnhealthy: installing: deployment changed old hash=b, new hash=c (if changed)"},
      {"Succeeded", unmet, "Failed/RequirementsNotMet: requirements no longer met +requirements"},
      {"Failed", unmet, "Pending/RequirementsNotMet: requirements not met +requirements"},
      {"Failed", waiting,
       "Pending/NeedsReinstall: installing: waiting for deployment a to become ready: x (if changed)"},
      {"Failed", updated,
       "InstallReady/NeedsReinstall: installing: deployment changed old hash=b, new hash=c (if changed)"},
      {"Failed", Ok(), "Succeeded/InstallSucceeded: install strategy completed with no errors (if changed)"},
  };
  for (const Row& r : rows) EXPECT_EQ(Text(NextCsvStep(Csv(r.phase), r.in)), r.want) << "from " << r.phase;
  EXPECT_EQ(Text(NextCsvStep(Csv("Installing", "", "webhook"), Ok())),
            "Failed/InvalidInstallStrategy: install strategy invalid: unrecognized install strategy");
}

// Still Installing five minutes after the last transition: the install has
// timed out (ev); before that the step says when to look again.
TEST(CsvTransition, AnInstallThatStaysNotReadyTimesOutAfterFiveMinutes) {
  Json csv = Csv("Installing", "InstallWaiting");
  csv["status"]["lastTransitionTime"] = "2026-12-06T10:00:00Z";
  CsvSyncInputs waiting = Ok();
  waiting.deployments = {
      Drift(DeploymentDriftClass::kWaiting, "waiting for deployment a to become ready: x")};
  const int64_t t0 = 1'796'551'200'000'000'000;  // 2026-12-06T10:00:00Z
  waiting.now_ns = t0 + 299'000'000'000;
  CsvStep before = NextCsvStep(csv, waiting);
  EXPECT_EQ(
      Text(before),
      "Installing/InstallWaiting: installing: waiting for deployment a to become ready: x (if changed)");
  EXPECT_EQ(before.wake_at_ns, t0 + kCsvInstallTimeoutNs);
  waiting.now_ns = t0 + kCsvInstallTimeoutNs;
  EXPECT_EQ(Text(NextCsvStep(csv, waiting)), "Failed/InstallCheckFailed: install timeout");
  // Ready in time, or a reinstall (a new transition), never times out.
  CsvSyncInputs ready = Ok();
  ready.now_ns = t0 + 3 * kCsvInstallTimeoutNs;
  EXPECT_EQ(Text(NextCsvStep(csv, ready)),
            "Succeeded/InstallSucceeded: install strategy completed with no errors (if changed)");
  CsvSyncInputs updated = waiting;
  updated.deployments = {Drift(DeploymentDriftClass::kDeploymentUpdated, "deployment changed old hash=x")};
  EXPECT_EQ(NextCsvStep(csv, updated).phase->phase, "InstallReady");
  EXPECT_EQ(NextCsvStep(csv, updated).wake_at_ns, 0);
}

TEST(CsvTransition, Replacement) {
  CsvSyncInputs next = Ok();
  next.replacement = "etcd.v3";
  next.replacement_phase = "Pending";
  EXPECT_EQ(Text(NextCsvStep(Csv("Succeeded"), next)),
            "Replacing/BeingReplaced: being replaced by csv: etcd.v3");
  EXPECT_EQ(Text(NextCsvStep(Csv("Replacing"), next)), "stay: waits for etcd.v3 to succeed");
  CsvSyncInputs older = next;
  older.replaced_phase = "Replacing";
  EXPECT_EQ(Text(NextCsvStep(Csv("Replacing"), older)), "stay: waits for etcd.v1 to go");
  EXPECT_EQ(Text(NextCsvStep(Csv("Replacing"), Ok())),
            "stay: marked as replacement, but no replacement CSV found in cluster");
  next.replacement_phase = "Succeeded";
  EXPECT_EQ(Text(NextCsvStep(Csv("Replacing"), next)),
            "Deleting/Replaced: has been replaced by a newer ClusterServiceVersion that has successfully "
            "installed.");
  EXPECT_EQ(Text(NextCsvStep(Csv("Deleting"), next)), "stay: etcd.v2 replaced: deleted +delete");
}

// §B.6: the CSV it replaces says not upgradeable: held Pending before
// anything else of the Pending row (requirements are not even stored).
TEST(CsvTransition, AnUpgradeHeldByTheReplacedCsvsOperatorCondition) {
  CsvSyncInputs held = Ok();
  held.replaced_phase = "Replacing";
  held.not_upgradeable = "the operator is not upgradeable: migrating";
  held.requirements.met = false;
  EXPECT_EQ(Text(NextCsvStep(Csv("Pending", "RequirementsNotMet"), held)),
            "Pending/OperatorConditionNotUpgradeable: operator is not upgradeable: the operator is not "
            "upgradeable: migrating (if changed)");
  // Only Pending holds: from None the CSV first becomes Pending.
  EXPECT_EQ(Text(NextCsvStep(Csv(""), held)), "Pending/RequirementsUnknown: requirements not yet checked");
  // The replaced CSV gone: nothing to hold on to.
  held.replaced_phase.reset();
  held.requirements.met = true;
  EXPECT_EQ(Text(NextCsvStep(Csv("Pending", "OperatorConditionNotUpgradeable"), held)),
            "InstallReady/AllRequirementsMet: all requirements found, attempting install +requirements");
}

}  // namespace
}  // namespace recon::olm
