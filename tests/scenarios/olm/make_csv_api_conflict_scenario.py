#!/usr/bin/env python3
"""Writes csv_api_conflict.jsonl/.args: provided-API bookkeeping between
OperatorGroups (reference olm-operator.md §B.1.4; domains/olm/api_intersection.cc).

An all-namespaces group in `team-a` records the API Widget.v1.example.com
(its CSV owns widgets.example.com). A second operator owning the same API
arrives in `team-b`, whose group targets `team-b` only: the two groups'
targets meet, so its CSV fails (InterOperatorGroupOwnerConflict), its
Deployment is deleted, and its group does not record the API. Once the
all-namespaces group is deleted, the CSV starts over (Pending,
RequirementsUnknown, "OperatorGroup no longer intersecting with
conflicting owner") and its group records the API. (RemoveAPIs and static
groups: tests/domains/olm/csv_api_intersection_test.cc.)

Run it, then scripts/update-scenarios olm csv_api_conflict, and review the
.expected by hand."""
from scenario_log import Log

API = "Widget.v1.example.com"
log = Log()
ev = log.ev


def group(ns, rv, targets, status, provided=None):
    meta = {"name": "og", "namespace": ns, "uid": f"uid-og-{ns}", "resourceVersion": str(rv)}
    if provided is not None:
        meta["annotations"] = {"olm.providedAPIs": provided}
    spec = {"targetNamespaces": targets} if targets else {}
    return {"apiVersion": "operators.coreos.com/v1", "kind": "OperatorGroup", "metadata": meta, "spec": spec,
            "status": {"namespaces": status, "lastUpdated": "2026-11-21T09:58:00Z"}}


def csv(ns, name, rv, phase, reason, message, targets, deployments=()):
    return {"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
            "metadata": {"name": name, "namespace": ns, "uid": f"uid-{ns}-{name}", "resourceVersion": str(rv),
                         "annotations": {"olm.operatorGroup": "og", "olm.operatorNamespace": ns,
                                         "olm.targetNamespaces": targets}},
            "spec": {"version": "1.0.0", "displayName": name,
                     "customresourcedefinitions": {"owned": [{"name": "widgets.example.com", "version": "v1",
                                                              "kind": "Widget"}]},
                     "installModes": [{"type": t, "supported": True}
                                      for t in ("OwnNamespace", "SingleNamespace", "MultiNamespace",
                                                "AllNamespaces")],
                     "install": {"strategy": "deployment",
                                 "spec": {"deployments": [{"name": d, "spec": DEPLOYMENT_SPEC}
                                                          for d in deployments]}}},
            "status": {"phase": phase, "reason": reason, "message": message,
                       "lastUpdateTime": "2026-11-21T09:59:00Z", "lastTransitionTime": "2026-11-21T09:59:00Z"}}


DEPLOYMENT_SPEC = {
    "replicas": 1,
    "selector": {"matchLabels": {"app": "widgets"}},
    "template": {"metadata": {"labels": {"app": "widgets"}},
                 "spec": {"containers": [{"name": "manager", "image": "quay.io/demo/widgets:v1"}]}},
}
PENDING = ("Pending", "RequirementsUnknown", "requirements not yet checked")
CONFLICT = ("Failed", "InterOperatorGroupOwnerConflict", "intersecting operatorgroups provide the same apis")

SUCCEEDED = ("Succeeded", "InstallSucceeded", "install strategy completed with no errors")

# seq 1-5: the cluster as the agent first lists it (its Cluster facts around
# the list, as the live adapter logs them): the CRD, Established;
# team-a's all-namespaces group recording the API and its CSV owning it;
# team-b's group, for team-b only. Nothing to do.
log.cluster({"synced": False})
ev("Added", {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
             "metadata": {"name": "widgets.example.com", "uid": "uid-crd", "resourceVersion": "100"},
             "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"}, "scope": "Namespaced",
                      "versions": [{"name": "v1", "served": True, "storage": True}]},
             "status": {"conditions": [{"type": "Established", "status": "True"},
                                       {"type": "NamesAccepted", "status": "True"}],
                        "acceptedNames": {"kind": "Widget", "plural": "widgets"}, "storedVersions": ["v1"]}})
ev("Added", group("team-a", 101, None, [""], API))
ev("Added", csv("team-a", "widgets.v1.0.0", 102, *SUCCEEDED, ""))
ev("Added", group("team-b", 103, ["team-b"], ["team-b"], ""))
log.cluster({"synced": True})
# seq 7, 8: the Deployment of a second operator owning the same API, and its
# CSV in team-b: Failed, the Deployment deleted, and team-b's group left
# without the API.
ev("Added", {"apiVersion": "apps/v1", "kind": "Deployment",
             "metadata": {"name": "widgets", "namespace": "team-b", "uid": "uid-dep-b", "resourceVersion": "104",
                          "labels": {"olm.owner": "other.v2.0.0", "olm.owner.namespace": "team-b",
                                     "olm.owner.kind": "ClusterServiceVersion"}},
             "spec": DEPLOYMENT_SPEC})
ev("Added", csv("team-b", "other.v2.0.0", 105, *PENDING, "team-b", deployments=["widgets"]))
# seq 9: its Failed status back: nothing more (the failure stands).
ev("Modified", csv("team-b", "other.v2.0.0", 106, *CONFLICT, "team-b", deployments=["widgets"]))
# seq 10: the all-namespaces group goes: team-b's CSV starts over, and its
# group then records the API (seq 11, the status back).
ev("Deleted", group("team-a", 101, None, [""], API))
ev("Modified", csv("team-b", "other.v2.0.0", 107, "Pending", "RequirementsUnknown",
                   "OperatorGroup no longer intersecting with conflicting owner", "team-b", deployments=["widgets"]))

log.write("csv_api_conflict")
