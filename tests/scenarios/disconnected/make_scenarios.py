#!/usr/bin/env python3
"""Writes the disconnected scenario logs (<name>.jsonl, <name>.args) here.

Each log holds what a cluster would show: the operator's environment (a
Cluster event's `operatorEnv` fact, or the operator's own Deployment),
DisconnectedFriendlyApp instances, and the watch events the reducer's
writes cause, as the API server would return them (uid, resourceVersion,
generation and server-side defaults filled in: defaults are not drift).
Run it, then `scripts/update-scenarios disconnected`, and review every
.expected by hand.
"""
import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
API = "tools.opdev.io/v1alpha1"
NS = "apps"
FEDORA = "quay.io/fedora/fedora@sha256:b0c61163ff03105c5cce455b01f962e32d79895417bb153894cfa4e135bdb46a"
FEDORA_NEXT = "quay.io/fedora/fedora@sha256:5ac1d6f0c71c2b1b6f8c3d2b4b8e1e0f3a9c4d7e6f5a4b3c2d1e0f9a8b7c6d5e"
MIRROR = "mirror.example.com:5000/fedora/fedora@sha256:b0c61163ff03105c5cce455b01f962e32d79895417bb153894cfa4e135bdb46a"
OP_NS = "openshift-operators"
OP_NAME = "simple-disconnected-operator-controller-manager"


class Log:
    def __init__(self):
        self.lines = []
        self.minute = 0
        self.rv = 100

    def time(self):
        t = f"2026-11-21T10:{self.minute:02d}:00Z"
        self.minute += 1
        return t

    def next_rv(self):
        self.rv += 1
        return str(self.rv)

    def cluster(self, facts):
        self.lines.append({"time": self.time(), "type": "Cluster", "facts": facts})

    def obj(self, typ, o):
        self.lines.append({"time": self.time(), "type": typ, "object": o})

    def result(self, action, ok, status=None, error=None):
        e = {"time": self.time(), "type": "ActionResult", "action": action, "ok": ok}
        if status is not None:
            e["status"] = status
        if error is not None:
            e["error"] = error
        self.lines.append(e)

    def write(self, name, args=("--domains", "disconnected")):
        with open(os.path.join(HERE, name + ".jsonl"), "w") as f:
            for l in self.lines:
                f.write(json.dumps(l, separators=(",", ":")) + "\n")
        with open(os.path.join(HERE, name + ".args"), "w") as f:
            f.write("\n".join(args) + "\n")


def dfa(name, generation=1, spec=None, status=None, rv="100"):
    o = {"apiVersion": API, "kind": "DisconnectedFriendlyApp",
         "metadata": {"name": name, "namespace": NS, "uid": f"uid-dfa-{name}", "generation": generation,
                      "resourceVersion": rv},
         "spec": spec or {}}
    if status is not None:
        o["status"] = status
    return o


def status(busybox, sleeper, generation=1):
    return {"observedGeneration": generation, "busyBoxImage": busybox, "sleeperImage": sleeper,
            "defaultBusyBoxImage": "docker.io/busybox:latest", "defaultSleeperImage": "docker.io/ubuntu:latest"}


def deployment(log, app, inst, image, replicas=1, generation=1):
    """The operand Deployment as the API server returns it after the create."""
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": f"{app}-{inst}", "namespace": NS, "uid": f"uid-{app}-{inst}",
                     "resourceVersion": log.next_rv(), "generation": generation,
                     "labels": {"app": app},
                     "ownerReferences": [{"apiVersion": API, "kind": "DisconnectedFriendlyApp", "name": inst,
                                          "uid": f"uid-dfa-{inst}", "controller": True,
                                          "blockOwnerDeletion": True}]},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": app}},
                 "template": {"metadata": {"generateName": f"{app}-", "namespace": NS, "labels": {"app": app}},
                              "spec": {"containers": [{"name": app, "image": image,
                                                       "command": ["/bin/sleep", "infinity"],
                                                       "imagePullPolicy": "Always",
                                                       "resources": {},
                                                       "terminationMessagePath": "/dev/termination-log",
                                                       "terminationMessagePolicy": "File"}],
                                       "restartPolicy": "Always", "dnsPolicy": "ClusterFirst"}},
                 "strategy": {"type": "RollingUpdate"}, "revisionHistoryLimit": 10,
                 "progressDeadlineSeconds": 600},
        "status": {"observedGeneration": generation, "replicas": replicas, "readyReplicas": replicas},
    }


def env(busybox=FEDORA, sleeper=FEDORA):
    e = {}
    if busybox is not None:
        e["DFA_BUSYBOX_IMAGE"] = busybox
    if sleeper is not None:
        e["DFA_SLEEPER_IMAGE"] = sleeper
    return {"operatorEnv": e}


def created(log, inst, busybox, sleeper, generation=1):
    """The watch events an instance's first sync causes."""
    log.obj("Added", deployment(log, "busybox", inst, busybox))
    log.obj("Added", deployment(log, "sleeper", inst, sleeper))
    log.obj("Modified", dfa(inst, generation, status=status(busybox, sleeper, generation), rv=log.next_rv()))


def create():
    log = Log()
    log.cluster({"architecture": "x86_64", **env()})
    log.obj("Added", dfa("demo"))
    created(log, "demo", FEDORA, FEDORA)
    log.write("create")


def fallback_images():
    log = Log()
    log.cluster({"architecture": "x86_64"})
    log.obj("Added", dfa("demo"))
    created(log, "demo", "docker.io/busybox:latest", "docker.io/ubuntu:latest")
    # Only the sleeper's variable appears: the busybox keeps its fallback.
    log.cluster(env(busybox=None, sleeper=FEDORA))
    log.write("fallback_images")


def spec_update():
    log = Log()
    log.cluster(env())
    log.obj("Added", dfa("demo"))
    created(log, "demo", FEDORA, FEDORA)
    # The user scales busybox to 3 (generation 2).
    log.obj("Modified", dfa("demo", 2, spec={"busyBoxReplicas": 3}, status=status(FEDORA, FEDORA), rv=log.next_rv()))
    d = deployment(log, "busybox", "demo", FEDORA, replicas=3, generation=2)
    log.obj("Modified", d)
    log.obj("Modified", dfa("demo", 2, spec={"busyBoxReplicas": 3}, status=status(FEDORA, FEDORA, 2),
                            rv=log.next_rv()))
    log.write("spec_update")


def env_change():
    log = Log()
    log.cluster(env())
    log.obj("Added", dfa("a"))
    created(log, "a", FEDORA, FEDORA)
    log.obj("Added", dfa("b"))
    created(log, "b", FEDORA, FEDORA)
    # A new CSV's RELATED_IMAGE_* (mirrored by the cluster admin) restarts the
    # operator with a new DFA_BUSYBOX_IMAGE: every instance follows.
    log.cluster(env(busybox=MIRROR, sleeper=FEDORA))
    for inst in ("a", "b"):
        log.obj("Modified", deployment(log, "busybox", inst, MIRROR, generation=2))
        log.obj("Modified", dfa(inst, status=status(MIRROR, FEDORA), rv=log.next_rv()))
    # The same environment again: nothing to do.
    log.cluster(env(busybox=MIRROR, sleeper=FEDORA))
    log.write("env_change")


def drifted_image():
    log = Log()
    log.cluster(env())
    log.obj("Added", dfa("demo"))
    created(log, "demo", FEDORA, FEDORA)
    # Someone edits the sleeper's image and adds an annotation of their own.
    d = deployment(log, "sleeper", "demo", "docker.io/ubuntu:22.04", generation=2)
    d["metadata"]["annotations"] = {"owner": "someone"}
    log.obj("Modified", d)
    # The repair lands (the annotation stays).
    d = deployment(log, "sleeper", "demo", FEDORA, generation=3)
    d["metadata"]["annotations"] = {"owner": "someone"}
    log.obj("Modified", d)
    log.write("drifted_image")


def deleted_deployment():
    log = Log()
    log.cluster(env())
    log.obj("Added", dfa("demo"))
    created(log, "demo", FEDORA, FEDORA)
    log.obj("Deleted", deployment(log, "busybox", "demo", FEDORA))
    log.obj("Added", deployment(log, "busybox", "demo", FEDORA))
    # Deleted again, then an unrelated status echo while the re-create is
    # in flight: the create is not repeated.
    log.obj("Deleted", deployment(log, "busybox", "demo", FEDORA))
    log.obj("Modified", dfa("demo", status=status(FEDORA, FEDORA), rv=log.next_rv()))
    log.obj("Added", deployment(log, "busybox", "demo", FEDORA))
    log.write("deleted_deployment")


def instance_deleted():
    log = Log()
    log.cluster(env())
    log.obj("Added", dfa("demo"))
    created(log, "demo", FEDORA, FEDORA)
    gone = dfa("demo", status=status(FEDORA, FEDORA), rv=log.next_rv())
    gone["metadata"]["deletionTimestamp"] = "2026-11-21T10:05:00Z"
    log.obj("Modified", gone)
    log.obj("Deleted", gone)
    # Garbage collection removes the operands; the environment changes: no
    # write may resurrect them.
    log.obj("Deleted", deployment(log, "busybox", "demo", FEDORA))
    log.obj("Deleted", deployment(log, "sleeper", "demo", FEDORA))
    log.cluster(env(busybox=MIRROR))
    log.write("instance_deleted")


def operator_deployment_env():
    """The environment read from the operator's own Deployment (as OLM
    creates it from the CSV), with $(RELATED_IMAGE_*) references expanded."""
    log = Log()

    def operator(related, rv):
        return {"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": OP_NAME, "namespace": OP_NS, "uid": "uid-operator", "resourceVersion": rv},
                "spec": {"replicas": 1, "template": {"spec": {"containers": [
                    {"name": "kube-rbac-proxy", "image": "gcr.io/kubebuilder/kube-rbac-proxy@sha256:d99a8d144816b951a67648c12c0b988936ccd25cf3754f3cd85ab8c01592248f"},
                    {"name": "manager",
                     "image": "quay.io/opdev/simple-disconnected-operator-cm@sha256:c493825f45109230e0a03b4f102bad10130164330d396f545e2ae88794b4f7d9",
                     "env": [{"name": "RELATED_IMAGE_FEDORA", "value": related},
                             {"name": "DFA_SLEEPER_IMAGE", "value": "$(RELATED_IMAGE_FEDORA)"},
                             {"name": "DFA_BUSYBOX_IMAGE", "value": "$(RELATED_IMAGE_FEDORA)"}]}]}}}}

    # Facts say something else: the observed Deployment wins.
    log.cluster(env(busybox="ignored.example.com/busybox:1", sleeper="ignored.example.com/sleeper:1"))
    log.obj("Added", operator(FEDORA, "10"))
    log.obj("Added", dfa("demo"))
    created(log, "demo", FEDORA, FEDORA)
    # An upgrade rolls the operator with a new related image.
    log.obj("Modified", operator(FEDORA_NEXT, "11"))
    log.write("operator_deployment_env",
              ("--domains", "disconnected", "--set", f"disconnected.operatorDeployment={OP_NS}/{OP_NAME}"))


def failed_write():
    log = Log()
    log.cluster(env())
    log.obj("Added", dfa("demo"))          # seq 2: actions 2.0 (busybox), 2.1 (sleeper), 2.2 (status)
    log.result("2.1", False, 500, "Internal error")  # the sleeper create fails: tried again
    log.obj("Added", deployment(log, "busybox", "demo", FEDORA))
    log.obj("Added", deployment(log, "sleeper", "demo", FEDORA))
    log.obj("Modified", dfa("demo", status=status(FEDORA, FEDORA), rv=log.next_rv()))
    log.write("failed_write")


def refused_status():
    log = Log()
    log.cluster(env())
    log.obj("Added", dfa("demo"))          # seq 2: actions 2.0 (busybox), 2.1 (sleeper), 2.2 (status)
    # A server refuses the status write (422): held, not sent again in reply.
    log.result("2.2", False, 422, 'DisconnectedFriendlyApp.tools.opdev.io "demo" is invalid: '
               'metadata.resourceVersion: Invalid value: 0x0: must be specified for an update')
    log.obj("Added", deployment(log, "busybox", "demo", FEDORA))  # no status write: the same one is held
    log.obj("Added", deployment(log, "sleeper", "demo", FEDORA))
    # The instance changes (a label): seen newer, the status is written again.
    o = dfa("demo", rv=log.next_rv())
    o["metadata"]["labels"] = {"team": "apps"}
    log.obj("Modified", o)
    log.write("refused_status")


def listed_before_deployments():
    """An agent starts on a cluster that runs the instance already: its lists
    show the instance before its Deployments (they come on another watch),
    and a resync timer fires meanwhile. Nothing is decided before the lists
    are complete (the Cluster event with synced: true), when nothing is
    missing. (Deciding at the instance's event created both Deployments
    again: AlreadyExists, the four-domain soak's faulty runs.)"""
    log = Log()
    log.cluster({"synced": False})
    log.obj("Added", dfa("demo", status=status(FEDORA, FEDORA), rv=log.next_rv()))
    log.lines.append({"time": log.time(), "type": "Timer", "timer": "disconnected/resync"})
    log.obj("Added", deployment(log, "busybox", "demo", FEDORA))
    log.obj("Added", deployment(log, "sleeper", "demo", FEDORA))
    log.cluster({"synced": True, "architecture": "x86_64", **env()})
    log.write("listed_before_deployments",
              args=("--domains", "disconnected", "--set", "disconnected.resyncPeriod=5m"))


for fn in (create, fallback_images, spec_update, env_change, drifted_image, deleted_deployment, instance_deleted,
           operator_deployment_env, failed_write, refused_status, listed_before_deployments):
    fn()
