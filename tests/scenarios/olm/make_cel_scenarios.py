#!/usr/bin/env python3
"""Writes the olm scenario whose dependency is a CEL olm.constraint
(cel_dependency.jsonl, .args) in this folder.

It reuses the catalog and event helpers of make_scenarios.py (everything
above its "# ---- scenarios" line) without running that script's own
scenarios. Run it, then scripts/update-scenarios olm cel_dependency, and
review the .expected by hand.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
_src = open(os.path.join(HERE, "make_scenarios.py")).read()
exec(compile(_src[:_src.index("# ---- scenarios")], "make_scenarios.py", "exec"))

APP = gvk("app.example.com", "v1", "App")
DB = gvk("db.example.com", "v1", "Database")

# app needs a db below 2.0.0 that carries the certified tier property: a
# rule over the candidate's whole property list, custom properties included.
RULE = ("properties.exists(p, p.type == 'olm.package' && p.value.packageName == 'db' && "
        "semver_compare(p.value.version, '2.0.0') < 0) && "
        "properties.exists(p, p.type == 'example.com/tier' && p.value == 'certified')")
CONSTRAINT = {"type": "olm.constraint",
              "value": {"failureMessage": "app needs a certified db 1.x", "cel": {"rule": RULE}}}


def tier(t):
    return {"type": "example.com/tier", "value": t}


def db_props(version, t):
    return [{"type": "olm.package", "value": {"packageName": "db", "version": version}},
            {"type": "olm.gvk", "value": DB}, tier(t)]


def cel_catalog():
    # db 2.0.0 is the head but below the rule's version bound; db 1.0.0 is
    # not certified. Only db 1.5.0 satisfies the rule.
    return catalog_files([
        package("app", "stable"),
        channel("app", "stable", ["app.v1.0.0"]),
        bundle("app", "app.v1.0.0", "1.0.0", [APP], extra=[CONSTRAINT]),
        package("db", "stable"),
        channel("db", "stable", ["db.v1.0.0", {"name": "db.v1.5.0", "replaces": "db.v1.0.0"},
                                 {"name": "db.v2.0.0", "replaces": "db.v1.5.0"}]),
        bundle("db", "db.v1.0.0", "1.0.0", [DB], extra=[tier("community")]),
        bundle("db", "db.v1.5.0", "1.5.0", [DB], extra=[tier("certified")]),
        bundle("db", "db.v2.0.0", "2.0.0", [DB], extra=[tier("certified")]),
    ])


def cel_dependency():
    log = Log()
    setup(log, cel_catalog())
    log.subscription("app", "app", "community")
    # The plan installs app and db 1.5.0 (the only bundle the rule accepts) and creates db's Subscription.
    name = log.install_plan(1, ["app.v1.0.0", "db.v1.5.0"])
    log.add({"time": log.time(), "type": "Added", "object": {
        "apiVersion": API, "kind": "Subscription",
        "metadata": {"name": "db-stable-community-openshift-marketplace", "namespace": NS,
                     "annotations": {"olm.generated-by": name}},
        "spec": {"channel": "stable", "installPlanApproval": "Automatic", "name": "db", "source": "community",
                 "sourceNamespace": GLOBAL, "startingCSV": "db.v1.5.0"}}})
    # OLM records each bundle's properties on its CSV: the installed db keeps
    # satisfying app's rule (tier included), and app keeps its constraint.
    log.csv("db.v1.5.0", "1.5.0", [DB], properties=db_props("1.5.0", "certified"))
    log.csv("app.v1.0.0", "1.0.0", [APP], properties=[
        {"type": "olm.package", "value": {"packageName": "app", "version": "1.0.0"}},
        {"type": "olm.gvk", "value": APP}, CONSTRAINT])
    # db 2.0.0 replaces 1.5.0, but app's rule wants db below 2.0.0: db's upgrade is blocked (a no-op).
    log.install_plan(1, ["app.v1.0.0", "db.v1.5.0"], phase="Complete", typ="Modified")
    log.csv("db.v1.5.0", "1.5.0", [DB], properties=db_props("1.5.0", "certified"), typ="Modified")
    log.write("cel_dependency")


cel_dependency()
