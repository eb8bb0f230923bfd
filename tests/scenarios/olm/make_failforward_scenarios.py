#!/usr/bin/env python3
"""Writes the fail-forward scenarios (issue 49 item 4): an OperatorGroup with
spec.upgradeStrategy.name TechPreviewUnsafeFailForward, as OLM v0.24.0's
catalog operator and resolver treat it (catalog/operator.go
ensureSubscriptionCSVState, resolver/fail_forward.go, source_csvs.go).

  failforward_failed_plan      the plan of the 0.9.2 step fails: the
                               subscription goes UpgradeFailed, so it is
                               resolved again, and a catalog update whose
                               0.9.3 skips the failed step is planned
  failforward_off_failed_plan  the same without fail-forward: UpgradePending
                               with InstallPlanFailed, waiting on the failed
                               plan; the update changes nothing
  failforward_failed_csv       installed 0.9.2 Failed, 0.9.0 it replaces
                               still there (Replacing): left out of
                               @existing, so 0.9.4 is planned past the
                               failed CSV
  failforward_off_failed_csv   the same without fail-forward: the 0.9.0 left
                               behind conflicts (ConstraintsNotSatisfiable)
  failforward_chain_error      0.9.0 still Succeeded (not Replacing) while
                               0.9.2 replaces it: the walk is an error that
                               prevents resolution (ErrorPreventedResolution)

Run it, then scripts/update-scenarios olm NAME, and review each .expected.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
_src = open(os.path.join(HERE, "make_scenarios.py")).read()
exec(compile(_src[:_src.index("for fn in [")], "make_scenarios.py", "exec"))

FF = "TechPreviewUnsafeFailForward"


def group(log, fail_forward):
    spec = {"targetNamespaces": [NS]}
    if fail_forward:
        spec["upgradeStrategy"] = {"name": FF}
    log.obj("Added", {"apiVersion": "operators.coreos.com/v1", "kind": "OperatorGroup",
                      "metadata": {"name": "og", "namespace": NS}, "spec": spec})


def etcd_fixed_catalog():
    """etcd_catalog() plus 0.9.3, which skips the failed 0.9.2 (skipRange from 0.9.0)."""
    return catalog_files([
        package("etcd", "stable"),
        channel("etcd", "stable", ["etcd.v0.9.0", {"name": "etcd.v0.9.2", "replaces": "etcd.v0.9.0"},
                                   {"name": "etcd.v0.9.3", "replaces": "etcd.v0.9.2",
                                    "skipRange": ">=0.9.0 <0.9.3"}]),
        bundle("etcd", "etcd.v0.9.0", "0.9.0", [ETCD]),
        bundle("etcd", "etcd.v0.9.2", "0.9.2", [ETCD]),
        bundle("etcd", "etcd.v0.9.3", "0.9.3", [ETCD]),
    ])


def failed_plan(name, fail_forward):
    log = Log()
    log.content("community", GLOBAL, catalog_files([
        package("etcd", "stable"),
        channel("etcd", "stable", ["etcd.v0.9.0", {"name": "etcd.v0.9.2", "replaces": "etcd.v0.9.0"}]),
        bundle("etcd", "etcd.v0.9.0", "0.9.0", [ETCD]),
        bundle("etcd", "etcd.v0.9.2", "0.9.2", [ETCD]),
    ]))
    log.catalog_source("community")
    group(log, fail_forward)
    log.subscription("etcd", "etcd", "community", channel="stable", starting="etcd.v0.9.0")
    log.install(1, ["etcd.v0.9.0"], ["0.9.0"], {"etcd.v0.9.0": [ETCD]})
    # The 0.9.2 step's plan (recon's, planned at 0.9.0's Succeeded) fails.
    log.install_plan(2, ["etcd.v0.9.2"])
    log.install_plan(2, ["etcd.v0.9.2"], phase="Failed", typ="Modified")
    # The catalog is fixed: 0.9.3 skips the failed step.
    log.content("community", GLOBAL, etcd_fixed_catalog())
    log.write(name)


def failed_csv(name, fail_forward, old_phase="Replacing"):
    log = Log()
    setup_files = etcd_catalog()
    log.content("community", GLOBAL, setup_files)
    log.catalog_source("community")
    group(log, fail_forward)
    # A cluster where 0.9.2 replaced 0.9.0 and failed (the olm operator:
    # 0.9.0 Replacing, waiting for 0.9.2 to succeed; fail-forward moves a
    # Failed CSV to Replacing too, but that is the olm operator's part).
    log.csv("etcd.v0.9.0", "0.9.0", owned=[ETCD], phase=old_phase)
    log.csv("etcd.v0.9.2", "0.9.2", owned=[ETCD], phase="Failed", replaces="etcd.v0.9.0")
    status = {"currentCSV": "etcd.v0.9.2", "installedCSV": "etcd.v0.9.2", "state": "AtLatestKnown",
              "installPlanGeneration": 2,
              "installPlanRef": {"apiVersion": API, "kind": "InstallPlan", "name": plan_name(NS, 2, ["etcd.v0.9.2"]),
                                 "namespace": NS},
              "lastUpdated": "2026-11-21T09:00:00Z"}
    log.obj("Added", {"apiVersion": API, "kind": "InstallPlan",
                      "metadata": {"name": plan_name(NS, 2, ["etcd.v0.9.2"]), "namespace": NS},
                      "spec": {"clusterServiceVersionNames": ["etcd.v0.9.2"], "approval": "Automatic",
                               "approved": True, "generation": 2},
                      "status": {"phase": "Complete", "conditions": [{"type": "Installed", "status": "True"}]}})
    log.obj("Added", {"apiVersion": API, "kind": "Subscription",
                      "metadata": {"name": "etcd", "namespace": NS, "uid": "uid-sub-etcd"},
                      "spec": {"name": "etcd", "source": "community", "sourceNamespace": GLOBAL,
                               "channel": "stable", "startingCSV": "etcd.v0.9.0"},
                      "status": status})
    log.write(name)


failed_plan("failforward_failed_plan", True)
failed_plan("failforward_off_failed_plan", False)
failed_csv("failforward_failed_csv", True)
failed_csv("failforward_off_failed_csv", False)
failed_csv("failforward_chain_error", True, old_phase="Succeeded")
