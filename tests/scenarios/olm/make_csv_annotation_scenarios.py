#!/usr/bin/env python3
"""Writes csv_annotations.jsonl/.args: the OperatorGroup's annotations on its
CSVs (domains/olm/operator_group.cc AnnotateCsvs; reference olm-operator.md
§B.1.2 step 4), with the answers a live server gives: a refused update held
until the CSV's next event or the olm/requeue timer (backing off from 1 s),
and one refused after that event came decided again at its answer. Run it, then scripts/update-scenarios olm
csv_annotations, and review the .expected by hand."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
NS = "operators"
lines = []
t = [0]


def at():
    s = t[0]
    t[0] += 1
    return "2026-11-21T10:%02d:%02dZ" % (s // 60, s % 60)


def ev(typ, obj):
    lines.append(json.dumps({"time": at(), "type": typ, "object": obj}, separators=(",", ":")))


def answer(action, ok, status, rv=""):
    e = {"time": at(), "type": "ActionResult", "action": action, "ok": ok, "status": status}
    if rv:
        e["resourceVersion"] = rv
    if not ok:
        e["error"] = "Conflict: the object has been modified; please apply your changes to the latest version"
    lines.append(json.dumps(e, separators=(",", ":")))


def csv(name, rv, phase, annotated=False):
    meta = {"name": name, "namespace": NS, "uid": f"uid-{name}", "resourceVersion": str(rv)}
    if annotated:
        meta["annotations"] = {"olm.operatorGroup": "og", "olm.operatorNamespace": NS,
                               "olm.targetNamespaces": "operators,team-b"}
    return {"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion", "metadata": meta,
            "spec": {"version": "1.0.0"}, "status": {"phase": phase}}


# seq 1: a group for two namespaces, its status already written by OLM in
# map order; the annotation joins them sorted (upstream's BuildTargetNamespaces).
ev("Added", {"apiVersion": "operators.coreos.com/v1", "kind": "OperatorGroup",
             "metadata": {"name": "og", "namespace": NS, "uid": "uid-og", "resourceVersion": "201"},
             "spec": {"targetNamespaces": [NS, "team-b"]},
             "status": {"namespaces": ["team-b", NS], "lastUpdated": "2026-11-21T10:00:00Z"}})
# seq 2: a CSV without the annotations: updated with them (action 2.0).
ev("Added", csv("a.v1", 202, "Pending"))
# seq 3: refused before the CSV's next event: held, nothing sent.
answer("2.0", False, 409)
# seq 4: another writer's change: the update again, over rv 203 (4.0).
ev("Modified", csv("a.v1", 203, "Succeeded"))
# seq 5, 6: answered, then its echo: nothing more.
answer("4.0", True, 200, "204")
ev("Modified", csv("a.v1", 204, "Succeeded", annotated=True))
# seq 7: a second CSV: its update (7.0).
ev("Added", csv("b.v1", 205, "Pending"))
# seq 8: another writer's change while 7.0 is on its way: it waits for its answer.
ev("Modified", csv("b.v1", 206, "Succeeded"))
# seq 9: 7.0 refused after that change came: decided again now, over rv 206 (9.0).
answer("7.0", False, 409)
# seq 10, 11: answered, its echo.
answer("9.0", True, 200, "207")
ev("Modified", csv("b.v1", 207, "Succeeded", annotated=True))
# seq 12: a third CSV (12.0); seq 13: refused, and no event of it follows (a
# 409 for nothing): held, the requeue timer wanted 1 s later.
ev("Added", csv("c.v1", 208, "Succeeded"))
answer("12.0", False, 409)
# seq 14: the timer: the update again over the same rv (14.0); 15, 16: done.
lines.append(json.dumps({"time": at(), "type": "Timer", "timer": "olm/requeue"}, separators=(",", ":")))
answer("14.0", True, 200, "209")
ev("Modified", csv("c.v1", 209, "Succeeded", annotated=True))

with open(os.path.join(HERE, "csv_annotations.jsonl"), "w") as f:
    f.write("\n".join(lines) + "\n")
with open(os.path.join(HERE, "csv_annotations.args"), "w") as f:
    f.write("--domains\nolm\n--set\nolm.executePlans=false\n")
