#!/usr/bin/env python3
"""Writes operator_group_lifecycle.jsonl/.args: the olm-operator's OperatorGroup
sync (domains/olm/operator_group.cc). Each write of ours is followed by its
echo (the object as the server returns it), as a live watch shows it. Run
it, then scripts/update-scenarios olm operator_group_lifecycle, and review
the .expected by hand."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
NS = "operators"
lines = []
t = [0]


def ev(typ, obj):
    s = t[0]
    t[0] += 1
    lines.append(json.dumps({"time": "2026-11-21T10:%02d:%02dZ" % (s // 60, s % 60), "type": typ,
                             "object": obj}, separators=(",", ":")))


def og(name, rv, targets=None, status=None, annotations=None):
    meta = {"name": name, "namespace": NS, "uid": f"uid-og-{name}", "resourceVersion": str(rv)}
    if annotations is not None:
        meta["annotations"] = annotations
    o = {"apiVersion": "operators.coreos.com/v1", "kind": "OperatorGroup", "metadata": meta,
         "spec": {"targetNamespaces": targets} if targets else {}}
    if status is not None:
        o["status"] = status
    return o


def csv(name, rv, phase="Pending"):
    return {"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
            "metadata": {"name": name, "namespace": NS, "resourceVersion": str(rv),
                         "annotations": {"olm.operatorGroup": "og", "olm.operatorNamespace": NS,
                                         "olm.targetNamespaces": "operators,team-a"}},
            "spec": {"version": "0.9.0", "customresourcedefinitions": {"owned": [
                {"name": "etcdclusters.etcd.database.coreos.com", "version": "v1beta2", "kind": "EtcdCluster"},
                {"name": "etcdbackups.etcd.database.coreos.com", "version": "v1beta2", "kind": "EtcdBackup"}]}},
            "status": {"phase": phase, "reason": "RequirementsUnknown"}}


multiple = {"type": "MultipleOperatorGroup", "status": "True", "reason": "MultipleOperatorGroupsFound",
            "message": "Multiple OperatorGroup found in the same namespace"}
# 1. A group targeting two namespaces: its status names them (seq 1, write; seq 2, the echo).
ev("Added", og("og", 101, targets=["team-a", NS]))
st = {"namespaces": [NS, "team-a"], "lastUpdated": "2026-11-21T10:00:00Z"}
ev("Modified", og("og", 102, targets=["team-a", NS], status=st))
# 2. A second group in the namespace: both get MultipleOperatorGroup (the new one its targets too).
ev("Added", og("og2", 103))
st_multi = dict(st, conditions=[dict(multiple, lastTransitionTime="2026-11-21T10:00:02Z")])
ev("Modified", og("og", 104, targets=["team-a", NS], status=st_multi))
ev("Modified", og("og2", 105, status={"namespaces": [""], "lastUpdated": "2026-11-21T10:00:02Z",
                                       "conditions": [dict(multiple, lastTransitionTime="2026-11-21T10:00:02Z")]}))
# 3. The second goes: the condition is removed from the first.
ev("Deleted", og("og2", 106))
ev("Modified", og("og", 107, targets=["team-a", NS], status=st))
# 4. A member CSV: its APIs join olm.providedAPIs (an update of the group), then its echo.
ev("Added", csv("etcd.v0.9.0", 108))
apis = "EtcdBackup.v1beta2.etcd.database.coreos.com,EtcdCluster.v1beta2.etcd.database.coreos.com"
ev("Modified", og("og", 109, targets=["team-a", NS], status=st, annotations={"olm.providedAPIs": apis}))
ev("Modified", csv("etcd.v0.9.0", 110, phase="Succeeded"))
# 5. The CSV deleted: no CSV provides them any more, the annotation is pruned.
ev("Deleted", csv("etcd.v0.9.0", 111, phase="Succeeded"))
ev("Modified", og("og", 112, targets=["team-a", NS], status=st, annotations={"olm.providedAPIs": ""}))
# 6. The targets change: the status follows.
ev("Modified", og("og", 113, targets=[NS], status=st, annotations={"olm.providedAPIs": ""}))

with open(os.path.join(HERE, "operator_group_lifecycle.jsonl"), "w") as f:
    f.write("\n".join(lines) + "\n")
with open(os.path.join(HERE, "operator_group_lifecycle.args"), "w") as f:
    f.write("--domains\nolm\n--set\nolm.executePlans=false\n")
