#!/usr/bin/env python3
"""Writes the issue-19 olm scenarios (<name>.jsonl, <name>.args, and
<name>.jsonl.without-rv) in this folder:

  plans_after_subscriptions   cold start: the Subscription is listed before
                              the InstallPlan it references
  foreign_plan_names          a log recorded beside the real OLM: its own
                              InstallPlan names, its intermediate AtLatestKnown
                              status writes
  leader_takeover_mid_upgrade a new leader's relist: the old leader created the
                              step's InstallPlan and wrote the Subscription,
                              and stopped before writing the plan's status
  conflict_then_ten_writes    a Subscription status write answered 409, then
                              ten more status writes around another writer

The catalog is real: the package cluster-impairment-operator exactly as
datasets/olm/community-derived/catalog.json has it (lines 3193-3198,
copied below byte for byte; check_catalog() compares them when the file is
there). Objects that come from a real API server (the real OLM's, the ones
listed at a cold start) have their keys sorted at every level, as a
kube-apiserver serializes custom resources; the objects recon's own writes
produce keep the order recon wrote them in, as the simulated cluster does.

Successful ActionResults carry the "resourceVersion" and "uid" the server
returned (issue 19). The reader of the current build refuses those fields
("unknown field"), so each log that has them is also written without them as
<name>.jsonl.without-rv (not a scenario: run_scenario.cmake and the
determinism test only pick *.jsonl); README-olm19.md says what the current
build does with each.

The .expected files are written by hand (they specify the behaviour after
issue 19, which no build has yet); this script only writes the logs.
"""
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = HERE  # --control DIR writes there
_src = open(os.path.join(HERE, "make_scenarios.py")).read()
exec(compile(_src[:_src.index("# ---- catalog building")], "make_scenarios.py", "exec"))  # plan_name

API = "operators.coreos.com/v1alpha1"
NS = "openshift-operators"
MKT = "openshift-marketplace"
CS = "community-operators"
PKG = "cluster-impairment-operator"
SUB = PKG

CATALOG_LINES = [
    '{"defaultChannel": "beta", "name": "cluster-impairment-operator", "schema": "olm.package"}\n',
    '{"entries": [{"name": "cluster-impairment-operator.v1.0.1"}, {"name": "cluster-impairment-operator.v1.0.2", "replaces": "cluster-impairment-operator.v1.0.1"}, {"name": "cluster-impairment-operator.v1.0.3", "replaces": "cluster-impairment-operator.v1.0.2"}, {"name": "cluster-impairment-operator.v1.0.4", "replaces": "cluster-impairment-operator.v1.0.3"}], "name": "beta", "package": "cluster-impairment-operator", "schema": "olm.channel"}\n',
    '{"image": "derived.invalid/community-operators-prod/cluster-impairment-operator:1.0.1", "name": "cluster-impairment-operator.v1.0.1", "package": "cluster-impairment-operator", "properties": [{"type": "olm.package", "value": {"packageName": "cluster-impairment-operator", "version": "1.0.1"}}, {"type": "olm.gvk", "value": {"group": "apps.redhat.com", "kind": "ClusterImpairment", "version": "v1alpha1"}}], "schema": "olm.bundle"}\n',
    '{"image": "derived.invalid/community-operators-prod/cluster-impairment-operator:1.0.2", "name": "cluster-impairment-operator.v1.0.2", "package": "cluster-impairment-operator", "properties": [{"type": "olm.package", "value": {"packageName": "cluster-impairment-operator", "version": "1.0.2"}}, {"type": "olm.gvk", "value": {"group": "apps.redhat.com", "kind": "ClusterImpairment", "version": "v1alpha1"}}], "schema": "olm.bundle"}\n',
    '{"image": "derived.invalid/community-operators-prod/cluster-impairment-operator:1.0.3", "name": "cluster-impairment-operator.v1.0.3", "package": "cluster-impairment-operator", "properties": [{"type": "olm.package", "value": {"packageName": "cluster-impairment-operator", "version": "1.0.3"}}, {"type": "olm.gvk", "value": {"group": "apps.redhat.com", "kind": "ClusterImpairment", "version": "v1alpha1"}}], "schema": "olm.bundle"}\n',
    '{"image": "derived.invalid/community-operators-prod/cluster-impairment-operator:1.0.4", "name": "cluster-impairment-operator.v1.0.4", "package": "cluster-impairment-operator", "properties": [{"type": "olm.package", "value": {"packageName": "cluster-impairment-operator", "version": "1.0.4"}}, {"type": "olm.gvk", "value": {"group": "apps.redhat.com", "kind": "ClusterImpairment", "version": "v1alpha1"}}], "schema": "olm.bundle"}\n',
]
GVK = {"group": "apps.redhat.com", "version": "v1alpha1", "kind": "ClusterImpairment"}

UID_CS = "5c1f0b9e-3d0a-4c55-9a8e-1b7e02d4a6f3"
UID_OG = "0e6b3f2a-9b7c-4a41-8d5e-7f0c1a2b3c4d"
UID_SUB = "8d3b6a52-71f4-4f0e-b2a9-6c0d9e1f2a37"


def check_catalog():
    path = os.path.join(HERE, "..", "..", "..", "..", "shared", "data", "olm", "community-derived", "catalog.json")
    if not os.path.exists(path):
        return
    with open(path) as f:
        lines = [l for l in f if '"cluster-impairment-operator' in l and
                 ('"package": "cluster-impairment-operator"' in l or '"name": "cluster-impairment-operator"' in l)]
    assert lines == CATALOG_LINES, "catalog lines differ from community-derived"


def csv_name(v):
    return f"{PKG}.v{v}"


def sort_keys(o):
    if isinstance(o, dict):
        return {k: sort_keys(o[k]) for k in sorted(o)}
    if isinstance(o, list):
        return [sort_keys(x) for x in o]
    return o


class Log:
    """Events in order; seq = line number."""

    def __init__(self, start_minute=0):
        self.lines = []
        self.t = start_minute * 60

    def now(self):
        s = self.t
        return "2026-11-21T10:%02d:%02dZ" % (s // 60, s % 60)

    def tick(self, n=1):
        self.t += n

    def add(self, ev):
        self.lines.append(ev)
        return len(self.lines)  # the seq

    def cluster(self, facts):
        return self.add({"time": self.now(), "type": "Cluster", "facts": facts})

    def content(self):
        return self.add({"time": self.now(), "type": "Content", "name": f"olm/catalog/{MKT}/{CS}",
                         "files": {"catalog.json": "".join(CATALOG_LINES)}})

    def obj(self, typ, o, sort=False):
        return self.add({"time": self.now(), "type": typ, "object": sort_keys(o) if sort else o})

    def result(self, action, ok=True, status=200, rv=None, uid=None, error=None):
        ev = {"time": self.now(), "type": "ActionResult", "action": action, "ok": ok}
        if status is not None:  # None: no answer from the server (Interrupted)
            ev["status"] = status
        if error is not None:
            ev["error"] = error
        if rv is not None:
            ev["resourceVersion"] = rv
        if uid is not None:
            ev["uid"] = uid
        return self.add(ev)

    def write(self, name):
        def dump(ev):
            return json.dumps(ev, separators=(",", ":"))
        with open(os.path.join(OUT, name + ".jsonl"), "w") as f:
            f.write("".join(dump(e) + "\n" for e in self.lines))
        stripped = []
        for e in self.lines:
            if e["type"] == "ActionResult":
                e = {k: v for k, v in e.items() if k not in ("resourceVersion", "uid")}
            stripped.append(e)
        if stripped != self.lines:  # only logs with a successful ActionResult
            with open(os.path.join(OUT, name + ".jsonl.without-rv"), "w") as f:
                f.write("".join(dump(e) + "\n" for e in stripped))
        with open(os.path.join(OUT, name + ".args"), "w") as f:
            # Timelines written for one combined status write per sync.
            f.write("--domains\nolm\n--set\nolm.executePlans=false\n--set\nolm.subscriptionWrites=combined\n")


# ---- objects as a real server shows them ---------------------------------------

def operator_group(rv):
    return {"apiVersion": "operators.coreos.com/v1", "kind": "OperatorGroup",
            "metadata": {"name": "global-operators", "namespace": NS, "uid": UID_OG, "resourceVersion": rv,
                         "generation": 1, "creationTimestamp": "2026-11-02T08:14:51Z"},
            "spec": {"upgradeStrategy": "Default"},
            "status": {"lastUpdated": "2026-11-02T08:14:52Z", "namespaces": [""]}}


def catalog_source(rv):
    return {"apiVersion": API, "kind": "CatalogSource",
            "metadata": {"name": CS, "namespace": MKT, "uid": UID_CS, "resourceVersion": rv, "generation": 1,
                         "creationTimestamp": "2026-11-02T08:13:10Z"},
            "spec": {"displayName": "Community Operators", "publisher": "Red Hat", "sourceType": "grpc",
                     "image": "registry.redhat.io/redhat/community-operator-index:v4.19",
                     "updateStrategy": {"registryPoll": {"interval": "10m"}}},
            "status": {"connectionState": {"address": f"{CS}.{MKT}.svc:50051",
                                           "lastConnect": "2026-11-21T09:50:12Z", "lastObservedState": "READY"},
                       "registryService": {"createdAt": "2026-11-02T08:13:10Z", "port": "50051",
                                           "protocol": "grpc", "serviceName": CS, "serviceNamespace": MKT}}}


def subscription(rv, status=None, starting=None, labels=None, annotations=None, uid=UID_SUB):
    meta = {"name": SUB, "namespace": NS, "uid": uid, "resourceVersion": rv, "generation": 1,
            "creationTimestamp": "2026-11-21T09:40:00Z",
            "labels": {f"operators.coreos.com/{PKG}.{NS}": ""}}
    if labels:
        meta["labels"].update(labels)
    if annotations:
        meta["annotations"] = annotations
    spec = {"channel": "beta", "installPlanApproval": "Automatic", "name": PKG, "source": CS,
            "sourceNamespace": MKT}
    if starting:
        spec["startingCSV"] = starting
    o = {"apiVersion": API, "kind": "Subscription", "metadata": meta, "spec": spec}
    if status is not None:
        o["status"] = status
    return o


def csv(version, rv, phase="Succeeded", replaces=None, reason=None):
    name = csv_name(version)
    props = {"properties": [{"type": "olm.gvk", "value": GVK},
                            {"type": "olm.package", "value": {"packageName": PKG, "version": version}}]}
    spec = {"displayName": "Cluster Impairment Operator", "version": version,
            "customresourcedefinitions": {"owned": [{"name": "clusterimpairments.apps.redhat.com",
                                                     "version": "v1alpha1", "kind": "ClusterImpairment"}]},
            "install": {"strategy": "deployment"}, "installModes": [
                {"type": "OwnNamespace", "supported": True}, {"type": "SingleNamespace", "supported": True},
                {"type": "MultiNamespace", "supported": False}, {"type": "AllNamespaces", "supported": True}]}
    if replaces:
        spec["replaces"] = csv_name(replaces)
    reasons = {"Succeeded": "InstallSucceeded", "Pending": "RequirementsUnknown", "InstallReady": "AllRequirementsMet",
               "Installing": "InstallWaiting", "Replacing": "BeingReplaced"}
    return {"apiVersion": API, "kind": "ClusterServiceVersion",
            "metadata": {"name": name, "namespace": NS, "resourceVersion": rv,
                         "uid": f"c5a0{version.replace('.', '')}-6f1e-4d8b-9c2a-3e4f5a6b7c8d",
                         "annotations": {"olm.operatorGroup": "global-operators",
                                         "olm.operatorNamespace": NS,
                                         "operatorframework.io/properties": json.dumps(props,
                                                                                       separators=(",", ":"))},
                         "labels": {"olm.api.4a3f6b2c1d0e9f87": "provided",
                                    f"operators.coreos.com/{PKG}.{NS}": ""}},
            "spec": spec,
            "status": {"phase": phase, "reason": reason or reasons[phase]}}


def csv_deleted(version, rv):
    o = csv(version, rv, phase="Replacing")
    return o


# ---- the real OLM's objects ----------------------------------------------------

def ref(kind, name, ns, rv, uid):
    return {"apiVersion": API, "kind": kind, "name": name, "namespace": ns, "resourceVersion": rv, "uid": uid}


def olm_health(cs_rv, updated):
    return [{"catalogSourceRef": ref("CatalogSource", CS, MKT, cs_rv, UID_CS), "healthy": True,
             "lastUpdated": updated}]


def cond(typ, status, reason, t, message=None):
    c = {"type": typ, "status": status, "reason": reason, "lastTransitionTime": t}
    if message:
        c["message"] = message
    return c


HEALTHY = "all available catalogsources are healthy"


def olm_sub_status(state, current, installed, gen, plan, plan_rv, plan_uid, cs_rv, health_t, conds, updated):
    """A Subscription status as the real OLM writes it: installPlanRef and the
    deprecated installplan both name the plan, references carry
    resourceVersion and uid."""
    st = {"catalogHealth": olm_health(cs_rv, health_t), "conditions": conds, "currentCSV": current,
          "lastUpdated": updated, "state": state}
    if installed:
        st["installedCSV"] = installed
    if plan:
        st["installPlanGeneration"] = gen
        st["installPlanRef"] = ref("InstallPlan", plan, NS, plan_rv, plan_uid)
        st["installplan"] = {"apiVersion": API, "kind": "InstallPlan", "name": plan, "uuid": plan_uid}
    return st


def olm_plan(name, uid, rv, gen, version, phase=None, t_start=None, t_done=None, created="2026-11-21T09:58:00Z"):
    """An InstallPlan the real OLM created (random name); phase None: bare, as
    the create left it before OLM's UpdateStatus."""
    c = csv_name(version)
    o = {"apiVersion": API, "kind": "InstallPlan",
         "metadata": {"name": name, "generateName": "install-", "namespace": NS, "uid": uid,
                      "resourceVersion": rv, "generation": 1, "creationTimestamp": created,
                      "labels": {f"operators.coreos.com/{PKG}.{NS}": ""},
                      "ownerReferences": [{"apiVersion": API, "kind": "Subscription", "name": SUB, "uid": UID_SUB,
                                           "blockOwnerDeletion": False, "controller": False}]},
         "spec": {"approval": "Automatic", "approved": True, "clusterServiceVersionNames": [c], "generation": gen}}
    if phase is None:
        return o
    done = phase == "Complete"
    step = "Created" if done else "Unknown"
    o["status"] = {
        "phase": phase, "catalogSources": [CS], "startTime": t_start,
        "plan": [
            {"resolving": c, "status": step,
             "resource": {"group": "apiextensions.k8s.io", "version": "v1", "kind": "CustomResourceDefinition",
                          "name": "clusterimpairments.apps.redhat.com", "sourceName": CS, "sourceNamespace": MKT,
                          "manifest": "{\"kind\":\"ConfigMap\",\"name\":\"" + name[-5:] + "a1b2c3\",\"namespace\":\""
                                      + MKT + "\",\"catalogSourceName\":\"" + CS + "\",\"catalogSourceNamespace\":\""
                                      + MKT + "\",\"replaces\":\"\",\"properties\":\"\"}"}},
            {"resolving": c, "status": step,
             "resource": {"group": "operators.coreos.com", "version": "v1alpha1", "kind": "ClusterServiceVersion",
                          "name": c, "sourceName": CS, "sourceNamespace": MKT,
                          "manifest": "{\"kind\":\"ConfigMap\",\"name\":\"" + name[-5:] + "a1b2c3\",\"namespace\":\""
                                      + MKT + "\",\"catalogSourceName\":\"" + CS + "\",\"catalogSourceNamespace\":\""
                                      + MKT + "\",\"replaces\":\"\",\"properties\":\"\"}"}},
        ]}
    if done:
        o["status"]["conditions"] = [{"type": "Installed", "status": "True", "lastTransitionTime": t_done,
                                      "lastUpdateTime": t_done}]
    return o


# ---- what recon writes: the expected actions ----------------------------------
#
# The .expected files specify recon after issue 19; these helpers build the
# bodies exactly as the olm reducer writes them today (field order included:
# SyncNamespaceFull, OnInstallPlan, WriteStatus), so only *which* actions
# happen differs from the current build, never how an action looks.

STATUS_ORDER = ["currentCSV", "installedCSV", "state", "installPlanGeneration", "installPlanRef",
                "catalogHealth", "conditions", "lastUpdated"]


def canonical(st):
    """Subscription status fields in recon's order, empty ones left out (ns_index.cc Canonical)."""
    return {k: st[k] for k in STATUS_ORDER if k in st and st[k] not in (None, "", [])}


def recon_ref(plan):
    return {"apiVersion": API, "kind": "InstallPlan", "name": plan, "namespace": NS}


def recon_health(t):
    return [{"catalogSourceRef": {"apiVersion": API, "kind": "CatalogSource", "name": CS, "namespace": MKT,
                                  "uid": UID_CS}, "healthy": True, "lastUpdated": t}]


def rcond(typ, status, reason, t, message=None):
    """A condition as SetCondition builds it."""
    c = {"type": typ, "status": status, "reason": reason}
    if message:
        c["message"] = message
    c["lastTransitionTime"] = t
    return c


def without(conds, typ):
    return [c for c in conds if c["type"] != typ]


def recon_status(current=None, installed=None, state=None, gen=None, plan=None, health=None, conds=None,
                 updated=None, ref=None):
    return canonical({"currentCSV": current, "installedCSV": installed, "state": state,
                      "installPlanGeneration": gen, "installPlanRef": ref or (recon_ref(plan) if plan else None),
                      "catalogHealth": health, "conditions": conds, "lastUpdated": updated})


def plan_create(name, gen, versions):
    return {"apiVersion": API, "kind": "InstallPlan",
            "metadata": {"name": name, "namespace": NS,
                         "ownerReferences": [{"apiVersion": API, "kind": "Subscription", "name": SUB,
                                              "uid": UID_SUB, "blockOwnerDeletion": False, "controller": False}]},
            "spec": {"clusterServiceVersionNames": [csv_name(v) for v in versions], "approval": "Automatic",
                     "approved": True, "generation": gen}}


def plan_status(versions):
    return {"phase": "Installing", "catalogSources": [CS],
            "plan": [{"resolving": csv_name(v),
                      "resource": {"group": "operators.coreos.com", "version": "v1alpha1",
                                   "kind": "ClusterServiceVersion", "name": csv_name(v), "sourceName": CS,
                                   "sourceNamespace": MKT},
                      "status": "Unknown"} for v in versions]}


def status_write(kind, name, rv, status):
    return {"apiVersion": API, "kind": kind, "metadata": {"name": name, "namespace": NS, "resourceVersion": rv},
            "status": status}


def served_plan(created, rv, uid, status=None, t="2026-11-21T10:00:00Z"):
    """A plan recon created, as the server stores it (status dropped on create)."""
    o = json.loads(json.dumps(created))
    o["metadata"].update({"uid": uid, "resourceVersion": rv, "generation": 1, "creationTimestamp": t})
    if status is not None:
        o["status"] = status
    return o


def effective(s, st):
    """The Subscription status a sync starts from once the echo of recon's
    write is observed (nothing of recon's in flight): the observed one,
    top-level fields in recon's order, nested ones as the server serialized
    them (keys sorted by a real server)."""
    return canonical(sort_keys(st)) if s.sort else st


def complete(status, t):
    """The plan executor's last write: every step Created, phase Complete."""
    st = json.loads(json.dumps(status))
    st["phase"] = "Complete"
    for step in st["plan"]:
        step["status"] = "Created"
    st["conditions"] = [{"type": "Installed", "status": "True", "lastTransitionTime": t, "lastUpdateTime": t}]
    return st


class Scenario(Log):
    """A log plus the actions recon must take for it."""

    def __init__(self, name, sort):
        super().__init__()
        self.name = name
        self.sort = sort
        self.expected = []

    def obj(self, typ, o):
        return super().obj(typ, o, sort=self.sort)

    def expect(self, verb, o):
        """An action the last event causes; returns its id (<cause>.<index>)."""
        cause = len(self.lines)
        idx = sum(1 for a in self.expected if a["cause"] == cause)
        self.expected.append({"cause": cause, "domain": "olm", "verb": verb, "object": o})
        return f"{cause}.{idx}"

    def write(self):
        super().write(self.name)
        with open(os.path.join(OUT, self.name + ".expected"), "w") as f:
            f.write("".join(json.dumps(a, separators=(",", ":")) + "\n" for a in self.expected))


# ---- scenarios -------------------------------------------------------------------

def plans_after_subscriptions(control=False):
    """A recon agent starts (empty store) on a cluster the real OLM ran until
    now: the Subscription is mid-upgrade (1.0.1 -> 1.0.2, UpgradePending on
    the real OLM's install-7k2xq, Installing). Its lists come Subscriptions
    first, InstallPlans last. Before they are complete (synced) nothing is
    decided (upstream waits for its caches); then the referenced plan is
    there: recon waits for it, and plans only the next step (1.0.3) once
    1.0.2 is installed. Today: the Subscription's reference to the plan not
    yet listed is dropped (InstallPlan gone) and its installedCSV, not
    listed yet either, is read as missing: a plan to re-install 1.0.1 (the
    startingCSV), then one for 1.0.2 again, then 1.0.3 at generation 5."""
    s = Scenario("plans_after_subscriptions", sort=not control)
    s.cluster({"synced": False})                       # 1 the agent starts: lists not complete
    s.content()                                        # 2 --catalog, logged at start
    s.obj("Added", operator_group("40110"))            # 3
    s.obj("Added", catalog_source("41870"))            # 4
    plan, plan_uid = "install-7k2xq", "f3e9a1c4-2b7d-4e6f-8a90-1c2d3e4f5a6b"
    t_h, t_ip = "2026-11-21T09:40:01Z", "2026-11-21T09:58:00Z"
    conds = [cond("CatalogSourcesUnhealthy", "False", "AllCatalogSourcesHealthy", t_h, HEALTHY),
             cond("InstallPlanPending", "True", "Installing", t_ip)]
    st = olm_sub_status("UpgradePending", csv_name("1.0.2"), csv_name("1.0.1"), 2, plan, "52290", plan_uid,
                        "41870", t_h, conds, t_ip)
    if control:  # CONTROL: recon's own format, the plan listed first (checks the model against a build)
        st = recon_status(csv_name("1.0.2"), csv_name("1.0.1"), "UpgradePending", 2, ref=st["installPlanRef"],
                          health=recon_health(t_h), conds=[rcond("CatalogSourcesUnhealthy", "False",
                                                                   "AllCatalogSourcesHealthy", t_h, HEALTHY),
                                                             rcond("InstallPlanPending", "True", "Installing", t_ip)],
                          updated=t_ip)
        s.obj("Added", csv("1.0.1", "49012"))
        s.obj("Added", olm_plan(plan, plan_uid, "52296", 2, "1.0.2", phase="Installing", t_start=t_ip))
        s.obj("Added", subscription("52301", st, starting=csv_name("1.0.1")))
    else:
        s.obj("Added", subscription("52301", st, starting=csv_name("1.0.1")))             # 5
        s.obj("Added", csv("1.0.1", "49012"))                                             # 6
        s.obj("Added", olm_plan(plan, plan_uid, "52296", 2, "1.0.2", phase="Installing", t_start=t_ip))  # 7
    s.cluster({"synced": True})                        # 8 lists complete: nothing to do, the plan runs
    s.tick(20)
    s.obj("Modified", olm_plan(plan, plan_uid, "52340", 2, "1.0.2", phase="Complete", t_start=t_ip,
                               t_done=s.now()))                                       # 9
    # The plan is Complete: InstallPlanPending goes (upstream writes this too).
    st9 = canonical(st if control else sort_keys(st))
    st9["conditions"] = without(st9["conditions"], "InstallPlanPending")
    st9["lastUpdated"] = s.now()
    a = s.expect("updateStatus", status_write("Subscription", SUB, "52301", st9))
    s.tick()
    s.result(a, rv="52349", uid=UID_SUB)                                              # 10
    s.obj("Modified", subscription("52349", st9, starting=csv_name("1.0.1")))         # 11 echo
    s.tick()
    s.obj("Deleted", csv("1.0.1", "52350", phase="Replacing"))                        # 12
    s.tick()
    s.obj("Added", csv("1.0.2", "52351", replaces="1.0.1"))                           # 13 1.0.2 installed
    # The move to AtLatestKnown is written alone; the next step is resolved on its echo.
    st_inst = canonical(dict(st9, installedCSV=csv_name("1.0.2"), state="AtLatestKnown"))
    st_inst["lastUpdated"] = s.now()
    a = s.expect("updateStatus", status_write("Subscription", SUB, "52349", st_inst))
    s.tick()
    s.result(a, rv="52353", uid=UID_SUB)
    s.obj("Modified", subscription("52353", st_inst, starting=csv_name("1.0.1")))     # echo
    n3 = plan_name(NS, 3, [csv_name("1.0.3")])
    ip3 = plan_create(n3, 3, ["1.0.3"])
    a0 = s.expect("create", ip3)
    st13 = recon_status(csv_name("1.0.3"), csv_name("1.0.2"), "UpgradePending", 3, n3, st9["catalogHealth"],
                        st9["conditions"] + [rcond("InstallPlanPending", "True", "Installing", s.now())], s.now())
    a1 = s.expect("updateStatus", status_write("Subscription", SUB, "52353", st13))
    s.tick()
    uid3 = "2a7c9e41-5b3d-4f60-8e1a-9d2c3b4a5f60"
    s.result(a0, status=201, rv="52356", uid=uid3)                                    # 14
    s.result(a1, rv="52357", uid=UID_SUB)                                             # 15
    s.tick()
    s.obj("Added", served_plan(ip3, "52356", uid3, t=s.now()))                        # 16 bare
    a = s.expect("updateStatus", status_write("InstallPlan", n3, "52356", plan_status(["1.0.3"])))
    s.obj("Modified", subscription("52357", st13, starting=csv_name("1.0.1")))        # 17 echo
    s.tick()
    s.result(a, rv="52360", uid=uid3)                                                 # 18
    s.obj("Modified", served_plan(ip3, "52360", uid3, plan_status(["1.0.3"]), t="2026-11-21T10:00:24Z"))  # 19
    s.write()



def foreign_plan_names(control=False):
    """A log recorded beside the real OLM, which does the work: recon ran in
    shadow mode (--shadow: it predicts, sends nothing, so no ActionResult and
    none of its objects appear). The Subscription starts at 1.0.2 and OLM
    walks it to 1.0.4 in three InstallPlans of its own (install-2vx4k,
    install-8m5tz, install-q9wlt). OLM writes the Subscription status in
    several steps, as it does: catalog health first, the plan reference
    after creating the plan, InstallPlanPending removed when the plan
    completes, and an intermediate AtLatestKnown once the new CSV exists
    (it resolves the next step only on that write's event).

    recon predicts one InstallPlan per step, each at the event that makes the
    step visible (the Subscription, then each new CSV). Every status OLM
    writes is another writer's and wins: a reference to OLM's plan is
    adopted (no write, no plan); OLM's catalog health and conditions, equal
    to recon's but for format (resourceVersion in catalogSourceRef, keys
    sorted), are no change; an intermediate AtLatestKnown makes recon point
    the Subscription at its own plan for the next step again (in flight:
    reused, never created twice). Today: where OLM's reference arrives
    before its plan (the InstallPlan watch relists), the reference is
    dropped and the Subscription pointed back at recon's own plan instead
    of adopting OLM's; OLM's statuses (resourceVersion in catalogSourceRef,
    keys sorted) are rewritten as CatalogSourcesUpdated. No duplicate plan:
    in a shadow log recon's own creates stay in flight, and are reused.
    OLM's plan with the spec of recon's plan in flight (install-q9wlt: same
    generation, CSVs and approval) gets the first status recon's would have
    (issue 49's U3; without executePlans, a bare CSV step)."""
    s = Scenario("foreign_plan_names", sort=not control)
    t_h = "2026-11-21T10:00:04Z"

    def health():
        return recon_health(t_h) if control else olm_health("41870", t_h)

    def conds(pending_since=None):
        c = [(rcond if control else cond)("CatalogSourcesUnhealthy", "False", "CatalogSourcesAdded", t_h, HEALTHY)]
        if pending_since:
            c.append((rcond if control else cond)("InstallPlanPending", "True", "Installing", pending_since))
        return c if control else sort_keys(c)  # as served: keys sorted

    def olm_write(rv, state, current, installed, gen, plan, plan_rv, plan_uid, pending_since):
        if control:
            st = recon_status(current, installed, state, gen, plan, health(), conds(pending_since), s.now())
        elif plan is None:
            st = {"catalogHealth": health(), "conditions": conds(), "lastUpdated": s.now()}
        else:
            st = olm_sub_status(state, current, installed, gen, plan, plan_rv, plan_uid, "41870", t_h,
                                conds(pending_since), s.now())
        return s.obj("Modified", subscription(rv, st, starting=csv_name("1.0.2")))

    s.content()                                         # 1
    s.obj("Added", operator_group("40110"))             # 2
    s.obj("Added", catalog_source("41870"))             # 3
    s.tick(3)
    s.obj("Added", subscription("60001", None, starting=csv_name("1.0.2")))  # 4 a user subscribes
    p1 = plan_name(NS, 1, [csv_name("1.0.2")])
    s.expect("create", plan_create(p1, 1, ["1.0.2"]))
    s.expect("updateStatus", status_write("Subscription", SUB, "60001", recon_status(
        csv_name("1.0.2"), None, "UpgradePending", 1, p1, recon_health(s.now()),
        [rcond("CatalogSourcesUnhealthy", "False", "CatalogSourcesAdded", s.now(), HEALTHY),
         rcond("InstallPlanPending", "True", "Installing", s.now())], s.now())))
    s.tick()
    olm_write("60003", None, None, None, None, None, None, None, None)       # 5 OLM: catalog health
    # Another writer's status: recon's step is still planned (its create in
    # flight): the reference is written again, the plan not created again.
    s.expect("updateStatus", status_write("Subscription", SUB, "60003", recon_status(
        csv_name("1.0.2"), None, "UpgradePending", 1, p1, health(),
        conds() + [rcond("InstallPlanPending", "True", "Installing", s.now())], s.now())))
    s.tick()
    # OLM creates install-2vx4k and points the Subscription at it. recon's
    # InstallPlan watch is being re-established (its timeout came), so the
    # plan reaches recon only with the relist, after the Subscription.
    ip_a, uid_a = "install-2vx4k", "6b1d8e2f-4a3c-4b5d-9e6f-0a1b2c3d4e5f"
    t_pending_a = s.now()
    first, then = (lambda: olm_write("60007", "UpgradePending", csv_name("1.0.2"), None, 1, ip_a, "60005", uid_a,
                                     t_pending_a),
                   lambda: s.obj("Added", olm_plan(ip_a, uid_a, "60005", 1, "1.0.2", phase="Installing",
                                                   t_start=t_pending_a, created=t_pending_a)))
    if control:  # CONTROL: the plan first
        first, then = then, first
    first()                                                                               # 6 not seen yet
    s.tick()
    then()                                                                                # 7 relisted: adopted
    s.tick(20)
    s.obj("Added", csv("1.0.2", "60120", phase="Pending"))                                # 9 created by the plan
    p2 = plan_name(NS, 2, [csv_name("1.0.3")])
    s.expect("create", plan_create(p2, 2, ["1.0.3"]))
    s.expect("updateStatus", status_write("Subscription", SUB, "60007", recon_status(
        csv_name("1.0.3"), csv_name("1.0.2"), "UpgradePending", 2, p2, health(),
        conds() + [rcond("InstallPlanPending", "True", "Installing", t_pending_a)], s.now())))
    s.tick()
    s.obj("Modified", olm_plan(ip_a, uid_a, "60125", 1, "1.0.2", phase="Complete", t_start=t_pending_a,
                               t_done=s.now(), created=t_pending_a))                      # 10
    s.tick()
    s.obj("Modified", csv("1.0.2", "60131"))                                              # 11 Succeeded
    s.tick()
    olm_write("60135", "AtLatestKnown", csv_name("1.0.2"), csv_name("1.0.2"), 1, ip_a, "60125", uid_a, None)  # 12
    s.expect("updateStatus", status_write("Subscription", SUB, "60135", recon_status(
        csv_name("1.0.3"), csv_name("1.0.2"), "UpgradePending", 2, p2, health(),
        conds() + [rcond("InstallPlanPending", "True", "Installing", s.now())], s.now())))
    s.tick()
    ip_b, uid_b = "install-8m5tz", "7c2e9f30-5b4d-4c6e-8f70-1b2c3d4e5f60"
    t_b = s.now()
    first, then = (lambda: olm_write("60144", "UpgradePending", csv_name("1.0.3"), csv_name("1.0.2"), 2, ip_b,
                                     "60141", uid_b, t_b),
                   lambda: s.obj("Added", olm_plan(ip_b, uid_b, "60141", 2, "1.0.3", phase="Installing",
                                                   t_start=t_b, created=t_b)))
    if control:
        first, then = then, first
    first()                                                                               # 12 not seen yet
    s.tick()
    then()                                                                                # 13 relisted: adopted
    st13 = s.lines[-1 if control else -2]["object"]["status"]
    s.tick(20)
    s.obj("Modified", olm_plan(ip_b, uid_b, "60210", 2, "1.0.3", phase="Complete", t_start=t_b, t_done=s.now(),
                               created=t_b))                                              # 16
    st16 = canonical(st13)
    st16["conditions"] = without(st16["conditions"], "InstallPlanPending")
    st16["lastUpdated"] = s.now()
    s.expect("updateStatus", status_write("Subscription", SUB, "60144", st16))
    s.tick()
    olm_write("60214", "UpgradePending", csv_name("1.0.3"), csv_name("1.0.2"), 2, ip_b, "60210", uid_b, None)  # 17
    s.tick()
    s.obj("Deleted", csv("1.0.2", "60220", phase="Replacing"))                            # 18
    s.tick()
    s.obj("Added", csv("1.0.3", "60226", replaces="1.0.2"))                               # 19
    p3 = plan_name(NS, 3, [csv_name("1.0.4")])
    s.expect("create", plan_create(p3, 3, ["1.0.4"]))
    s.expect("updateStatus", status_write("Subscription", SUB, "60214", recon_status(
        csv_name("1.0.4"), csv_name("1.0.3"), "UpgradePending", 3, p3, health(),
        conds() + [rcond("InstallPlanPending", "True", "Installing", s.now())], s.now())))
    s.tick()
    olm_write("60230", "AtLatestKnown", csv_name("1.0.3"), csv_name("1.0.3"), 2, ip_b, "60210", uid_b, None)  # 20
    s.expect("updateStatus", status_write("Subscription", SUB, "60230", recon_status(
        csv_name("1.0.4"), csv_name("1.0.3"), "UpgradePending", 3, p3, health(),
        conds() + [rcond("InstallPlanPending", "True", "Installing", s.now())], s.now())))
    s.tick()
    ip_c, uid_c = "install-q9wlt", "8d3fa041-6c5e-4d7f-9a81-2c3d4e5f6a71"
    s.obj("Added", olm_plan(ip_c, uid_c, "60233", 3, "1.0.4", created=s.now()))          # 21
    s.obj("Modified", olm_plan(ip_c, uid_c, "60234", 3, "1.0.4", phase="Installing", t_start=s.now(),
                               created=s.now()))                                          # 22
    t_c = s.now()
    s.tick()
    olm_write("60238", "UpgradePending", csv_name("1.0.4"), csv_name("1.0.3"), 3, ip_c, "60234", uid_c,
              s.now())                                                                    # 23 adopted
    st23 = s.lines[-1]["object"]["status"]
    s.tick(20)
    s.obj("Modified", olm_plan(ip_c, uid_c, "60301", 3, "1.0.4", phase="Complete", t_start=t_c, t_done=s.now(),
                               created=t_c))                                              # 24
    st24 = canonical(st23)
    st24["conditions"] = without(st24["conditions"], "InstallPlanPending")
    st24["lastUpdated"] = s.now()
    s.expect("updateStatus", status_write("Subscription", SUB, "60238", st24))
    s.tick()
    olm_write("60305", "UpgradePending", csv_name("1.0.4"), csv_name("1.0.3"), 3, ip_c, "60301", uid_c, None)  # 25
    st25 = s.lines[-1]["object"]["status"]
    s.tick()
    s.obj("Deleted", csv("1.0.3", "60309", phase="Replacing"))                            # 26
    s.tick()
    s.obj("Added", csv("1.0.4", "60312", replaces="1.0.3"))                               # 27 at the head
    st27 = canonical(st25)
    st27["installedCSV"] = csv_name("1.0.4")
    st27["state"] = "AtLatestKnown"
    st27 = canonical(st27)
    st27["lastUpdated"] = s.now()
    s.expect("updateStatus", status_write("Subscription", SUB, "60305", st27))
    s.tick()
    olm_write("60316", "AtLatestKnown", csv_name("1.0.4"), csv_name("1.0.4"), 3, ip_c, "60301", uid_c, None)  # 28
    s.write()



class Server:
    """The objects of one subscription's namespace as a simulated cluster keeps
    them (recon's field order, server metadata added), for logs whose writes
    are recon's: it applies what recon wrote and gives the watch events."""

    def __init__(self, s, rv, sub):
        self.s = s
        self.rv = rv
        self.sub = sub

    def next_rv(self):
        self.rv += 1
        return str(self.rv)

    def sub_event(self, status=None, rv=None, labels=None, annotations=None):
        """The Subscription at a new resourceVersion (an echo, or another writer's change)."""
        o = json.loads(json.dumps(self.sub))
        o["metadata"]["resourceVersion"] = rv or self.next_rv()
        if labels:
            o["metadata"]["labels"].update(labels)
        if annotations:
            o["metadata"].setdefault("annotations", {}).update(annotations)
        if status is not None:
            o["status"] = status
        self.sub = o
        return self.s.obj("Modified", o)


def step_installed(s, srv, version, sub_status):
    """The step's CSV exists (the event just logged): recon writes the move to
    AtLatestKnown alone (upstream's CSV-state step), then the server's answer
    and the echo, on which the next step is resolved. Returns the Subscription
    status written."""
    st = canonical(dict(sub_status, installedCSV=csv_name(version), state="AtLatestKnown"))
    st["lastUpdated"] = s.now()
    a = s.expect("updateStatus", status_write("Subscription", SUB, srv.sub["metadata"]["resourceVersion"], st))
    s.tick()
    rv = srv.next_rv()
    s.result(a, rv=rv, uid=UID_SUB)
    srv.sub_event(st, rv=rv)                                           # echo
    return effective(s, st)


def step_plan(s, srv, version, gen, sub_status, uid, plan_rv_hint=None):
    """recon's step, from the event just logged: create the plan and point the
    Subscription at it; then the server's answers, the bare plan (whose
    status recon writes), the echoes. Returns (plan name, created body,
    Subscription status written)."""
    name = plan_name(NS, gen, [csv_name(version)])
    body = plan_create(name, gen, [version])
    a0 = s.expect("create", body)
    a1 = s.expect("updateStatus", status_write("Subscription", SUB, srv.sub["metadata"]["resourceVersion"],
                                               sub_status))
    s.tick()
    plan_rv, sub_rv = srv.next_rv(), srv.next_rv()
    s.result(a0, status=201, rv=plan_rv, uid=uid)
    s.result(a1, rv=sub_rv, uid=UID_SUB)
    s.tick()
    s.obj("Added", served_plan(body, plan_rv, uid, t=s.now()))          # bare: its status is written now
    a = s.expect("updateStatus", status_write("InstallPlan", name, plan_rv, plan_status([version])))
    srv.sub_event(sub_status, rv=sub_rv)                               # echo
    s.tick()
    rv = srv.next_rv()
    s.result(a, rv=rv, uid=uid)
    s.obj("Modified", served_plan(body, rv, uid, plan_status([version]), t=s.now()))  # echo
    return name, body, effective(s, sub_status)


INTERRUPTED = ("Interrupted: the agent stopped before this write's result was seen; it may or may not have "
               "been applied, and the re-listed cluster state decides what happens next")


def plan_completes(s, srv, name, body, version, uid, sub_status, lost_answer=False):
    """The executor completes the plan; recon drops InstallPlanPending.
    lost_answer: the write lands but the agent restarts before its answer,
    so the relist shows its result as an event no answer names."""
    s.tick(20)
    s.obj("Modified", served_plan(body, srv.next_rv(), uid, complete(plan_status([version]), s.now()), t=s.now()))
    st = canonical(sub_status)
    st["conditions"] = without(st["conditions"], "InstallPlanPending")
    st["lastUpdated"] = s.now()
    a = s.expect("updateStatus", status_write("Subscription", SUB, srv.sub["metadata"]["resourceVersion"], st))
    s.tick()
    rv = srv.next_rv()
    if lost_answer:
        s.result(a, ok=False, status=None, error=INTERRUPTED)
    else:
        s.result(a, rv=rv, uid=UID_SUB)
    srv.sub_event(st, rv=rv)
    return effective(s, st)


def leader_takeover_mid_upgrade(control=False):
    """The old leader (a recon agent) planned the upgrade 1.0.1 -> 1.0.2: it
    created install-<gen 2> and pointed the Subscription at it, then lost
    its node before the plan's Added event reached it, so the plan's status
    (what the executor runs) was never written. A new leader starts on an
    empty store; its relist shows the Subscription first, then the plans
    (the bare one and the Complete one of generation 1), then the CSV.

    After the lists are complete the new leader adopts the plan it would
    have made itself (same step, same name: recon names plans from namespace,
    generation and CSVs) and writes its status, once, over its
    resourceVersion; the upgrade then continues to the head, one plan per
    step. Today: the Subscription's reference to a plan not yet listed is
    dropped and its installedCSV, not listed yet, read as missing: at once
    a plan to re-install 1.0.1 (install-djhcx, generation 3); when 1.0.1 is
    listed the bare plan is reused, but its status is never written (only
    plans recon created in this run get one), so nothing would run it; the
    generations then run one ahead (install-tnzdp for 1.0.3 where
    install-699gf is due, install-5ggn2 for 1.0.4)."""
    s = Scenario("leader_takeover_mid_upgrade", sort=False)
    t_install, t_plan = "2026-11-21T09:40:00Z", "2026-11-21T09:58:00Z"
    p1, p2 = plan_name(NS, 1, [csv_name("1.0.1")]), plan_name(NS, 2, [csv_name("1.0.2")])
    uid1, uid2 = "0b5c7d9e-1f2a-4b3c-8d4e-5f6a7b8c9d01", "1c6d8e0f-2a3b-4c4d-9e5f-6a7b8c9d0e12"
    st = recon_status(csv_name("1.0.2"), csv_name("1.0.1"), "UpgradePending", 2, p2, recon_health(t_install),
                      [rcond("CatalogSourcesUnhealthy", "False", "CatalogSourcesAdded", t_install, HEALTHY),
                       rcond("InstallPlanPending", "True", "Installing", t_plan)], t_plan)
    sub = subscription("71502", st, starting=csv_name("1.0.1"))
    srv = Server(s, 71502, sub)
    p1_body, p2_body = plan_create(p1, 1, ["1.0.1"]), plan_create(p2, 2, ["1.0.2"])
    s.cluster({"synced": False})                        # 1 the new leader's agent starts
    s.content()                                         # 2
    s.obj("Added", operator_group("40110"))             # 3
    s.obj("Added", catalog_source("41870"))             # 4
    if control:  # CONTROL: the plans first, the step's plan with its status
        s.obj("Added", served_plan(p1_body, "61230", uid1, complete(plan_status(["1.0.1"]), "2026-11-21T09:41:00Z"),
                                   t=t_install))
        s.obj("Added", served_plan(p2_body, "71530", uid2, plan_status(["1.0.2"]), t=t_plan))
        s.obj("Added", sub)
        s.obj("Added", csv("1.0.1", "65010"))
        s.cluster({"synced": True})
        srv.rv = 71530
    else:
        s.obj("Added", sub)                                                      # 5
        s.obj("Added", served_plan(p1_body, "61230", uid1, complete(plan_status(["1.0.1"]), "2026-11-21T09:41:00Z"),
                                   t=t_install))                                 # 6 generation 1, Complete
        s.obj("Added", served_plan(p2_body, "71498", uid2, t=t_plan))            # 7 the step's plan, bare
        s.obj("Added", csv("1.0.1", "65010"))                                    # 8
        s.cluster({"synced": True})                                              # 9 lists complete
        # The plan recon itself would have made for this step: adopted, its
        # status written as the old leader would have.
        a = s.expect("updateStatus", status_write("InstallPlan", p2, "71498", plan_status(["1.0.2"])))
        s.tick()
        s.result(a, rv="71530", uid=uid2)
        s.obj("Modified", served_plan(p2_body, "71530", uid2, plan_status(["1.0.2"]), t=t_plan))
    srv.rv = 71540
    st = plan_completes(s, srv, p2, p2_body, "1.0.2", uid2, st)
    s.tick()
    s.obj("Deleted", csv("1.0.1", srv.next_rv(), phase="Replacing"))
    s.tick()
    s.obj("Added", csv("1.0.2", srv.next_rv(), replaces="1.0.1"))
    st = step_installed(s, srv, "1.0.2", st)
    for version, installed, gen, uid in [("1.0.3", "1.0.2", 3, "2d7e9f10-3b4c-4d5e-8f60-7b8c9d0e1f23"),
                                         ("1.0.4", "1.0.3", 4, "3e8f0a21-4c5d-4e6f-9071-8c9d0e1f2a34")]:
        st = recon_status(csv_name(version), csv_name(installed), "UpgradePending", gen,
                          plan_name(NS, gen, [csv_name(version)]), st["catalogHealth"],
                          st["conditions"] + [rcond("InstallPlanPending", "True", "Installing", s.now())], s.now())
        name, body, st = step_plan(s, srv, version, gen, st, uid)
        st = plan_completes(s, srv, name, body, version, uid, st)
        s.tick()
        s.obj("Deleted", csv(installed, srv.next_rv(), phase="Replacing"))
        s.tick()
        s.obj("Added", csv(version, srv.next_rv(), replaces=installed))
        st = step_installed(s, srv, version, st)  # at 1.0.4, the head: nothing more to plan
    s.write()



CONFLICT = ('Operation cannot be fulfilled on subscriptions.operators.coreos.com "cluster-impairment-operator": '
            'the object has been modified; please apply your changes to the latest version and try again')


def conflict_after_lost_answer():
    """conflict_then_ten_writes, but the answer to recon's last status write
    before the fight (1.0.1 installed, InstallPlanPending dropped) is lost:
    the agent restarted, the write is answered Interrupted, and the relist
    shows the Subscription with that status at a resourceVersion no answer
    names. So the engine's write tracker cannot tell the status is the one
    recon wrote; the other writer's events carry it unchanged. recon's
    decisions, each conflicting, stand while the status stays as they found
    it, exactly as in conflict_then_ten_writes: one InstallPlan per step,
    AtLatestKnown on 1.0.4 (and one write more: at the Interrupted answer
    recon writes its decision again, the write's fate being unknown; the
    .expected file is the fixed build's output, checked by hand against
    the one this script writes). Before session 13 the first of the other
    writer's events after the 1.0.2 plan completed was taken for a newer
    state, "1.0.1 installed, plan 1 Complete": the sync started over from
    it (the four-domain soak, seed 3, ended with a CSV that no
    subscription referred to and ConstraintsNotSatisfiable)."""
    conflict_then_ten_writes(name="conflict_after_lost_answer", lost_answer=True)


def conflict_then_ten_writes(control=False, rounds=10, name="conflict_then_ten_writes", lost_answer=False):
    """recon (the only status writer) walks the Subscription from 1.0.1 to
    1.0.4 on a real API server (keys sorted). Once 1.0.1 is installed, two
    Argo CD Applications that both list this Subscription start fighting
    over it (a known misconfiguration): each sync rewrites the tracking
    annotation, a new resourceVersion every time, the status untouched
    (it is a subresource). recon's status write for the 1.0.2 step is
    answered 409 Conflict; then ten more of its writes are answered 409,
    each after the other writer's next change. Meanwhile the 1.0.2 plan
    runs to Complete, 1.0.2 replaces 1.0.1, the 1.0.3 step is planned and
    its plan completes too. Then the fight stops, a write lands and the
    walk goes on to 1.0.4.

    Each of the other writer's events carries the status recon's last
    successful write produced (the annotation is all it changed), so
    recon's later decisions, not written yet, still hold: after each 409
    recon writes its current decision again over the newest
    resourceVersion it has seen (with the time of that write); a 409 for
    a write already superseded by a newer decision changes nothing.
    Exactly one InstallPlan per step; the Subscription ends AtLatestKnown
    on 1.0.4. Today: echoes are told by content hashes, and a real server
    serializes the status with its keys sorted, so no event is ever
    recognized: every echo is written again, and the other writer's
    events are taken for newer states; the first one after the 1.0.2 plan
    completed is resolved again as "1.0.1 installed": a second plan for
    1.0.2 (install-5hsbl); 1.0.3 is never planned. (In the simulated
    cluster's field order, the control variant, today's 16-entry history
    copes with ten rounds; from the fifteenth it takes the other writer's
    event for a newer state and drops its own decision.)"""
    s = Scenario(name, sort=not control)
    uid = {1: "4f9a1b32-5d6e-4f70-8182-9d0e1f2a3b45", 2: "5a0b2c43-6e7f-4081-9293-0e1f2a3b4c56",
           3: "6b1c3d54-7f80-4192-a3a4-1f2a3b4c5d67", 4: "7c2d4e65-8091-42a3-b4b5-2a3b4c5d6e78"}
    s.content()                                         # 1
    s.obj("Added", operator_group("40110"))             # 2
    s.obj("Added", catalog_source("41870"))             # 3
    s.tick(3)
    sub = subscription("80001", None, starting=csv_name("1.0.1"))
    srv = Server(s, 80001, sub)
    s.obj("Added", sub)                                 # 4 a user subscribes at 1.0.1
    t4 = s.now()
    health = recon_health(t4)
    conds = [rcond("CatalogSourcesUnhealthy", "False", "CatalogSourcesAdded", t4, HEALTHY)]
    st = recon_status(csv_name("1.0.1"), None, "UpgradePending", 1, plan_name(NS, 1, [csv_name("1.0.1")]), health,
                      conds + [rcond("InstallPlanPending", "True", "Installing", t4)], t4)
    name, body, st = step_plan(s, srv, "1.0.1", 1, st, uid[1])
    landed = plan_completes(s, srv, name, body, "1.0.1", uid[1], st,  # the server's status from now on
                            lost_answer=lost_answer)

    apps = ["operators-prod", "platform-operators"]
    fights = [0]

    def other_writer():
        fights[0] += 1
        app = apps[fights[0] % 2]
        s.tick()
        srv.sub_event(landed, annotations={
            "argocd.argoproj.io/tracking-id": f"{app}:operators.coreos.com/Subscription:{NS}/{SUB}"})

    inflight = {}  # recon's Subscription status write in flight: id, body

    def write(status):
        inflight["id"] = s.expect("updateStatus", status_write("Subscription", SUB,
                                                               srv.sub["metadata"]["resourceVersion"], status))
        inflight["body"] = status

    def conflict(action=None):
        """A write answered 409. The one in flight: written again over the
        newer resourceVersion recon has seen, with this time. An earlier
        one, superseded by a newer decision: nothing."""
        s.tick()
        s.result(action or inflight["id"], ok=False, status=409, error="Conflict: " + CONFLICT)
        if action is None:
            again = dict(inflight["body"])
            again["lastUpdated"] = s.now()
            write(again)

    def decide(status):
        """A new decision while a write is in flight: the new write goes out now;
        the old one's 409, which comes next, changes nothing."""
        old = inflight["id"]
        write(status)
        conflict(old)

    def plan_appears(name, body, version, plan_rv, u):
        s.tick()
        s.obj("Added", served_plan(body, plan_rv, u, t=s.now()))
        a = s.expect("updateStatus", status_write("InstallPlan", name, plan_rv, plan_status([version])))
        s.tick()
        s.result(a, rv=srv.next_rv(), uid=u)
        s.obj("Modified", served_plan(body, str(srv.rv), u, plan_status([version]), t=s.now()))

    def plan_done(body, version, u, decision):
        s.tick(15)
        s.obj("Modified", served_plan(body, srv.next_rv(), u, complete(plan_status([version]), s.now()), t=s.now()))
        d = canonical(decision)
        d["conditions"] = without(d["conditions"], "InstallPlanPending")
        d["lastUpdated"] = s.now()
        decide(d)
        return d

    def installed_csv(installed):
        s.tick()
        s.obj("Added", csv(installed, srv.next_rv(), replaces=None if installed == "1.0.1" else
                           "1.0.%d" % (int(installed[-1]) - 1)))

    def moved(decision, installed):
        """The move to AtLatestKnown, written alone (upstream's CSV-state step)."""
        d = canonical(dict(decision, installedCSV=csv_name(installed), state="AtLatestKnown"))
        d["lastUpdated"] = s.now()
        return d

    def step(version, installed, gen, decision):
        """The step's plan, resolved at the event just logged (after the move to AtLatestKnown)."""
        name = plan_name(NS, gen, [csv_name(version)])
        body = plan_create(name, gen, [version])
        a = s.expect("create", body)
        d = recon_status(csv_name(version), csv_name(installed), "UpgradePending", gen, name, health,
                         decision["conditions"] + [rcond("InstallPlanPending", "True", "Installing", s.now())],
                         s.now())
        return name, body, a, d

    installed_csv("1.0.1")
    landed = step_installed(s, srv, "1.0.1", landed)     # AtLatestKnown alone, then its echo
    p2, p2_body, a, decision = step("1.0.2", "1.0.1", 2, landed)
    write(decision)
    other_writer()                                       # the fight starts: its write lands first
    s.tick()
    s.result(a, status=201, rv=srv.next_rv(), uid=uid[2])
    p2_rv = str(srv.rv)
    conflict()                                           # the first 409
    p3 = None
    for r in range(1, rounds + 1):
        other_writer()
        if r == 1:
            plan_appears(p2, p2_body, "1.0.2", p2_rv, uid[2])
            conflict()
        elif r == 3:
            decision = plan_done(p2_body, "1.0.2", uid[2], decision)
        elif r == 4:
            s.tick()
            s.obj("Deleted", csv("1.0.1", srv.next_rv(), phase="Replacing"))
            conflict()
        elif r == 5:
            installed_csv("1.0.2")
            decision = moved(decision, "1.0.2")
            decide(decision)
        elif r == 6:
            # The other writer's event (a newer resourceVersion than the
            # move's): the next step is resolved over it; the move's 409
            # then changes nothing.
            p3, p3_body, a, decision = step("1.0.3", "1.0.2", 3, decision)
            decide(decision)
            s.result(a, status=201, rv=srv.next_rv(), uid=uid[3])
            p3_rv = str(srv.rv)
        elif r == 7:
            plan_appears(p3, p3_body, "1.0.3", p3_rv, uid[3])
            conflict()
        elif r == 9:
            decision = plan_done(p3_body, "1.0.3", uid[3], decision)
        else:
            conflict()
    # The fight stops: the write in flight lands.
    s.tick()
    rv = srv.next_rv()
    s.result(inflight["id"], rv=rv, uid=UID_SUB)
    srv.sub_event(inflight["body"], rv=rv)
    landed = effective(s, inflight["body"])
    s.tick()
    s.obj("Deleted", csv("1.0.2", srv.next_rv(), phase="Replacing"))
    s.tick()
    s.obj("Added", csv("1.0.3", srv.next_rv(), replaces="1.0.2"))
    landed = step_installed(s, srv, "1.0.3", landed)
    st = recon_status(csv_name("1.0.4"), csv_name("1.0.3"), "UpgradePending", 4,
                      plan_name(NS, 4, [csv_name("1.0.4")]), health,
                      landed["conditions"] + [rcond("InstallPlanPending", "True", "Installing", s.now())], s.now())
    name, body, st = step_plan(s, srv, "1.0.4", 4, st, uid[4])
    st = plan_completes(s, srv, name, body, "1.0.4", uid[4], st)
    s.tick()
    s.obj("Deleted", csv("1.0.3", srv.next_rv(), phase="Replacing"))
    s.tick()
    s.obj("Added", csv("1.0.4", srv.next_rv(), replaces="1.0.3"))
    step_installed(s, srv, "1.0.4", st)
    s.write()

SCENARIOS = [plans_after_subscriptions, foreign_plan_names, leader_takeover_mid_upgrade, conflict_then_ten_writes,
             conflict_after_lost_answer]
CONTROLS = [plans_after_subscriptions, foreign_plan_names, leader_takeover_mid_upgrade, conflict_then_ten_writes]

if __name__ == "__main__":
    import sys
    check_catalog()
    if len(sys.argv) == 3 and sys.argv[1] == "--control":
        # Variants the current build handles (recon's own formats, objects in
        # an order it copes with): their expected files, made by the same
        # helpers, must equal what the current build prints. That checks the
        # helpers, not the behaviour the real scenarios specify.
        OUT = sys.argv[2]
        for fn in CONTROLS:
            fn(control=True)
    else:
        for fn in SCENARIOS:
            fn()
