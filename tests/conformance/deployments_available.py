#!/usr/bin/env python3
"""Stand-in for the kubelet and the Deployment controller of the conformance
cluster (there are none): every Deployment whose status does not yet say its
current generation is rolled out gets a status that does (replicas, updated,
ready and available = spec.replicas, Available and Progressing True), written to
the status subresource as field manager `kube-controller-manager`. Lets OLM's
CSVs reach Succeeded. Polls every INTERVAL seconds until killed.

usage: deployments_available.py --server URL --token-file FILE --cacert FILE [--interval S]
Standard library only.
"""
import argparse
import datetime
import json
import ssl
import sys
import time
import urllib.error
import urllib.request


def request(args, ctx, method, path, body=None, ctype="application/json"):
    req = urllib.request.Request(args.server + path, method=method,
                                 data=None if body is None else json.dumps(body).encode())
    req.add_header("Authorization", "Bearer " + args.token)
    req.add_header("Accept", "application/json")
    req.add_header("User-Agent", "kube-controller-manager/conformance-stand-in")
    if body is not None:
        req.add_header("Content-Type", ctype)
    with urllib.request.urlopen(req, context=ctx, timeout=10) as resp:
        return json.load(resp)


def rolled_out(d):
    st, spec = d.get("status") or {}, d.get("spec") or {}
    want = spec.get("replicas", 1)
    return (st.get("observedGeneration", 0) >= d["metadata"].get("generation", 0)
            and st.get("availableReplicas", 0) == want and st.get("updatedReplicas", 0) == want
            and st.get("replicas", 0) == want)


def status_for(d):
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    want = (d.get("spec") or {}).get("replicas", 1)
    return {"status": {
        "observedGeneration": d["metadata"].get("generation", 1),
        "replicas": want, "updatedReplicas": want, "readyReplicas": want, "availableReplicas": want,
        "conditions": [
            {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
             "message": "Deployment has minimum availability.", "lastUpdateTime": now, "lastTransitionTime": now},
            {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable",
             "message": "ReplicaSet has successfully progressed.", "lastUpdateTime": now,
             "lastTransitionTime": now},
        ],
    }}


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    ap.add_argument("--token-file", required=True)
    ap.add_argument("--cacert", required=True)
    ap.add_argument("--interval", type=float, default=1.0)
    args = ap.parse_args(argv[1:])
    with open(args.token_file) as fh:
        args.token = fh.read().strip()
    ctx = ssl.create_default_context(cafile=args.cacert)
    while True:
        try:
            items = request(args, ctx, "GET", "/apis/apps/v1/deployments").get("items", [])
            for d in items:
                if rolled_out(d):
                    continue
                md = d["metadata"]
                path = "/apis/apps/v1/namespaces/%s/deployments/%s/status?fieldManager=kube-controller-manager" % (
                    md["namespace"], md["name"])
                try:
                    request(args, ctx, "PATCH", path, status_for(d), "application/merge-patch+json")
                    print("marked %s/%s generation %s available" % (md["namespace"], md["name"],
                                                                    md.get("generation")), flush=True)
                except urllib.error.HTTPError as e:
                    print("patch %s/%s: HTTP %s" % (md["namespace"], md["name"], e.code), flush=True)
        except (urllib.error.URLError, OSError, ValueError) as e:
            print("list deployments: %s" % e, flush=True)
        time.sleep(args.interval)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except KeyboardInterrupt:
        sys.exit(0)
