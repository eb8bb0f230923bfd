#!/usr/bin/env python3
"""No domain decides from a live adapter's partial first list.

For every scenario log under tests/scenarios/<domain>/ that has no `synced`
fact of its own, the leading run of Content, Cluster and Added events (the
objects a live adapter would list at start) is put between a Cluster event
`{"synced": false}` and one `{"synced": true}`, as the live adapter logs
them, and the log is replayed with the scenario's .args. No action may have
its cause inside that window: a decision made there rests on a world that
may not show objects listed later (World::Synced, ARCHITECTURE.md).

  first_list_check.py RECON SCENARIOS_DIR     exit 0 ok, 1 with a line per scenario that decides
"""
import json
import os
import subprocess
import sys
import tempfile


def wrapped(lines):
    """The log with its first list in a synced window, and the window's last seq; None to skip."""
    events = [json.loads(l) for l in lines]
    if any(e.get("type") == "Cluster" and "synced" in e.get("facts", {}) for e in events):
        return None  # the scenario has its own window
    n = 0
    while n < len(events) and events[n]["type"] in ("Content", "Cluster", "Added"):
        n += 1
    if n < 2:
        return None
    start = json.dumps({"time": events[0]["time"], "type": "Cluster", "facts": {"synced": False}})
    end = json.dumps({"time": events[n - 1]["time"], "type": "Cluster", "facts": {"synced": True}})
    # seqs: 1 the start, 2..n+1 the list, n+2 the end (its decisions are due there)
    return [start] + lines[:n] + [end] + lines[n:], n + 1


def main():
    recon, root = sys.argv[1], sys.argv[2]
    failures, checked = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for domain in sorted(os.listdir(root)):
            ddir = os.path.join(root, domain)
            if not os.path.isdir(ddir):
                continue
            for name in sorted(f for f in os.listdir(ddir) if f.endswith(".jsonl")):
                path = os.path.join(ddir, name)
                with open(path, encoding="utf-8") as f:
                    lines = [l for l in f.read().splitlines() if l.strip()]
                w = wrapped(lines)
                if w is None:
                    continue
                log, last_in_window = w
                args_path = path[: -len(".jsonl")] + ".args"
                args = open(args_path, encoding="utf-8").read().split() if os.path.exists(args_path) else []
                out = os.path.join(tmp, "log.jsonl")
                with open(out, "w", encoding="utf-8") as f:
                    f.write("\n".join(log) + "\n")
                r = subprocess.run([recon, "replay", out] + args, capture_output=True, text=True)
                if r.returncode != 0:
                    failures.append(f"{path}: replay failed: {r.stderr.strip()[:300]}")
                    continue
                checked += 1
                inside = [json.loads(l) for l in r.stdout.splitlines()
                          if l.strip() and json.loads(l)["cause"] <= last_in_window]
                if inside:
                    a = inside[0]
                    what = a["verb"] + " " + a.get("object", {}).get("kind", a.get("timer", a.get("probe", "")))
                    failures.append(f"{path}: {len(inside)} actions decided inside the first list "
                                    f"(seqs 1-{last_in_window}), the first: {what} at seq {a['cause']}")
    for f in failures:
        print(f)
    print(f"first lists: {checked} scenarios wrapped, {len(failures)} decide inside them")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
