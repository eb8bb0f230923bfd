#!/usr/bin/env python3
"""`recon bench olm --heap`: the peak heap split into the bench, the simulated
cluster, the engine's World and the domain's state (bench/heap_figures.h).
Each part the engine's run fills holds something, and their sum stays within
the process's peak RSS. Skipped (77) when the binary has no jemalloc.

usage: heap_split_test.py RECON SOURCE_DIR
"""
import json
import os
import subprocess
import sys

RECON, SRC = sys.argv[1], sys.argv[2]
if "jemalloc" not in subprocess.run([RECON, "version"], capture_output=True, text=True).stdout:
    print("no jemalloc in this build: --heap cannot split")
    sys.exit(77)
catalog = os.path.join(SRC, "datasets", "olm", "community-derived")
p = subprocess.run([RECON, "bench", "olm", "--json", "--quiet", "--heap", catalog, "--subscriptions", "3"],
                   capture_output=True, text=True, timeout=300)
if p.returncode != 0:
    sys.exit(f"exit {p.returncode}: {p.stderr}")
f = json.loads(p.stdout)
heap = f["heap_peak"]
if list(heap) != ["bench", "cluster", "world", "domain"]:
    sys.exit(f"parts: {list(heap)}")
for part in ("cluster", "world", "domain"):
    if not heap[part]["allocated_mb"] > 1 or heap[part]["resident_mb"] < heap[part]["allocated_mb"]:
        sys.exit(f"{part}: {heap[part]}")
total = sum(v["allocated_mb"] for v in heap.values())
if total > f["peak_rss_mb"]:
    sys.exit(f"parts sum to {total:.1f} MB, more than the peak RSS {f['peak_rss_mb']} MB")
# Without --heap nothing is split.
p = subprocess.run([RECON, "bench", "olm", "--json", "--quiet", catalog, "--subscriptions", "1"],
                   capture_output=True, text=True, timeout=300)
if p.returncode != 0 or json.loads(p.stdout)["heap_peak"] is not None:
    sys.exit(f"without --heap: exit {p.returncode}: {p.stdout[:300]} {p.stderr}")
print("heap split:", ", ".join(f"{k} {v['allocated_mb']} MB" for k, v in heap.items()))
