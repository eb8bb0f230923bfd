#!/usr/bin/env python3
"""The final state of an OLM conformance run (olm.sh), normalized so that a run
acted by the real OLM alone and one acted by recon alone compare (issue 50).

usage: final_state.py dump KUBECTL KUBECONFIG OUT_JSON
       final_state.py compare A_JSON B_JSON [--names A,B]

`dump` reads, from every namespace, the objects OLM's two operators write or
decide and keeps what a user relies on, generated names and times aside:
  - ClusterServiceVersions: phase, reason, message, requirementStatus (uuids
    dropped), the olm.* annotations and the labels OLM sets (copies included);
  - Deployments: spec (the olm.deployment-spec-hash label dropped: upstream
    hashes with Go's fnv of a Go dump, which recon does not reproduce),
    labels, owner references by kind and name;
  - Subscriptions: spec; status state, currentCSV, installedCSV and
    conditions (type, status, reason, message);
  - InstallPlans, by namespace: the distinct (CSV names, phase, approval,
    approved), and apart how many plans repeat one; their names are generated;
  - OperatorGroups: spec, status.namespaces, the olm.providedAPIs annotation;
  - OperatorConditions: spec, status conditions;
  - ServiceAccounts, Roles and RoleBindings a CSV or an OperatorCondition
    owns or that carry OLM's olm.owner labels (tenant RBAC), by namespace:
    the multiset of their rules / subjects and role, names aside (upstream
    generates Role names with a hash suffix);
  - ClusterRoles named for OperatorGroups (<group>-admin|edit|view): their
    aggregation labels; ClusterRoles and ClusterRoleBindings labelled as a
    CSV's (clusterPermissions, lifted RBAC), by the CSV's namespace.
`compare` prints each key present on one side only and each that differs, by
field, and exits 1 if any. Standard library only.
"""
import json
import re
import subprocess
import sys

TIME_KEYS = re.compile(r"(Time|Timestamp|lastUpdated|lastSync)$")
HASH_LABEL = "olm.deployment-spec-hash"


def strip(o):
    """Times, uids, resourceVersions and generations out, recursively."""
    if isinstance(o, dict):
        return {k: strip(v) for k, v in sorted(o.items())
                if not TIME_KEYS.search(k) and k not in ("uid", "resourceVersion", "generation",
                                                         "observedGeneration", "managedFields", "uuid")}
    if isinstance(o, list):
        return [strip(x) for x in o]
    return o


def owners(o):
    return sorted(f"{r.get('kind')}/{r.get('name')}" for r in o["metadata"].get("ownerReferences") or [])


def get(kubectl, kc, resource):
    out = subprocess.run([kubectl, "--kubeconfig", kc, "get", resource, "-A", "-o", "json"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)["items"]


def olm_meta(m, prefixes=("olm.",)):
    return {k: v for k, v in sorted((m or {}).items()) if k.startswith(prefixes)}


def dump(kubectl, kc):
    state = {}
    csvs = get(kubectl, kc, "clusterserviceversions.operators.coreos.com")
    owned_by_csv = set()
    for c in csvs:
        m, st = c["metadata"], c.get("status") or {}
        key = f"ClusterServiceVersion/{m['namespace']}/{m['name']}"
        state[key] = strip({
            "phase": st.get("phase"), "reason": st.get("reason"), "message": st.get("message"),
            "requirementStatus": sorted(st.get("requirementStatus") or [],
                                        key=lambda r: (r.get("kind", ""), r.get("name", ""))),
            "annotations": olm_meta(m.get("annotations")),
            "labels": olm_meta(m.get("labels"), ("olm.", "operators.coreos.com/")),
        })
        owned_by_csv.add((m["namespace"], m["name"]))
    for d in get(kubectl, kc, "deployments.apps"):
        m = d["metadata"]
        if not any(r.get("kind") == "ClusterServiceVersion" for r in m.get("ownerReferences") or []):
            continue
        spec = json.loads(json.dumps(d["spec"]))
        for labels in (m.get("labels") or {}, spec.get("template", {}).get("metadata", {}).get("labels") or {}):
            labels.pop(HASH_LABEL, None)
        state[f"Deployment/{m['namespace']}/{m['name']}"] = strip({
            "spec": spec, "labels": {k: v for k, v in sorted((m.get("labels") or {}).items()) if k != HASH_LABEL},
            "owners": owners(d)})
    for s in get(kubectl, kc, "subscriptions.operators.coreos.com"):
        m, st = s["metadata"], s.get("status") or {}
        state[f"Subscription/{m['namespace']}/{m['name']}"] = strip({
            "spec": s["spec"], "state": st.get("state"), "currentCSV": st.get("currentCSV"),
            "installedCSV": st.get("installedCSV"),
            "conditions": sorted(({k: c.get(k) for k in ("type", "status", "reason", "message")}
                                  for c in st.get("conditions") or []), key=lambda c: c["type"])})
    plans = {}
    for p in get(kubectl, kc, "installplans.operators.coreos.com"):
        ns = p["metadata"]["namespace"]
        plans.setdefault(ns, []).append(
            [sorted(p["spec"].get("clusterServiceVersionNames") or []), (p.get("status") or {}).get("phase"),
             p["spec"].get("approval"), p["spec"].get("approved")])
    for ns, lst in plans.items():
        # Distinct, and the duplicates apart: OLM may make two plans for one
        # step (a second resolution before the Subscription points at the
        # first), a race the comparison names rather than hides.
        distinct = sorted({json.dumps(p) for p in lst})
        state[f"InstallPlans/{ns}"] = [json.loads(p) for p in distinct]
        if len(lst) > len(distinct):
            state[f"InstallPlanDuplicates/{ns}"] = len(lst) - len(distinct)
    groups = set()
    for g in get(kubectl, kc, "operatorgroups.operators.coreos.com"):
        m = g["metadata"]
        groups.add(m["name"])
        state[f"OperatorGroup/{m['namespace']}/{m['name']}"] = strip({
            "spec": g.get("spec") or {}, "namespaces": sorted((g.get("status") or {}).get("namespaces") or []),
            "providedAPIs": (m.get("annotations") or {}).get("olm.providedAPIs")})
    for oc in get(kubectl, kc, "operatorconditions.operators.coreos.com"):
        m = oc["metadata"]
        state[f"OperatorCondition/{m['namespace']}/{m['name']}"] = strip({
            "spec": oc.get("spec") or {}, "conditions": (oc.get("status") or {}).get("conditions") or [],
            "owners": owners(oc)})
    rbac = {}
    for kind, resource in (("ServiceAccount", "serviceaccounts"), ("Role", "roles.rbac.authorization.k8s.io"),
                           ("RoleBinding", "rolebindings.rbac.authorization.k8s.io")):
        for o in get(kubectl, kc, resource):
            m = o["metadata"]
            refs = [r for r in m.get("ownerReferences") or []
                    if r.get("kind") in ("ClusterServiceVersion", "OperatorCondition")]
            # OLM's own labels name the owner where a reference cannot (the
            # tenant RBAC of a MultiNamespace group in its targets).
            owner_labels = olm_meta(m.get("labels"), ("olm.owner",))
            if not refs and not owner_labels:
                continue
            body = {"owners": owners(o), "ownerLabels": owner_labels}
            if kind == "Role":
                body["rules"] = o.get("rules") or []
            if kind == "RoleBinding":
                body["subjects"], body["roleRef"] = o.get("subjects") or [], o.get("roleRef", {}).get("kind")
            rbac.setdefault(f"{kind}s/{m['namespace']}", []).append(strip(body))
    for key, lst in rbac.items():
        state[key] = sorted(lst, key=json.dumps)
    for cr in get(kubectl, kc, "clusterroles.rbac.authorization.k8s.io"):
        m = cr["metadata"]
        base, _, suffix = m["name"].rpartition("-")
        if base in groups and suffix in ("admin", "edit", "view"):
            state[f"ClusterRole/{m['name']}"] = olm_meta(m.get("labels"), ("olm.", "rbac.authorization.k8s.io/"))
    # A CSV's cluster RBAC (a plan's clusterPermissions, an all-namespaces
    # operator's lifted Roles and RoleBindings), by owner, names aside.
    lifted = {}
    for kind, resource in (("ClusterRole", "clusterroles.rbac.authorization.k8s.io"),
                           ("ClusterRoleBinding", "clusterrolebindings.rbac.authorization.k8s.io")):
        for o in get(kubectl, kc, resource):
            labels = olm_meta(o["metadata"].get("labels"), ("olm.owner",))
            if labels.get("olm.owner.kind") != "ClusterServiceVersion":
                continue
            body = {"ownerLabels": labels}
            if kind == "ClusterRole":
                body["rules"] = o.get("rules") or []
            else:
                body["subjects"], body["roleRef"] = o.get("subjects") or [], o.get("roleRef", {}).get("kind")
            lifted.setdefault(f"{kind}s/{labels.get('olm.owner.namespace')}", []).append(strip(body))
    for key, lst in lifted.items():
        state[key] = sorted(lst, key=json.dumps)
    return state


def diff(a, b, path=""):
    if type(a) is not type(b) or not isinstance(a, (dict, list)):
        return [] if a == b else [f"{path or '.'}: {json.dumps(a)[:300]} != {json.dumps(b)[:300]}"]
    if isinstance(a, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items != {len(b)}: {json.dumps(a)[:300]} != {json.dumps(b)[:300]}"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in diff(x, y, f"{path}[{i}]")]
    out = []
    for k in sorted(set(a) | set(b)):
        out += diff(a.get(k), b.get(k), f"{path}.{k}")
    return out


def compare(a_path, b_path, names):
    with open(a_path) as f:
        a = json.load(f)
    with open(b_path) as f:
        b = json.load(f)
    findings = 0
    for key in sorted(set(a) | set(b)):
        if key not in b or key not in a:
            findings += 1
            print(f"only in {names[0] if key in a else names[1]}: {key}")
            continue
        for d in diff(a[key], b[key]):
            findings += 1
            print(f"{key}{d}")
    print(f"{len(set(a) & set(b))} keys on both sides, {findings} difference(s) "
          f"({names[0]}: {len(a)} keys, {names[1]}: {len(b)})")
    return 1 if findings else 0


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "dump":
        with open(sys.argv[4], "w") as f:
            json.dump(dump(sys.argv[2], sys.argv[3]), f, indent=1, sort_keys=True)
        return 0
    if len(sys.argv) >= 4 and sys.argv[1] == "compare":
        names = ["a", "b"]
        if len(sys.argv) == 6 and sys.argv[4] == "--names":
            names = sys.argv[5].split(",", 1)
        return compare(sys.argv[2], sys.argv[3], names)
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
