#!/usr/bin/env python3
"""Cut a small file-based catalog out of datasets/olm/community-derived for the
OLM conformance workload, with every bundle inlined so OLM needs no unpack Job.

usage: olm_catalog.py SOURCE_CATALOG_JSON OUT_DIR --packages P1,P2,... [--drop BUNDLE,...] [--permissions]

community-derived carries the real upgrade graph (channels: replaces, skips,
skipRange) and the real properties (olm.package, olm.gvk, olm.gvk.required,
olm.package.required) of each bundle, with placeholder images and no manifests.
For each bundle of the chosen packages this writes:
  - the olm.bundle blob without `image`, plus `olm.bundle.object` properties
    (base64 JSON, as opm renders them) holding
      * a ClusterServiceVersion named after the bundle: spec.version from
        olm.package, replaces/skips/olm.skipRange from its channel entry, all four
        install modes, one Deployment `<package>-controller-manager` (image
        `registry.conformance.invalid/<package>:<version>`: never pulled, no
        kubelet runs), owned CRDs = its olm.gvk properties, required CRDs = its
        olm.gvk.required properties;
      * one schemaless CustomResourceDefinition per owned group/kind, serving
        every version any bundle of the cut gives that kind (so an upgrade never
        drops a stored version);
  - the package and channel blobs as they are (entries of --drop bundles removed).
The manifests are synthetic (the catalog has none); the graph and the
properties OLM resolves on are the real ones. Output: OUT_DIR/catalog.json.
Standard library only.
"""
import argparse
import base64
import collections
import json
import os
import re
import sys


def load_stream(path):
    with open(path) as fh:
        text = fh.read()
    dec = json.JSONDecoder()
    i, out = 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        obj, i = dec.raw_decode(text, i)
        out.append(obj)


def props(bundle, kind):
    return [p["value"] for p in bundle.get("properties", []) if p.get("type") == kind]


def version_key(v):
    """Kubernetes API version priority: GA > beta > alpha, then by numbers."""
    m = re.match(r"^v(\d+)(?:(alpha|beta)(\d+))?$", v)
    if not m:
        return (-1, 0, 0, v)
    stage = {"alpha": 0, "beta": 1, None: 2}[m.group(2)]
    return (stage, int(m.group(1)), int(m.group(3) or 0), v)


def plural(kind):
    return kind.lower() + "s"


def crd_name(group, kind):
    return "%s.%s" % (plural(kind), group)


def b64(obj):
    return base64.b64encode(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()).decode()


def make_crd(group, kind, versions):
    ordered = sorted(versions, key=version_key)
    storage = ordered[-1]
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": crd_name(group, kind)},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"kind": kind, "listKind": kind + "List", "plural": plural(kind), "singular": kind.lower()},
            "versions": [{
                "name": v, "served": True, "storage": v == storage,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
            } for v in ordered],
        },
    }


def make_csv(bundle, entry, package, version, crd_versions, permissions=False):
    owned = [{"name": crd_name(g["group"], g["kind"]), "version": g["version"], "kind": g["kind"],
              "displayName": g["kind"]} for g in props(bundle, "olm.gvk")]
    required = [{"name": crd_name(g["group"], g["kind"]), "version": g["version"], "kind": g["kind"],
                 "displayName": g["kind"]} for g in props(bundle, "olm.gvk.required")]
    labels = {"app.kubernetes.io/name": package}
    spec = {
        "displayName": package,
        "description": "Synthetic CSV for the recon conformance harness (graph and properties from community-derived).",
        "version": version,
        "provider": {"name": "recon conformance"},
        "installModes": [{"type": t, "supported": True}
                         for t in ("OwnNamespace", "SingleNamespace", "MultiNamespace", "AllNamespaces")],
        "install": {"strategy": "deployment", "spec": {"deployments": [{
            "name": package + "-controller-manager",
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": labels},
                "template": {"metadata": {"labels": labels}, "spec": {"containers": [{
                    "name": "manager",
                    "image": "registry.conformance.invalid/%s:%s" % (package, version),
                }]}},
            },
        }]}},
        "customresourcedefinitions": {},
    }
    if permissions:
        # What an operator asks for: a service account of its own, granted
        # reads of ConfigMaps in the namespaces it watches (a plan creates the
        # ServiceAccount, Role and RoleBinding; the olm operator copies them
        # to a group's other targets, or lifts them for all namespaces).
        sa = package + "-controller"
        install = spec["install"]["spec"]
        install["deployments"][0]["spec"]["template"]["spec"]["serviceAccountName"] = sa
        install["permissions"] = [{"serviceAccountName": sa, "rules": [
            {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "watch"]}]}]
    if owned:
        spec["customresourcedefinitions"]["owned"] = owned
    if required:
        spec["customresourcedefinitions"]["required"] = required
    annotations = {}
    if entry:
        if entry.get("replaces"):
            spec["replaces"] = entry["replaces"]
        if entry.get("skips"):
            spec["skips"] = entry["skips"]
        if entry.get("skipRange"):
            annotations["olm.skipRange"] = entry["skipRange"]
    csv = {"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
           "metadata": {"name": bundle["name"]}, "spec": spec}
    if annotations:
        csv["metadata"]["annotations"] = annotations
    crds = [make_crd(g["group"], g["kind"], crd_versions[(g["group"], g["kind"])])
            for g in props(bundle, "olm.gvk")]
    # One CRD per group/kind even when a bundle lists a kind at two versions.
    seen, unique = set(), []
    for c in crds:
        if c["metadata"]["name"] not in seen:
            seen.add(c["metadata"]["name"])
            unique.append(c)
    return csv, unique


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("source")
    ap.add_argument("out")
    ap.add_argument("--packages", required=True)
    ap.add_argument("--drop", default="")
    ap.add_argument("--permissions", action="store_true",
                    help="each CSV asks for a service account with namespaced permissions")
    args = ap.parse_args(argv[1:])
    want = [p for p in args.packages.split(",") if p]
    drop = {b for b in args.drop.split(",") if b}
    blobs = load_stream(args.source)
    by_schema = collections.defaultdict(list)
    for b in blobs:
        if b.get("schema") in ("olm.package", "olm.channel", "olm.bundle") and \
                (b.get("package") if b["schema"] != "olm.package" else b.get("name")) in want:
            by_schema[b["schema"]].append(b)
    found = {b["name"] for b in by_schema["olm.package"]}
    missing = [p for p in want if p not in found]
    if missing:
        print("packages not in %s: %s" % (args.source, ", ".join(missing)), file=sys.stderr)
        return 1
    entries = {}
    for ch in by_schema["olm.channel"]:
        ch["entries"] = [e for e in ch["entries"] if e["name"] not in drop]
        for e in ch["entries"]:
            entries.setdefault(e["name"], e)
    bundles = [b for b in by_schema["olm.bundle"] if b["name"] not in drop]
    crd_versions = collections.defaultdict(set)
    for b in bundles:
        for g in props(b, "olm.gvk"):
            crd_versions[(g["group"], g["kind"])].add(g["version"])
    out_bundles = []
    for b in bundles:
        pkg = props(b, "olm.package")[0]
        csv, crds = make_csv(b, entries.get(b["name"]), pkg["packageName"], pkg["version"], crd_versions,
                             args.permissions)
        nb = {k: v for k, v in b.items() if k != "image"}
        nb["properties"] = list(b.get("properties", [])) + \
            [{"type": "olm.bundle.object", "value": {"data": b64(o)}} for o in [csv] + crds]
        out_bundles.append(nb)
    os.makedirs(args.out, exist_ok=True)
    tmp = os.path.join(args.out, ".catalog.json.tmp")
    with open(tmp, "w") as fh:
        for b in by_schema["olm.package"] + sorted(by_schema["olm.channel"], key=lambda c: (c["package"], c["name"])) + \
                sorted(out_bundles, key=lambda b: (b["package"], b["name"])):
            fh.write(json.dumps(b, sort_keys=True) + "\n")
    os.replace(tmp, os.path.join(args.out, "catalog.json"))
    print("%s: %d packages, %d channels, %d bundles (dropped: %s)" % (
        os.path.join(args.out, "catalog.json"), len(by_schema["olm.package"]), len(by_schema["olm.channel"]),
        len(out_bundles), ", ".join(sorted(drop)) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
