#!/usr/bin/env python3
"""Writes the olm scenario logs (<name>.jsonl, <name>.args) in this folder.

Each log holds what a cluster would show: the catalog as a Content event,
CatalogSources, an OperatorGroup, Subscriptions, and the watch events that
the reducer's writes cause (InstallPlan Added/Complete, CSVs going
Succeeded). InstallPlan names are computed like the reducer's (FNV-1a over
namespace, generation and CSV names). Run it, then scripts/update-scenarios
olm, and review every .expected by hand.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
API = "operators.coreos.com/v1alpha1"
NS = "operators"
GLOBAL = "openshift-marketplace"


def plan_name(ns, gen, csvs):
    h = 1469598103934665603
    m = (1 << 64) - 1

    def mix(s):
        nonlocal h
        for b in s.encode():
            h = ((h ^ b) * 1099511628211) & m
        h = ((h ^ 0xFF) * 1099511628211) & m

    mix(ns)
    mix(str(gen))
    for c in csvs:
        mix(c)
    alphabet = "bcdfghjklmnpqrstvwxz2456789"
    out = "install-"
    for _ in range(5):
        out += alphabet[h % 27]
        h //= 27
    return out


# ---- catalog building -------------------------------------------------------

def gvk(group, version, kind):
    return {"group": group, "version": version, "kind": kind}


def bundle(pkg, name, version, provides=(), req_gvk=(), req_pkg=(), legacy_deprecated=False, extra=()):
    props = [{"type": "olm.package", "value": {"packageName": pkg, "version": version}}]
    props += [{"type": "olm.gvk", "value": g} for g in provides]
    props += [{"type": "olm.gvk.required", "value": g} for g in req_gvk]
    props += [{"type": "olm.package.required", "value": {"packageName": p, "versionRange": r}} for p, r in req_pkg]
    if legacy_deprecated:
        props.append({"type": "olm.deprecated", "value": {}})
    props += list(extra)
    return {"schema": "olm.bundle", "name": name, "package": pkg, "image": f"quay.io/example/{name}:bundle",
            "properties": props}


def package(name, default_channel):
    return {"schema": "olm.package", "name": name, "defaultChannel": default_channel}


def channel(pkg, name, entries):
    out = []
    for e in entries:
        if isinstance(e, str):
            e = {"name": e}
        out.append(e)
    return {"schema": "olm.channel", "package": pkg, "name": name, "entries": out}


def catalog_files(blobs):
    return {"catalog.json": "".join(json.dumps(b, separators=(",", ":")) + "\n" for b in blobs)}


# ---- events -------------------------------------------------------------------

class Log:
    def __init__(self):
        self.lines = []
        self.t = 0
        self.rv = 100

    def time(self):
        s = self.t
        self.t += 1
        return "2026-11-21T10:%02d:%02dZ" % (s // 60, s % 60)

    def add(self, ev):
        self.lines.append(json.dumps(ev, separators=(",", ":")))

    def obj(self, typ, o):
        # As a real server: every object event carries a resourceVersion.
        if typ != "Deleted" and "resourceVersion" not in o["metadata"]:
            self.rv += 1
            o["metadata"]["resourceVersion"] = str(self.rv)
        self.add({"time": self.time(), "type": typ, "object": o})

    def content(self, name, ns, files):
        self.add({"time": self.time(), "type": "Content", "name": f"olm/catalog/{ns}/{name}", "files": files})

    def catalog_source(self, name, ns=GLOBAL, priority=0, typ="Added"):
        spec = {"sourceType": "grpc", "displayName": name}
        if priority:
            spec["priority"] = priority
        self.obj(typ, {"apiVersion": API, "kind": "CatalogSource",
                       "metadata": {"name": name, "namespace": ns, "uid": f"uid-cs-{name}"}, "spec": spec})

    def operator_group(self, ns=NS, name="og", annotations=None, typ="Added"):
        meta = {"name": name, "namespace": ns}
        if annotations:
            meta["annotations"] = annotations
        self.obj(typ, {"apiVersion": "operators.coreos.com/v1", "kind": "OperatorGroup", "metadata": meta,
                       "spec": {"targetNamespaces": [ns]}})

    def subscription(self, name, pkg, source, channel=None, ns=NS, source_ns=GLOBAL, approval=None,
                     starting=None, typ="Added"):
        spec = {"name": pkg, "source": source, "sourceNamespace": source_ns}
        if channel:
            spec["channel"] = channel
        if approval:
            spec["installPlanApproval"] = approval
        if starting:
            spec["startingCSV"] = starting
        self.obj(typ, {"apiVersion": API, "kind": "Subscription",
                       "metadata": {"name": name, "namespace": ns, "uid": f"uid-sub-{name}"}, "spec": spec})

    def install_plan(self, gen, csvs, ns=NS, approval="Automatic", phase="Installing", approved=None, typ="Added"):
        name = plan_name(ns, gen, csvs)
        if approved is None:
            approved = approval == "Automatic"
        st = {"phase": phase}
        if phase == "Complete":
            st["conditions"] = [{"type": "Installed", "status": "True"}]
        o = {"apiVersion": API, "kind": "InstallPlan", "metadata": {"name": name, "namespace": ns},
             "spec": {"clusterServiceVersionNames": csvs, "approval": approval, "approved": approved,
                      "generation": gen}}
        # A real server drops .status on a create (status subresource): the
        # plan appears bare and the reducer writes its status.
        if typ != "Added":
            o["status"] = st
        self.obj(typ, o)
        return name

    def action_result(self, action, ok=True, status=None, error=None):
        ev = {"time": self.time(), "type": "ActionResult", "action": action, "ok": ok}
        if status is not None:
            ev["status"] = status
        if error:
            ev["error"] = error
        self.add(ev)

    def csv(self, name, version, owned=(), required=(), ns=NS, phase="Succeeded", typ="Added", replaces=None,
            properties=None):
        spec = {"version": version, "customresourcedefinitions": {
            "owned": [{"name": f"{g['kind'].lower()}s.{g['group']}", "version": g["version"], "kind": g["kind"]}
                      for g in owned],
            "required": [{"name": f"{g['kind'].lower()}s.{g['group']}", "version": g["version"], "kind": g["kind"]}
                         for g in required]}}
        if replaces:
            spec["replaces"] = replaces
        o = {"apiVersion": API, "kind": "ClusterServiceVersion", "metadata": {"name": name, "namespace": ns},
             "spec": spec}
        if properties:
            # OLM records the bundle's properties on the CSV it installs.
            o["metadata"]["annotations"] = {"operatorframework.io/properties": json.dumps(
                {"properties": properties}, separators=(",", ":"))}
        if typ != "Deleted":
            o["status"] = {"phase": phase}
        self.obj(typ, o)

    def install(self, gen, csvs, versions, owned=None, ns=NS, delete=()):
        """The cluster carrying out an automatic plan: IP Added, IP Complete, old CSVs gone, new ones
        Pending, then Succeeded. The reducer writes a subscription's move to AtLatestKnown alone (at the
        CSV's Added) and resolves the next step at the namespace's next event (the CSV's Succeeded here,
        the write's echo on a live cluster)."""
        self.install_plan(gen, csvs, ns=ns)
        self.install_plan(gen, csvs, ns=ns, phase="Complete", typ="Modified")
        for d in delete:
            self.csv(d, "0.0.0", ns=ns, typ="Deleted")
        for c, v in zip(csvs, versions):
            self.csv(c, v, owned=(owned or {}).get(c, ()), ns=ns, phase="Pending")
        for c, v in zip(csvs, versions):
            self.csv(c, v, owned=(owned or {}).get(c, ()), ns=ns, typ="Modified")

    def write(self, name, extra_args=()):
        with open(os.path.join(HERE, name + ".jsonl"), "w") as f:
            f.write("\n".join(self.lines) + "\n")
        with open(os.path.join(HERE, name + ".args"), "w") as f:
            # These timelines show no echo of recon's status writes: written
            # for one combined write per sync (olm.subscriptionWrites).
            f.write("\n".join(["--domains", "olm", "--set", "olm.executePlans=false", "--set",
                               "olm.subscriptionWrites=combined", *extra_args]) + "\n")


# ---- catalogs used by several scenarios -----------------------------------------

ETCD = gvk("etcd.database.coreos.com", "v1beta2", "EtcdCluster")


def etcd_catalog():
    return catalog_files([
        package("etcd", "stable"),
        channel("etcd", "stable", ["etcd.v0.9.0", {"name": "etcd.v0.9.2", "replaces": "etcd.v0.9.0"},
                                   {"name": "etcd.v0.9.4", "replaces": "etcd.v0.9.2"}]),
        channel("etcd", "alpha", ["etcd.v0.9.0", {"name": "etcd.v1.0.0-alpha", "replaces": "etcd.v0.9.0"}]),
        bundle("etcd", "etcd.v0.9.0", "0.9.0", [ETCD]),
        bundle("etcd", "etcd.v0.9.2", "0.9.2", [ETCD]),
        bundle("etcd", "etcd.v0.9.4", "0.9.4", [ETCD]),
        bundle("etcd", "etcd.v1.0.0-alpha", "1.0.0-alpha", [ETCD]),
    ])


def setup(log, files, name="community", priority=0):
    log.content(name, GLOBAL, files)
    log.catalog_source(name, priority=priority)
    log.operator_group()


# ---- scenarios --------------------------------------------------------------------

def fresh_install():
    log = Log()
    setup(log, etcd_catalog())
    log.subscription("etcd", "etcd", "community")  # no channel: the default one
    log.install(1, ["etcd.v0.9.4"], ["0.9.4"], {"etcd.v0.9.4": [ETCD]})
    log.write("fresh_install")


def multi_step_upgrade():
    log = Log()
    setup(log, etcd_catalog())
    log.subscription("etcd", "etcd", "community", channel="stable", starting="etcd.v0.9.0")
    log.install(1, ["etcd.v0.9.0"], ["0.9.0"], {"etcd.v0.9.0": [ETCD]})
    log.install(2, ["etcd.v0.9.2"], ["0.9.2"], {"etcd.v0.9.2": [ETCD]}, delete=["etcd.v0.9.0"])
    log.install(3, ["etcd.v0.9.4"], ["0.9.4"], {"etcd.v0.9.4": [ETCD]}, delete=["etcd.v0.9.2"])
    log.write("multi_step_upgrade")


def replacement_window():
    """OLM's order in an upgrade step: the new CSV is created, the old one goes
    Replacing, the plan completes and the new CSV succeeds before the old one
    is deleted. The subscription moves to AtLatestKnown only once the old CSV
    is gone (resolving beside it would find two providers of EtcdCluster:
    issue 49's S1), and the next step is resolved at the event after."""
    log = Log()
    setup(log, etcd_catalog())
    log.subscription("etcd", "etcd", "community", channel="stable", starting="etcd.v0.9.0")
    log.install(1, ["etcd.v0.9.0"], ["0.9.0"], {"etcd.v0.9.0": [ETCD]})
    log.install_plan(2, ["etcd.v0.9.2"])
    log.csv("etcd.v0.9.2", "0.9.2", [ETCD], phase="Pending", replaces="etcd.v0.9.0")
    log.csv("etcd.v0.9.0", "0.9.0", [ETCD], phase="Replacing", typ="Modified")
    log.install_plan(2, ["etcd.v0.9.2"], phase="Complete", typ="Modified")
    log.csv("etcd.v0.9.2", "0.9.2", [ETCD], replaces="etcd.v0.9.0", typ="Modified")
    log.csv("etcd.v0.9.0", "0.9.0", [ETCD], phase="Deleting", typ="Modified")
    log.csv("etcd.v0.9.0", "0.0.0", typ="Deleted")                      # AtLatestKnown now
    log.csv("etcd.v0.9.2", "0.9.2", [ETCD], replaces="etcd.v0.9.0", typ="Modified")  # the next step
    log.write("replacement_window")


def foreign_move_during_replacement():
    """Another writer (the real OLM, once beside recon) moves the subscription
    to AtLatestKnown while the CSV it replaces is still there. recon does not
    resolve then (it would count the old CSV, no subscription's any more, as a
    second provider of EtcdCluster: ResolutionFailed); it plans the next step
    once the old CSV is gone."""
    log = Log()
    setup(log, etcd_catalog())
    log.subscription("etcd", "etcd", "community", channel="stable", starting="etcd.v0.9.0")
    log.install(1, ["etcd.v0.9.0"], ["0.9.0"], {"etcd.v0.9.0": [ETCD]})
    name = log.install_plan(2, ["etcd.v0.9.2"])
    log.csv("etcd.v0.9.2", "0.9.2", [ETCD], phase="Pending", replaces="etcd.v0.9.0")
    log.csv("etcd.v0.9.0", "0.9.0", [ETCD], phase="Replacing", typ="Modified")
    log.obj("Modified", {"apiVersion": API, "kind": "Subscription",
                         "metadata": {"name": "etcd", "namespace": NS, "uid": "uid-sub-etcd"},
                         "spec": {"name": "etcd", "source": "community", "sourceNamespace": GLOBAL,
                                  "channel": "stable", "startingCSV": "etcd.v0.9.0"},
                         "status": {"currentCSV": "etcd.v0.9.2", "installedCSV": "etcd.v0.9.2",
                                    "state": "AtLatestKnown", "installPlanGeneration": 2,
                                    "installPlanRef": {"apiVersion": API, "kind": "InstallPlan", "name": name,
                                                       "namespace": NS},
                                    "lastUpdated": "2026-11-21T10:00:30Z"}})     # another writer's move
    log.install_plan(2, ["etcd.v0.9.2"], phase="Complete", typ="Modified")  # no resolution yet
    log.csv("etcd.v0.9.0", "0.0.0", typ="Deleted")                          # the next step
    log.write("foreign_move_during_replacement")


def alpha_channel():
    log = Log()
    setup(log, etcd_catalog())
    log.subscription("etcd", "etcd", "community", channel="alpha")
    log.install(1, ["etcd.v1.0.0-alpha"], ["1.0.0-alpha"], {"etcd.v1.0.0-alpha": [ETCD]})
    log.write("alpha_channel")


KG = gvk("kube-green.com", "v1alpha1", "SleepInfo")


def skiprange_catalog(with_v130=False):
    blobs = [
        package("kube-green", "stable"),
        channel("kube-green", "stable", [
            "kube-green.v1.0.0",
            {"name": "kube-green.v1.1.0", "replaces": "kube-green.v1.0.0"},
            {"name": "kube-green.v1.2.0", "replaces": "kube-green.v1.1.0", "skipRange": ">=1.0.0 <1.2.0"},
        ] + ([{"name": "kube-green.v1.3.0", "replaces": "kube-green.v1.2.0"}] if with_v130 else [])),
        bundle("kube-green", "kube-green.v1.0.0", "1.0.0", [KG]),
        bundle("kube-green", "kube-green.v1.1.0", "1.1.0", [KG]),
        bundle("kube-green", "kube-green.v1.2.0", "1.2.0", [KG]),
    ]
    if with_v130:
        blobs.append(bundle("kube-green", "kube-green.v1.3.0", "1.3.0", [KG]))
    return catalog_files(blobs)


def skiprange_jump():
    log = Log()
    setup(log, skiprange_catalog())
    log.subscription("kube-green", "kube-green", "community", channel="stable", starting="kube-green.v1.0.0")
    log.install(1, ["kube-green.v1.0.0"], ["1.0.0"], {"kube-green.v1.0.0": [KG]})
    # 1.0.0 is in 1.2.0's skipRange: one jump, 1.1.0 is never installed.
    log.install(2, ["kube-green.v1.2.0"], ["1.2.0"], {"kube-green.v1.2.0": [KG]}, delete=["kube-green.v1.0.0"])
    log.write("skiprange_jump")


SK = gvk("skipper.example.com", "v1", "Skipper")


def skips_catalog():
    return catalog_files([
        package("skipper", "stable"),
        channel("skipper", "stable", [
            "skipper.v1.0.0",
            {"name": "skipper.v2.0.0", "replaces": "skipper.v1.0.0"},
            {"name": "skipper.v3.0.0", "replaces": "skipper.v1.0.0", "skips": ["skipper.v2.0.0"]},
        ]),
        bundle("skipper", "skipper.v1.0.0", "1.0.0", [SK]),
        bundle("skipper", "skipper.v2.0.0", "2.0.0", [SK]),
        bundle("skipper", "skipper.v3.0.0", "3.0.0", [SK]),
    ])


def skips():
    log = Log()
    setup(log, skips_catalog())
    # startingCSV is the only way to get the skipped 2.0.0; it then upgrades through "skips".
    log.subscription("skipper", "skipper", "community", channel="stable", starting="skipper.v2.0.0")
    log.install(1, ["skipper.v2.0.0"], ["2.0.0"], {"skipper.v2.0.0": [SK]})
    log.install(2, ["skipper.v3.0.0"], ["3.0.0"], {"skipper.v3.0.0": [SK]}, delete=["skipper.v2.0.0"])
    log.write("skips")


def skipped_never_chosen():
    log = Log()
    setup(log, skips_catalog())
    log.subscription("skipper", "skipper", "community", channel="stable", starting="skipper.v1.0.0")
    log.install(1, ["skipper.v1.0.0"], ["1.0.0"], {"skipper.v1.0.0": [SK]})
    # 2.0.0 also replaces 1.0.0 but is skipped by 3.0.0: straight to 3.0.0.
    log.install(2, ["skipper.v3.0.0"], ["3.0.0"], {"skipper.v3.0.0": [SK]}, delete=["skipper.v1.0.0"])
    log.write("skipped_never_chosen")


def starting_csv_missing():
    log = Log()
    setup(log, etcd_catalog())
    log.subscription("etcd", "etcd", "community", channel="stable", starting="etcd.v0.8.0")
    # The user fixes the startingCSV.
    log.subscription("etcd", "etcd", "community", channel="stable", starting="etcd.v0.9.2", typ="Modified")
    log.write("starting_csv_missing")


def manual_approval():
    log = Log()
    setup(log, etcd_catalog())
    log.subscription("etcd", "etcd", "community", channel="stable", approval="Manual", starting="etcd.v0.9.2")
    log.install_plan(1, ["etcd.v0.9.2"], approval="Manual", phase="RequiresApproval")
    # The user approves the plan.
    log.install_plan(1, ["etcd.v0.9.2"], approval="Manual", phase="RequiresApproval", approved=True, typ="Modified")
    log.csv("etcd.v0.9.2", "0.9.2", [ETCD])
    log.install_plan(1, ["etcd.v0.9.2"], approval="Manual", phase="Complete", approved=True, typ="Modified")
    # The subscription moves to AtLatestKnown at the plan's Complete; the next
    # step is resolved at the namespace's next event (the CSV's, here).
    log.csv("etcd.v0.9.2", "0.9.2", [ETCD], typ="Modified")
    # The next step waits for approval again.
    log.install_plan(2, ["etcd.v0.9.4"], approval="Manual", phase="RequiresApproval")
    log.write("manual_approval")


def manual_namespace():
    log = Log()
    kg = skiprange_catalog()
    blobs = etcd_catalog()["catalog.json"] + kg["catalog.json"]
    log.content("community", GLOBAL, {"catalog.json": blobs})
    log.catalog_source("community")
    log.subscription("etcd", "etcd", "community", approval="Manual")
    log.subscription("kube-green", "kube-green", "community")  # Automatic, but the namespace has a Manual one
    log.operator_group()
    log.write("manual_namespace")


APP = gvk("app.example.com", "v1", "App")
DB = gvk("db.example.com", "v1", "Database")


def dep_catalog(app_requires_range=">=1.0.0 <2.0.0", extra_apps=()):
    blobs = [
        package("app", "stable"),
        channel("app", "stable", ["app.v1.0.0"]),
        bundle("app", "app.v1.0.0", "1.0.0", [APP], req_gvk=[DB], req_pkg=[("db", app_requires_range)]),
        package("db", "stable"),
        channel("db", "stable", ["db.v1.0.0", {"name": "db.v1.5.0", "replaces": "db.v1.0.0"},
                                 {"name": "db.v2.0.0", "replaces": "db.v1.5.0"}]),
        bundle("db", "db.v1.0.0", "1.0.0", [DB]),
        bundle("db", "db.v1.5.0", "1.5.0", [DB]),
        bundle("db", "db.v2.0.0", "2.0.0", [DB]),
    ]
    blobs += list(extra_apps)
    return catalog_files(blobs)


def dependency_success():
    log = Log()
    setup(log, dep_catalog())
    log.subscription("app", "app", "community")
    # The plan installs app and db 1.5.0 (newest in range) and creates db's Subscription.
    name = log.install_plan(1, ["app.v1.0.0", "db.v1.5.0"])
    log.add({"time": log.time(), "type": "Added", "object": {
        "apiVersion": API, "kind": "Subscription",
        "metadata": {"name": "db-stable-community-openshift-marketplace", "namespace": NS,
                     "annotations": {"olm.generated-by": name}},
        "spec": {"channel": "stable", "installPlanApproval": "Automatic", "name": "db", "source": "community",
                 "sourceNamespace": GLOBAL, "startingCSV": "db.v1.5.0"}}})
    log.csv("db.v1.5.0", "1.5.0", [DB])
    log.csv("app.v1.0.0", "1.0.0", [APP], required=[DB], properties=[
        {"type": "olm.package", "value": {"packageName": "app", "version": "1.0.0"}},
        {"type": "olm.package.required", "value": {"packageName": "db", "versionRange": ">=1.0.0 <2.0.0"}}])
    # db 2.0.0 replaces 1.5.0, but app needs db <2.0.0: db's upgrade is blocked (a no-op).
    log.install_plan(1, ["app.v1.0.0", "db.v1.5.0"], phase="Complete", typ="Modified")
    log.csv("db.v1.5.0", "1.5.0", [DB], typ="Modified")  # resolved again: nothing to do
    log.write("dependency_success")


def dependency_missing():
    log = Log()
    missing = gvk("cache.example.com", "v1", "Cache")
    setup(log, catalog_files([
        package("app", "stable"),
        channel("app", "stable", ["app.v1.0.0"]),
        bundle("app", "app.v1.0.0", "1.0.0", [APP], req_gvk=[missing]),
    ]))
    log.subscription("app", "app", "community")
    log.write("dependency_missing")


def dependency_conflict():
    log = Log()
    other = [
        package("report", "stable"),
        channel("report", "stable", ["report.v1.0.0"]),
        bundle("report", "report.v1.0.0", "1.0.0", [gvk("report.example.com", "v1", "Report")],
               req_pkg=[("db", ">=2.0.0")]),
    ]
    log.content("community", GLOBAL, dep_catalog(app_requires_range="<2.0.0", extra_apps=other))
    log.catalog_source("community")
    log.subscription("app", "app", "community")
    log.subscription("report", "report", "community")
    log.operator_group()  # both subscriptions resolve together
    log.write("dependency_conflict")


def catalog_priority():
    log = Log()
    # db is in two global catalogs; the higher priority one serves the dependency.
    db_only = catalog_files([
        package("db", "stable"),
        channel("db", "stable", ["db.v1.0.0", {"name": "db.v1.5.0", "replaces": "db.v1.0.0"}]),
        bundle("db", "db.v1.0.0", "1.0.0", [DB]),
        bundle("db", "db.v1.5.0", "1.5.0", [DB]),
    ])
    app_only = catalog_files([
        package("app", "stable"),
        channel("app", "stable", ["app.v1.0.0"]),
        bundle("app", "app.v1.0.0", "1.0.0", [APP], req_gvk=[DB]),
    ])
    log.content("apps", GLOBAL, app_only)
    log.catalog_source("apps")
    log.content("community", GLOBAL, db_only)
    log.catalog_source("community")
    log.content("certified", GLOBAL, db_only)
    log.catalog_source("certified", priority=10)
    log.operator_group()
    log.subscription("app", "app", "apps")
    log.write("catalog_priority")


def deprecation():
    log = Log()
    blobs = etcd_catalog()["catalog.json"] + json.dumps({
        "schema": "olm.deprecations", "package": "etcd", "entries": [
            {"reference": {"schema": "olm.package"}, "message": "etcd is end of life, use etcd-ng"},
            {"reference": {"schema": "olm.channel", "name": "stable"}, "message": "stable is frozen"},
            {"reference": {"schema": "olm.bundle", "name": "etcd.v0.9.4"}, "message": "0.9.4 has a data-loss bug"},
        ]}, separators=(",", ":")) + "\n"
    setup(log, {"catalog.json": blobs})
    log.subscription("etcd", "etcd", "community", channel="stable")
    log.install(1, ["etcd.v0.9.4"], ["0.9.4"], {"etcd.v0.9.4": [ETCD]})
    log.write("deprecation")


def legacy_deprecated():
    log = Log()
    setup(log, catalog_files([
        package("old", "stable"),
        channel("old", "stable", ["old.v1.0.0"]),
        bundle("old", "old.v1.0.0", "1.0.0", [gvk("old.example.com", "v1", "Old")], legacy_deprecated=True),
    ]))
    log.subscription("old", "old", "community")
    log.write("legacy_deprecated")


def catalog_update_mid_upgrade():
    log = Log()
    setup(log, skiprange_catalog())
    log.subscription("kube-green", "kube-green", "community", channel="stable", starting="kube-green.v1.1.0")
    log.install(1, ["kube-green.v1.1.0"], ["1.1.0"], {"kube-green.v1.1.0": [KG]})
    # Upgrade to 1.2.0 planned; the catalog gains 1.3.0 while the plan runs.
    log.install_plan(2, ["kube-green.v1.2.0"])
    log.content("community", GLOBAL, skiprange_catalog(with_v130=True))
    log.csv("kube-green.v1.1.0", "0.0.0", typ="Deleted")
    log.csv("kube-green.v1.2.0", "1.2.0", [KG])
    log.install_plan(2, ["kube-green.v1.2.0"], phase="Complete", typ="Modified")
    log.csv("kube-green.v1.2.0", "1.2.0", [KG], typ="Modified")
    # Next step comes from the updated catalog.
    log.install(3, ["kube-green.v1.3.0"], ["1.3.0"], {"kube-green.v1.3.0": [KG]}, delete=["kube-green.v1.2.0"])
    log.write("catalog_update_mid_upgrade")


def catalog_update_at_head():
    """At the channel head, then the catalog gains a newer head: upstream re-resolves on the
    update and plans it. The resolution caches must key the catalog by its content (issue 37:
    keyed by the index's address, a new index allocated where the freed one was reused the
    pre-update resolution and planned nothing; run_scenario.cmake's replay under another heap
    layout hit it with this log)."""
    def cat(with_v2):
        names = ["ctl.v1", "ctl.v2"] if with_v2 else ["ctl.v1"]
        entries = [{"name": names[0]}] + [{"name": b, "replaces": a} for a, b in zip(names, names[1:])]
        blobs = [package("ctl", "stable"), channel("ctl", "stable", entries)]
        blobs += [bundle("ctl", n, f"{i + 1}.0.0", [ETCD]) for i, n in enumerate(names)]
        return catalog_files(blobs)
    log = Log()
    setup(log, cat(False))
    log.subscription("ctl", "ctl", "community", channel="stable")
    log.install(1, ["ctl.v1"], ["1.0.0"], {"ctl.v1": [ETCD]})
    log.content("community", GLOBAL, cat(True))  # expected: the plan for ctl.v2, at this seq
    log.write("catalog_update_at_head")


def catalog_broken():
    log = Log()
    setup(log, etcd_catalog())
    # A second global catalog whose content does not validate blocks resolution.
    log.content("broken", GLOBAL, catalog_files([
        package("x", "stable"),
        channel("x", "stable", ["x.v1", {"name": "x.v2", "replaces": "x.v1"}, {"name": "x.v3", "replaces": "x.v1"}]),
        bundle("x", "x.v1", "1.0.0"), bundle("x", "x.v2", "2.0.0"), bundle("x", "x.v3", "3.0.0"),
    ]))
    log.catalog_source("broken")
    log.subscription("etcd", "etcd", "community")
    # Fixed content: resolution goes on.
    log.content("broken", GLOBAL, catalog_files([
        package("x", "stable"), channel("x", "stable", ["x.v1"]), bundle("x", "x.v1", "1.0.0")]))
    log.write("catalog_broken")


def blocked_upgrade():
    log = Log()
    setup(log, etcd_catalog())
    log.subscription("etcd", "etcd", "community", channel="stable")
    log.install(1, ["etcd.v0.9.4"], ["0.9.4"], {"etcd.v0.9.4": [ETCD]})
    # The catalog loses every entry above nothing: still at the head, no-op on re-delivery.
    log.subscription("etcd", "etcd", "community", channel="stable", typ="Modified")
    log.write("blocked_upgrade")


def missing_catalog_source():
    log = Log()
    setup(log, etcd_catalog())
    log.subscription("etcd", "etcd", "nosuch")
    log.write("missing_catalog_source")


def refused_status_write():
    """Every Subscription status write refused 422 (as a real server refused
    them before catalogHealth carried lastUpdated): the step stays planned,
    exactly one InstallPlan is created, and a refused write is tried again
    only when the subscription changes."""
    log = Log()
    setup(log, etcd_catalog())
    log.obj("Added", {"apiVersion": API, "kind": "Subscription",
                      "metadata": {"name": "etcd", "namespace": NS, "uid": "uid-sub-etcd", "resourceVersion": "1"},
                      "spec": {"name": "etcd", "source": "community", "sourceNamespace": GLOBAL}})  # seq 4
    invalid = ('Subscription.operators.coreos.com "etcd" is invalid: '
               'status.catalogHealth[0].lastUpdated: Required value')
    log.action_result("4.0", status=201)
    log.action_result("4.1", ok=False, status=422, error=invalid)  # held: no new plan
    log.install_plan(1, ["etcd.v0.9.4"])  # seq 7: the bare plan; its status is written (7.0)
    log.action_result("7.0", status=200)
    # The user labels the subscription: seen at another resourceVersion, the
    # held status is written once more, and refused again.
    log.obj("Modified", {"apiVersion": API, "kind": "Subscription",
                         "metadata": {"name": "etcd", "namespace": NS, "uid": "uid-sub-etcd", "resourceVersion": "2",
                                      "labels": {"team": "db"}},
                         "spec": {"name": "etcd", "source": "community", "sourceNamespace": GLOBAL}})  # seq 9
    log.action_result("9.0", ok=False, status=422, error=invalid)
    log.install_plan(1, ["etcd.v0.9.4"], phase="Installing", typ="Modified")
    log.install_plan(1, ["etcd.v0.9.4"], phase="Complete", typ="Modified")  # seq 12: a new status (12.0)
    log.action_result("12.0", ok=False, status=422, error=invalid)
    log.csv("etcd.v0.9.4", "0.9.4", owned=[ETCD])  # seq 14: installed, a new status (14.0)
    log.action_result("14.0", ok=False, status=422, error=invalid)
    log.write("refused_status_write")


def no_operator_group():
    log = Log()
    log.content("community", GLOBAL, etcd_catalog())
    log.catalog_source("community")
    log.subscription("etcd", "etcd", "community")
    log.operator_group()
    log.write("no_operator_group")


for fn in [fresh_install, multi_step_upgrade, replacement_window, foreign_move_during_replacement,
           alpha_channel, skiprange_jump, skips, skipped_never_chosen,
           starting_csv_missing, manual_approval, manual_namespace, dependency_success, dependency_missing,
           dependency_conflict, catalog_priority, deprecation, legacy_deprecated, catalog_update_mid_upgrade,
           catalog_update_at_head,
           catalog_broken, blocked_upgrade, missing_catalog_source, no_operator_group, refused_status_write]:
    fn()
