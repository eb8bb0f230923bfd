#!/usr/bin/env python3
"""The benches' deterministic counts against a checked-in golden (issue 35).

Runs `recon bench olm` (16 subscriptions on datasets/olm/community-derived; 200
until session 31, when recon became both of OLM's operators in the bench and 200 took
over two minutes)
and `recon bench samples` (the real inventory, one round, no scaled copy) and
compares what does not depend on the machine's speed: events, actions,
writes by verb and kind, InstallPlans, resolutions asked for and computed,
namespace syncs, subscriptions at their head or failed. Any change fails
with the numbers (a regression grows them; a fix that shrinks them updates
the golden on purpose: run with --update and commit counts.golden.json).

usage: counts_guard.py RECON SOURCE_DIR [--update]
"""
import json
import os
import subprocess
import sys

OLM_KEYS = ["events", "actions", "install_plans", "engine_resolutions", "engine_resolutions_computed",
            "engine_syncs", "engine_syncs_skipped", "at_head", "resolution_failed", "writes",
            "below_head_without_failure"]
SAMPLES_KEYS = ["events", "actions", "writes", "converged"]


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stderr}")
    return json.loads(p.stdout)


def counts(recon, src):
    data = os.path.join(src, "datasets")
    olm = run([recon, "bench", "olm", "--json", os.path.join(data, "olm", "community-derived"),
               "--subscriptions", "16"])
    samples = run([recon, "bench", "samples", "--json", os.path.join(data, "samples", "ocp-x86_64"),
                   "--rounds", "1", "--scale", "1"])
    base = [r for r in samples["runs"] if r["label"] == "base"][0]
    return {"olm_16_community_derived": {k: olm[k] for k in OLM_KEYS},
            "samples_real_inventory": {k: base[k] for k in SAMPLES_KEYS}}


def flatten(d, prefix=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    recon, src = sys.argv[1], sys.argv[2]
    golden_path = os.path.join(src, "tests", "bench", "counts.golden.json")
    got = counts(recon, src)
    if "--update" in sys.argv[3:]:
        with open(golden_path, "w") as f:
            json.dump(got, f, indent=2, sort_keys=True)
            f.write("\n")
        print(f"wrote {golden_path}")
        return
    with open(golden_path) as f:
        want = json.load(f)
    g, w = flatten(got), flatten(want)
    diffs = []
    for k in sorted(set(g) | set(w)):
        a, b = w.get(k), g.get(k)
        if a == b:
            continue
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
            pct = f" ({(b - a) / a * 100:+.1f}%)" if a else ""
            diffs.append(f"  {k}: {a} -> {b}{pct} {'GREW' if b > a else 'shrank'}")
        else:
            diffs.append(f"  {k}: {a!r} -> {b!r}")
    if diffs:
        print("the benches' deterministic counts changed (golden: tests/bench/counts.golden.json):")
        print("\n".join(diffs))
        print("a regression if anything grew; if the change is meant, run "
              "tests/bench/counts_guard.py build/recon . --update and commit the golden")
        sys.exit(1)
    print(f"counts as golden: {len(g)} figures")


main()
