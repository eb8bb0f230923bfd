#!/usr/bin/env python3
"""Writes the executePlans scenarios (domains/olm/execute.cc, issue 49):
recon carries out its own InstallPlan of a bundle with inline content
(olm.bundle.object: a CSV with permissions, and a CRD).

  execute_inline_plan   every create lands; the CRD is established before the
                        plan's echo: Complete, every step Created
  execute_refused_step  the Role's create is refused (403): the plan retries
                        with upstream's message, then fails after a minute
  execute_bundle_image  the bundle has an image: a bundle lookup, the unpack
                        ConfigMap, Role, RoleBinding and Job in the catalog's
                        namespace; the Job (played here as a kubelet would run
                        it) fills the ConfigMap, gzip+base64 as opm -z writes
                        it; the steps refer to the ConfigMap; Complete
  execute_unpack_refused  the unpack ConfigMap's create is refused (403): said,
                        and not sent again at the 5 s requeues
  execute_status_conflict  the status write that reports the creates loses to
                        another writer's change of the plan (OLM's olm operator
                        labels it): 409, and the next pass finds every object
                        there, Present (the CRD updated), as upstream's second
                        pass does after its create gets AlreadyExists: Complete
  execute_update_once   the CRD is there already: the pass creates the CSV and
                        updates the CRD; an event of the namespace comes before
                        the CSV's create is answered, the pass runs again and
                        does not send the CRD's update a second time (upstream's
                        pass updates it once); Complete, the CRD Present
  execute_bare_plan_adopted  a new leader finds the plan an earlier one
                        created and never gave a status: its status written
                        with the bundle's steps (not bare CSV steps, which
                        could only fail), then carried out to Complete

Each stage replays what is written so far through `recon replay` and answers
recon's writes as an API server would: a create shows as an Added event of
the object with a uid, a status write as the plan's Modified event.
Usage: make_execute_scenarios.py path/to/recon; then
scripts/update-scenarios olm <name> and review the .expected by hand."""
import base64
import copy
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RECON = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "../../../build/recon")
# The timelines show no echo of recon's subscription status writes: written
# for one combined write per sync (olm.subscriptionWrites).
ARGS = ["--domains", "olm", "--set", "olm.executePlans=true", "--set", "olm.subscriptionWrites=combined"]


def T(s):
    return "2026-12-01T10:%02d:%02dZ" % (s // 60, s % 60)


def dump(evs):
    return "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in evs)


def actions(evs):
    out = subprocess.run([RECON, "replay", "/dev/stdin"] + ARGS, input=dump(evs), capture_output=True,
                         text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


CSV = {"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
       "metadata": {"name": "etcd.v0.9.2", "annotations": {"capabilities": "Basic Install"}},
       "spec": {"displayName": "etcd", "version": "0.9.2",
                "customresourcedefinitions": {"owned": [{"name": "etcdclusters.etcd.database.coreos.com",
                                                         "version": "v1beta2", "kind": "EtcdCluster"}]},
                "install": {"strategy": "deployment", "spec": {
                    "permissions": [{"serviceAccountName": "etcd-operator",
                                     "rules": [{"apiGroups": ["etcd.database.coreos.com"],
                                                "resources": ["etcdclusters"], "verbs": ["*"]}]}],
                    "deployments": [{"name": "etcd-operator", "spec": {
                        "selector": {"matchLabels": {"name": "etcd-operator"}},
                        "template": {"metadata": {"labels": {"name": "etcd-operator"}},
                                     "spec": {"serviceAccountName": "etcd-operator",
                                              "containers": [{"name": "etcd-operator",
                                                              "image": "quay.io/coreos/etcd-operator:v0.9.2"}]}}}}]}},
                "installModes": [{"type": "OwnNamespace", "supported": True},
                                 {"type": "AllNamespaces", "supported": True}]}}
CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "etcdclusters.etcd.database.coreos.com"},
       "spec": {"group": "etcd.database.coreos.com", "scope": "Namespaced",
                "names": {"kind": "EtcdCluster", "listKind": "EtcdClusterList", "plural": "etcdclusters",
                          "singular": "etcdcluster"},
                "versions": [{"name": "v1beta2", "served": True, "storage": True,
                              "schema": {"openAPIV3Schema": {"type": "object",
                                                             "x-kubernetes-preserve-unknown-fields": True}}}]}}


def bundle_object(o):
    return {"type": "olm.bundle.object",
            "value": {"data": base64.b64encode(json.dumps(o, separators=(",", ":")).encode()).decode()}}


def start(image=""):
    catalog = "".join(json.dumps(x, separators=(",", ":")) + "\n" for x in [
        {"schema": "olm.package", "name": "etcd", "defaultChannel": "stable"},
        {"schema": "olm.channel", "package": "etcd", "name": "stable", "entries": [{"name": "etcd.v0.9.2"}]},
        # No image: OLM v0.24.0 installs from inline content only then.
        {"schema": "olm.bundle", "name": "etcd.v0.9.2", "package": "etcd", "image": image,
         "properties": [{"type": "olm.package", "value": {"packageName": "etcd", "version": "0.9.2"}},
                        {"type": "olm.gvk", "value": {"group": "etcd.database.coreos.com", "version": "v1beta2",
                                                      "kind": "EtcdCluster"}}]
         # With an image, the manifests are in the image only.
         + ([] if image else [bundle_object(CSV), bundle_object(CRD)])}])
    return [
        {"time": T(0), "type": "Content", "name": "olm/catalog/openshift-marketplace/community",
         "files": {"catalog.json": catalog}},
        {"time": T(1), "type": "Added", "object": {
            "apiVersion": "operators.coreos.com/v1alpha1", "kind": "CatalogSource",
            "metadata": {"name": "community", "namespace": "openshift-marketplace", "uid": "uid-cs",
                         "resourceVersion": "101"}, "spec": {"sourceType": "grpc"}}},
        {"time": T(2), "type": "Added", "object": {
            "apiVersion": "operators.coreos.com/v1", "kind": "OperatorGroup",
            "metadata": {"name": "og", "namespace": "operators", "resourceVersion": "102"},
            "spec": {"targetNamespaces": ["operators"]}}},
        {"time": T(3), "type": "Added", "object": {
            "apiVersion": "operators.coreos.com/v1alpha1", "kind": "Subscription",
            "metadata": {"name": "etcd", "namespace": "operators", "uid": "uid-sub", "resourceVersion": "103"},
            "spec": {"name": "etcd", "channel": "stable", "source": "community",
                     "sourceNamespace": "openshift-marketplace"}}},
    ]


class Server:
    """Answers the writes recon makes, as events appended to the log."""

    def __init__(self, image=""):
        self.log = start(image)
        self.rv = 200
        self.plan = None
        self.seen = 0  # the writes of events up to this seq are answered

    def land(self, writes, t, refuse=()):
        """Each create shows as Added (uid, resourceVersion); a plan create
        as the bare plan; a plan status write as its Modified; a create of a
        kind in `refuse` is answered 403 instead."""
        by_cause = {}
        for a in actions(self.log):
            by_cause.setdefault(a["cause"], []).append(a)
        for a in writes:
            o = copy.deepcopy(a.get("object"))
            if o is None:
                continue
            self.rv += 1
            kind = o["kind"]
            if a["verb"] == "create" and kind in refuse:
                index = by_cause[a["cause"]].index(a)
                self.log.append({"time": T(t), "type": "ActionResult", "action": f"{a['cause']}.{index}",
                                 "ok": False, "status": 403,
                                 "error": f"roles.rbac.authorization.k8s.io \"{o['metadata']['name']}\" is "
                                          "forbidden: attempt to grant extra privileges"})
                continue
            if a["verb"] == "create":
                o["metadata"]["uid"] = "uid-" + o["metadata"]["name"]
                o["metadata"]["resourceVersion"] = str(self.rv)
                if kind == "InstallPlan":
                    self.plan = o
                self.log.append({"time": T(t), "type": "Added", "object": o})
            elif a["verb"] == "updateStatus" and kind == "InstallPlan":
                self.plan = copy.deepcopy(self.plan)
                self.plan["metadata"]["resourceVersion"] = str(self.rv)
                self.plan["status"] = o["status"]
                self.log.append({"time": T(t), "type": "Modified", "object": self.plan})

    def step(self, t, kinds, refuse=()):
        """Answers the writes of the kinds made since the last step."""
        writes = [a for a in actions(self.log)
                  if a["cause"] > self.seen and a.get("object", {}).get("kind") in kinds]
        self.seen = len(self.log)
        self.land(writes, t, refuse)


def established(crd_event, rv, t):
    crd = copy.deepcopy(crd_event["object"])
    crd["metadata"]["resourceVersion"] = str(rv)
    crd["status"] = {"conditions": [{"type": "NamesAccepted", "status": "True", "reason": "NoConflicts"},
                                    {"type": "Established", "status": "True", "reason": "InitialNamesAccepted"}],
                     "storedVersions": ["v1beta2"], "acceptedNames": crd["spec"]["names"]}
    return {"time": T(t), "type": "Modified", "object": crd}


def write(name, log):
    with open(os.path.join(HERE, name + ".jsonl"), "w") as f:
        f.write(dump(log))
    with open(os.path.join(HERE, name + ".args"), "w") as f:
        f.write("\n".join(ARGS) + "\n")


def inline_plan():
    s = Server()
    s.step(4, {"InstallPlan"})                                   # the plan created, bare
    s.step(5, {"InstallPlan"})                                   # its status (steps), Installing
    s.step(6, {"ClusterServiceVersion", "CustomResourceDefinition"})
    s.step(7, {"ServiceAccount", "Role", "RoleBinding"})         # owned by the CSV's uid
    crd = [e for e in s.log if e.get("object", {}).get("kind") == "CustomResourceDefinition"][0]
    s.log.append(established(crd, 400, 8))
    s.step(8, {"InstallPlan"})                                   # Installing, the CRD WaitingForApi
    s.step(9, {"InstallPlan"})                                   # Complete
    s.log.append({"time": T(12), "type": "Timer", "timer": "olm/plans"})  # nothing left to do
    write("execute_inline_plan", s.log)


def status_conflict():
    s = Server()
    s.step(4, {"InstallPlan"})
    s.step(5, {"InstallPlan"})
    s.step(6, {"ClusterServiceVersion", "CustomResourceDefinition"})
    s.step(7, {"ServiceAccount", "Role", "RoleBinding"})
    crd = [e for e in s.log if e.get("object", {}).get("kind") == "CustomResourceDefinition"][0]
    s.log.append(established(crd, 400, 8))
    writes = [a for a in actions(s.log) if a["cause"] > s.seen and a["verb"] == "updateStatus"]
    assert len(writes) == 1, writes
    a = writes[0]
    index = [x for x in actions(s.log) if x["cause"] == a["cause"]].index(a)
    s.seen = len(s.log)
    # Another writer's change first (the Operator-API label), then our write's answer.
    s.plan = copy.deepcopy(s.plan)
    s.plan["metadata"]["resourceVersion"] = "450"
    s.plan["metadata"]["labels"] = {"operators.coreos.com/etcd.operators": ""}
    s.log.append({"time": T(8), "type": "Modified", "object": s.plan})
    s.log.append({"time": T(8), "type": "ActionResult", "action": f"{a['cause']}.{index}", "ok": False,
                  "status": 409, "error": "Operation cannot be fulfilled on installplans.operators.coreos.com "
                  f"\"{s.plan['metadata']['name']}\": the object has been modified; please apply your changes "
                  "to the latest version and try again"})
    s.step(9, {"InstallPlan"})                                   # every step Present: Complete
    write("execute_status_conflict", s.log)


def update_once():
    s = Server()
    crd = established({"object": dict(copy.deepcopy(CRD), metadata={"name": CRD["metadata"]["name"],
                                                                      "uid": "uid-crd"})}, 90, 1)
    crd["type"] = "Added"
    s.log.insert(2, crd)
    s.step(4, {"InstallPlan"})
    s.step(5, {"InstallPlan"})                                   # the pass: create CSV, update CRD
    pass_writes = [a for a in actions(s.log) if a["cause"] == len(s.log)]
    assert sorted(a["verb"] for a in pass_writes) == ["create", "update"], pass_writes
    s.log.append({"time": T(6), "type": "Added", "object": {
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "unrelated", "namespace": "operators", "uid": "uid-unrelated",
                     "resourceVersion": "300"}}})                # the pass again: no second update
    s.seen = len(s.log)
    s.land([a for a in pass_writes if a["verb"] == "create"], 7)
    s.step(8, {"ServiceAccount", "Role", "RoleBinding"})
    s.step(9, {"InstallPlan"})                                   # Complete
    write("execute_update_once", s.log)


def refused_step():
    s = Server()
    s.step(4, {"InstallPlan"})
    s.step(5, {"InstallPlan"})
    s.step(6, {"ClusterServiceVersion", "CustomResourceDefinition"})
    s.step(7, {"ServiceAccount", "Role", "RoleBinding"}, refuse={"Role"})
    crd = [e for e in s.log if e.get("object", {}).get("kind") == "CustomResourceDefinition"][0]
    s.log.append(established(crd, 400, 8))
    s.step(8, {"InstallPlan"})  # Installing: "retrying execution due to error: error creating role ..."
    for t in range(13, 70, 5):  # upstream's 5 s requeue, until the minute is over: Failed
        s.log.append({"time": T(t), "type": "Timer", "timer": "olm/plans"})
        s.step(t, {"InstallPlan"})
    write("execute_refused_step", s.log)


def opm_extract(cm_event, image, rv, t):
    """What the unpack Job's `opm alpha bundle extract -z` writes: the
    manifests gzipped then base64 in binaryData (base64 again on the wire),
    the bundle annotations, olm.sourceImage and olm.contentEncoding."""
    import gzip
    cm = copy.deepcopy(cm_event["object"])
    cm["metadata"]["resourceVersion"] = str(rv)
    files = {"etcd.v0.9.2.clusterserviceversion.yaml": CSV, "etcdclusters.crd.yaml": CRD}
    cm["data"] = {}
    cm["binaryData"] = {k: base64.b64encode(base64.b64encode(gzip.compress(
        json.dumps(v, separators=(",", ":")).encode(), mtime=0))).decode() for k, v in files.items()}
    prefix = "operators.operatorframework.io.bundle."
    cm["metadata"]["annotations"] = {prefix + "channel.default.v1": "stable", prefix + "channels.v1": "stable",
                                     prefix + "manifests.v1": "manifests/", prefix + "mediatype.v1": "registry+v1",
                                     prefix + "metadata.v1": "metadata/", prefix + "package.v1": "etcd",
                                     "olm.sourceImage": image, "olm.contentEncoding": "gzip+base64"}
    return {"time": T(t), "type": "Modified", "object": cm}


def bundle_image():
    image = "quay.io/example/etcd:v0.9.2"
    s = Server(image)
    s.step(4, {"InstallPlan"})                                   # the plan created, bare
    s.step(5, {"InstallPlan"})                                   # its status: a bundle lookup, no steps
    s.step(6, {"ConfigMap"})                                     # the unpack ConfigMap, owned by the catalog
    s.step(7, {"Role", "RoleBinding", "Job"})                    # owned by the ConfigMap's uid
    s.step(8, {"InstallPlan"})                                   # Pending: JobIncomplete
    cm = [e for e in s.log if e.get("object", {}).get("kind") == "ConfigMap"][0]
    job = copy.deepcopy([e for e in s.log if e.get("object", {}).get("kind") == "Job"][0]["object"])
    job["metadata"]["resourceVersion"] = "500"
    job["status"] = {"succeeded": 1, "conditions": [{"type": "Complete", "status": "True"}]}
    s.log.append(opm_extract(cm, image, 499, 20))
    s.log.append({"time": T(20), "type": "Modified", "object": job})
    s.step(20, {"InstallPlan"})                                  # unpacked: the steps added
    s.step(21, {"ClusterServiceVersion", "CustomResourceDefinition"})
    s.step(22, {"ServiceAccount", "Role", "RoleBinding"})
    crd = [e for e in s.log if e.get("object", {}).get("kind") == "CustomResourceDefinition"][0]
    s.log.append(established(crd, 600, 23))
    s.step(23, {"InstallPlan"})                                  # Installing, the CRD WaitingForApi
    s.step(24, {"InstallPlan"})                                  # Complete
    write("execute_bundle_image", s.log)


def unpack_refused():
    s = Server("quay.io/example/etcd:v0.9.2")
    s.step(4, {"InstallPlan"})
    s.step(5, {"InstallPlan"})
    create = [a for a in actions(s.log) if a["cause"] == len(s.log) and a["verb"] == "create"][0]
    s.log.append({"time": T(6), "type": "ActionResult", "action": f"{create['cause']}.0", "ok": False,
                  "status": 403, "error": "configmaps is forbidden: User \"system:serviceaccount:recon:recon\" "
                  "cannot create resource \"configmaps\" in API group \"\" in the namespace \"openshift-marketplace\""})
    s.log.append({"time": T(10), "type": "Timer", "timer": "olm/plans"})
    s.log.append({"time": T(15), "type": "Timer", "timer": "olm/plans"})
    write("execute_unpack_refused", s.log)


# recon's InstallPlan names (FNV-1a over namespace, generation, CSVs), as make_scenarios.py has them.
_src = open(os.path.join(HERE, "make_scenarios.py")).read()
exec(compile(_src[_src.index("def plan_name"):_src.index("# ---- catalog building")], "make_scenarios.py", "exec"))


def bare_plan_adopted():
    s = Server()
    name = plan_name("operators", 1, ["etcd.v0.9.2"])
    sub = s.log[-1]["object"]
    sub["status"] = {"currentCSV": "etcd.v0.9.2", "state": "UpgradePending", "installPlanGeneration": 1,
                     "installPlanRef": {"apiVersion": "operators.coreos.com/v1alpha1", "kind": "InstallPlan",
                                        "name": name, "namespace": "operators"},
                     "lastUpdated": T(3)}
    s.plan = {"apiVersion": "operators.coreos.com/v1alpha1", "kind": "InstallPlan",
              "metadata": {"name": name, "namespace": "operators", "uid": "uid-" + name, "resourceVersion": "150",
                           "ownerReferences": [{"apiVersion": "operators.coreos.com/v1alpha1",
                                                "kind": "Subscription", "name": "etcd", "uid": "uid-sub",
                                                "blockOwnerDeletion": False, "controller": False}]},
              "spec": {"clusterServiceVersionNames": ["etcd.v0.9.2"], "approval": "Automatic", "approved": True,
                       "generation": 1}}
    s.log.append({"time": T(4), "type": "Added", "object": copy.deepcopy(s.plan)})  # bare: adopted
    s.step(5, {"InstallPlan"})                                   # its status: the bundle's steps
    s.step(6, {"ClusterServiceVersion", "CustomResourceDefinition"})
    s.step(7, {"ServiceAccount", "Role", "RoleBinding"})
    crd = [e for e in s.log if e.get("object", {}).get("kind") == "CustomResourceDefinition"][0]
    s.log.append(established(crd, 400, 8))
    s.step(8, {"InstallPlan"})
    s.step(9, {"InstallPlan"})                                   # Complete
    write("execute_bare_plan_adopted", s.log)


inline_plan()
refused_step()
status_conflict()
update_once()
bundle_image()
unpack_refused()
bare_plan_adopted()
