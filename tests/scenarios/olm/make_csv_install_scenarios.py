#!/usr/bin/env python3
"""Writes three scenarios of a CSV's install (the .jsonl and .args of each):

csv_install_refused: the CSV's move to Installing refused 409 while its
install Deployment's create is answered 500 (the runtime sends it again):
the olm/requeue timer the 409 wanted finds the install waiting on the
Deployment and comes back (olm/csv-install-timeout), so the CSV is written
Installing once the Deployment landed, though no event of the CSV itself
follows the refusal (the olm soak's stuck upgrade, session 32).

csv_label_over_shown_update: a shadow agent's log (no answers): the real
olm operator wrote the Deployment before recon decided to, so recon's
update of it is one the world already shows and never gets an echo of its
own; the Deployment's component label is predicted at the next event all
the same, as an acting recon would write it once its update was answered
(domains/olm/adoption.cc LabelHeld; the CRD labels of the conformance
runs, session 32).

csv_install_prunes_deployments: the install writes the strategy's
Deployment and deletes the one it no longer names that carries the CSV's
owner labels and its owner reference; one whose owner reference names
another uid stays (reference §B.3.1, session 32).

Run it, then scripts/update-scenarios olm NAME for each, and review the
.expected by hand."""
import json

from scenario_log import Log

KEY = "operators.coreos.com/demo.operators"
NS = "operators"
log = Log()
ev, answer, timer = log.ev, log.answer, log.timer


DEPLOYMENT_SPEC = {
    "replicas": 1,
    "selector": {"matchLabels": {"app": "demo"}},
    "template": {"metadata": {"labels": {"app": "demo"}},
                 "spec": {"containers": [{"name": "manager", "image": "quay.io/demo/manager:v1"}]}},
}
# The Deployment as recon's install writes it for the CSV below (action 2.0
# of csv_install_refused; recon replay prints it).
DEPLOYMENT_CREATED = '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"demo","namespace":"operators","labels":{"olm.owner":"demo.v1.0.0","olm.owner.namespace":"operators","olm.owner.kind":"ClusterServiceVersion","olm.deployment-spec-hash":"777855dc58"},"ownerReferences":[{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","name":"demo.v1.0.0","uid":"uid-demo","blockOwnerDeletion":false,"controller":false}]},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"demo"}},"template":{"metadata":{"labels":{"app":"demo"},"annotations":{"olm.operatorGroup":"og","olm.operatorNamespace":"operators","olm.targetNamespaces":"operators"}},"spec":{"containers":[{"name":"manager","image":"quay.io/demo/manager:v1","env":[{"name":"OPERATOR_CONDITION_NAME","value":"demo.v1.0.0"}]}]}},"revisionHistoryLimit":1}}'


def csv(rv, phase, reason, message, labelled=False):
    o = {"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
         "metadata": {"name": "demo.v1.0.0", "namespace": NS, "uid": "uid-demo", "resourceVersion": str(rv),
                      "annotations": {"olm.operatorGroup": "og", "olm.operatorNamespace": NS,
                                      "olm.targetNamespaces": NS}},
         "spec": {"version": "1.0.0", "displayName": "Demo",
                  "installModes": [{"type": "OwnNamespace", "supported": True},
                                   {"type": "SingleNamespace", "supported": True},
                                   {"type": "MultiNamespace", "supported": False},
                                   {"type": "AllNamespaces", "supported": False}],
                  "install": {"strategy": "deployment",
                              "spec": {"deployments": [{"name": "demo", "spec": DEPLOYMENT_SPEC}]}}},
         "status": {"phase": phase, "reason": reason, "message": message,
                    "lastUpdateTime": "2026-11-21T09:59:00Z", "lastTransitionTime": "2026-11-21T09:59:00Z"}}
    if labelled:
        o["metadata"]["labels"] = {KEY: ""}
    return o


GROUP = {"apiVersion": "operators.coreos.com/v1", "kind": "OperatorGroup",
         "metadata": {"name": "og", "namespace": NS, "uid": "uid-og", "resourceVersion": "201"},
         "spec": {"targetNamespaces": [NS]},
         "status": {"namespaces": [NS], "lastUpdated": "2026-11-21T09:58:00Z"}}
READY = ("InstallReady", "AllRequirementsMet", "all requirements found, attempting install")
INSTALLING = ("Installing", "InstallSucceeded", "waiting for install components to report healthy")

# --- csv_install_refused
# seq 1, 2: the namespace's group (its status written) and a CSV whose
# requirements were met: the install (the Deployment created, the CSV
# written Installing).
ev("Added", GROUP)
ev("Added", csv(202, *READY))
deployment = json.loads(DEPLOYMENT_CREATED)
# seq 3: the Deployment's create answered 500: the runtime sends it again.
answer("2.0", False, 500, error="InternalError: etcdserver: request timed out")
# seq 4: the CSV's Installing refused 409, and no event of the CSV follows
# (a conflict for nothing): the olm/requeue timer wanted 1 s later.
answer("2.1", False, 409, error="Conflict: the object has been modified; please apply your changes to the latest version")
# seq 5: the OperatorCondition created.
answer("2.2", True, 201, "203")
# seq 6: the requeue: the install waits for the Deployment's create, still
# on its way, and the timer comes back (olm/csv-install-timeout, 1 s).
timer("olm/requeue")
# seq 7, 8: the create sent again lands; its echo.
answer("2.0", True, 201, "204")
deployment["metadata"].update({"uid": "uid-deployment", "resourceVersion": "204", "generation": 1})
ev("Added", deployment)
# seq 9: the timer: the install again (the Deployment updated over rv 204)
# and the CSV written Installing over rv 202 (9.0, 9.1).
timer("olm/csv-install-timeout")

log.write("csv_install_refused")

# --- csv_label_over_shown_update (no answers: a shadow agent's log)
# seq 1, 2: the group, and the Subscription that installed demo.v1.0.0.
ev("Added", GROUP)
ev("Added", {"apiVersion": "operators.coreos.com/v1alpha1", "kind": "Subscription",
             "metadata": {"name": "demo", "namespace": NS, "uid": "uid-sub", "resourceVersion": "202",
                          "labels": {KEY: ""}},
             "spec": {"name": "demo", "channel": "stable", "source": "community", "sourceNamespace": "olm"},
             "status": {"installedCSV": "demo.v1.0.0", "currentCSV": "demo.v1.0.0", "state": "AtLatestKnown",
                        "lastUpdated": "2026-11-21T09:58:30Z"}})
# seq 3: the real operator's Deployment, written before recon got to it.
deployment = json.loads(DEPLOYMENT_CREATED)
deployment["metadata"].update({"uid": "uid-deployment", "resourceVersion": "203", "generation": 1})
ev("Added", deployment)
# seq 4: the CSV, InstallReady: recon's install updates the Deployment with
# what it already holds (4.0), and the CSV Installing.
ev("Added", csv(204, *READY, labelled=True))
# seq 5: the real operator's Installing: the Deployment's label now (5.0),
# recon's update of it never answered.
ev("Modified", csv(205, *INSTALLING, labelled=True))
# seq 6: its label, as the real operator writes it.
deployment["metadata"]["labels"][KEY] = ""
deployment["metadata"]["resourceVersion"] = "206"
ev("Modified", deployment)
log.write("csv_label_over_shown_update")

# --- csv_install_prunes_deployments
# seq 1-3: the group; a Deployment of the CSV's from a strategy that named
# it (its owner labels and reference), and one with its labels but another
# owner's reference.


def stray(name, owner_uid, rv):
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": NS, "uid": f"uid-{name}", "resourceVersion": str(rv),
                         "labels": {"olm.owner": "demo.v1.0.0", "olm.owner.namespace": NS,
                                    "olm.owner.kind": "ClusterServiceVersion"},
                         "ownerReferences": [{"apiVersion": "operators.coreos.com/v1alpha1",
                                              "kind": "ClusterServiceVersion", "name": "demo.v1.0.0",
                                              "uid": owner_uid}]},
            "spec": DEPLOYMENT_SPEC}


ev("Added", GROUP)
ev("Added", stray("demo-old", "uid-demo", 202))
ev("Added", stray("demo-foreign", "uid-another-demo", 203))
# seq 4: the CSV, InstallReady: its Deployment created, demo-old deleted.
ev("Added", csv(204, *READY))
log.write("csv_install_prunes_deployments")
