#!/usr/bin/env python3
"""`recon bench olm --peer`: the race's figures and answers compared, and each
way a peer can fail named (bench/olm_peer_figures.h). The peer here is
protocol_peer.py; OLM's own resolver is raced by hand (docs/benchmarks.md).

usage: peer_race_test.py RECON SOURCE_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

RECON, SRC = sys.argv[1], sys.argv[2]
PEER = os.path.join(SRC, "tests", "bench", "protocol_peer.py")
CATALOG = os.path.join(SRC, "datasets", "olm", "community-derived")
failures = []


def bench(mode, *extra, peer=PEER):
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, PEER_MODE=mode, TMPDIR=tmp)
        return subprocess.run([RECON, "bench", "olm", "--quiet", CATALOG, "--subscriptions", "3", "--peer", peer,
                               *extra], capture_output=True, text=True, env=env, timeout=300)


def check(name, ok, p):
    if not ok:
        failures.append(f"{name}: exit {p.returncode}\nstdout: {p.stdout[-2000:]}\nstderr: {p.stderr[-2000:]}")


p = bench("", "--json")
race = json.loads(p.stdout)["peer_race"] if p.returncode == 0 else {}
check("agree", p.returncode == 0 and race.get("peer") == "protocol-peer" and race.get("subscriptions") == 3
      and race.get("answers_agree") == 3 and race.get("answers_differ") == 0
      and race.get("recon_resolutions_per_s", 0) > 0
      and abs(race.get("recon_over_peer", 0) - race["recon_resolutions_per_s"] / 1000.0) < 1e-6, p)

p = bench("differ")
check("differ", p.returncode == 0 and "2 the same, 1 different" in p.stdout
      and "bench-00001/" in p.stdout and ": recon ok [" in p.stdout and ", peer unsat" in p.stdout, p)

p = bench("exit3")
check("exit3", p.returncode == 1 and "exited 3" in p.stderr and "boom" in p.stderr, p)

p = bench("badstatus")
check("badstatus", p.returncode == 1 and "results.jsonl:1" in p.stderr and "\"maybe\"" in p.stderr, p)

p = bench("short")
check("short", p.returncode == 1 and "2 lines for 3 subscriptions" in p.stderr, p)

p = bench("", peer=os.path.join(SRC, "no-such-peer"))
check("missing", p.returncode == 1 and "not an executable file" in p.stderr, p)

p = bench("", "--subscriptions", "0")
check("zero", p.returncode == 2 and "--subscriptions: expected at least 1" in p.stderr, p)

if failures:
    sys.exit("\n\n".join(failures))
print("peer race: 7 cases pass")
