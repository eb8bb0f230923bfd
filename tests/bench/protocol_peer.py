#!/usr/bin/env python3
"""A peer resolver for `recon bench olm --peer` tests: it speaks the protocol
(bench/olm_peer_figures.h) without resolving anything. Every subscription's
answer is "ok, install the startingCSV", which recon's resolver also gives
for a package without dependencies. PEER_MODE bends it:

  exit3     print "boom" on stderr and exit 3
  badstatus the first result's status is "maybe"
  short     one result line fewer than subscriptions
  differ    the second subscription's answer is unsatisfiable
"""
import argparse
import json
import os
import sys

ap = argparse.ArgumentParser()
for flag in ("catalog", "subscriptions", "results", "summary", "catalog-name", "catalog-namespace"):
    ap.add_argument("-" + flag, required=True)
args = ap.parse_args()
mode = os.environ.get("PEER_MODE", "")
if mode == "exit3":
    print("boom", file=sys.stderr)
    sys.exit(3)
if not os.path.isdir(args.catalog):
    sys.exit(f"{args.catalog}: not a directory")
subs = [json.loads(l) for l in open(args.subscriptions) if l.strip()]
with open(args.results, "w") as out:
    for i, s in enumerate(subs):
        if mode == "short" and i == len(subs) - 1:
            break
        r = {"status": "ok", "operators": [s["startingCSV"]]}
        if mode == "badstatus" and i == 0:
            r["status"] = "maybe"
        if mode == "differ" and i == 1:
            r = {"status": "unsat", "operators": [], "error": "constraints not satisfiable: test"}
        out.write(json.dumps(r) + "\n")
with open(args.summary, "w") as out:
    json.dump({"peer": "protocol-peer", "resolutions_per_s": 1000.0, "p50_ms": 1.0, "p99_ms": 2.0,
               "peak_rss_mb": 10.0, "gomaxprocs": 1}, out)
