#!/usr/bin/env python3
"""Summarise `recon shadow report -o json` files of conformance runs.

usage: summarize.py REPORT.json [REPORT.json ...]

For each report: the counts per domain (predictions = match + differs + missed
+ superseded + pending), the share of decided predictions that match (match /
(match + differs + missed); superseded and pending are not decided), and every
finding other than `match`, grouped by result, verb, kind, writer (the field
manager or user agent of an unpredicted write), detail and differing field paths, with a few examples (cause seq, object, and
the workload step it fell in when a steps.tsv, "<RFC 3339 time>\t<step>" per
line as the workload scripts write it, sits beside the report).
Standard library only.
"""
import bisect
import collections
import datetime
import json
import os
import re
import sys


def parse_time(text):
    """RFC 3339 with up to 9 fractional digits -> aware datetime (microseconds)."""
    m = re.match(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$", text or "")
    if not m:
        return None
    frac = (m.group(2) or "0")[:6].ljust(6, "0")
    zone = "+00:00" if m.group(3) == "Z" else m.group(3)
    return datetime.datetime.fromisoformat("%s.%s%s" % (m.group(1), frac, zone))


def load_steps(report_path):
    path = os.path.join(os.path.dirname(os.path.abspath(report_path)), "steps.tsv")
    steps = []
    if os.path.exists(path):
        with open(path) as fh:
            for line in fh:
                when, _, name = line.rstrip("\n").partition("\t")
                t = parse_time(when)
                if t is not None:
                    steps.append((t, name))
    steps.sort()
    return steps


def step_of(steps, when):
    t = parse_time(when)
    if not steps or t is None:
        return ""
    i = bisect.bisect_right([s[0] for s in steps], t) - 1
    return steps[i][1] if i >= 0 else "(before the first step)"


def describe(obj):
    ns = obj.get("namespace") or ""
    return (ns + "/" if ns else "") + obj.get("name", "")


def summarize(path):
    with open(path) as fh:
        rep = json.load(fh)
    audit = rep.get("audit_writes")
    head = "%s: %d events, window %s" % (path, rep.get("events", 0), rep.get("window", "?"))
    if audit is not None:
        head += ", judged on the audit log (%d writes)" % audit
    print(head)
    steps = load_steps(path)
    print("  %-10s %11s %6s %8s %7s %11s %8s %12s %9s" % (
        "domain", "predictions", "match", "differs", "missed", "superseded", "pending", "unpredicted", "match %"))
    for domain, c in sorted(rep.get("counts", {}).items()):
        decided = c.get("match", 0) + c.get("differs", 0) + c.get("missed", 0)
        predictions = decided + c.get("superseded", 0) + c.get("pending", 0)
        share = 100.0 * c.get("match", 0) / decided if decided else 0.0
        print("  %-10s %11d %6d %8d %7d %11d %8d %12d %8.2f%%" % (
            domain, predictions, c.get("match", 0), c.get("differs", 0), c.get("missed", 0),
            c.get("superseded", 0), c.get("pending", 0), c.get("unpredicted", 0), share))
    groups = collections.OrderedDict()
    for f in rep.get("findings", []):
        if f.get("result") == "match":
            continue
        key = (f.get("result"), f.get("verb"), f.get("object", {}).get("kind"), f.get("detail", ""),
               tuple(d.get("path") for d in f.get("diffs", [])), f.get("manager", ""))
        groups.setdefault(key, []).append(f)
    order = {"differs": 0, "missed": 1, "unpredicted": 2, "superseded": 3, "pending": 4}
    for key in sorted(groups, key=lambda k: (order.get(k[0], 9), k[1] or "", k[2] or "", k[3], k[4], k[5])):
        result, verb, kind, detail, paths, manager = key
        items = groups[key]
        line = "  %4d %-11s %-13s %-16s" % (len(items), result, verb, kind)
        if manager:
            line += " by " + manager
        if detail:
            line += " (%s)" % detail
        if paths:
            line += " fields: " + ", ".join(paths)
        print(line)
        examples = ", ".join("seq %s %s" % (f.get("cause"), describe(f.get("object", {}))) for f in items[:3])
        print("       e.g. " + examples + (" ..." if len(items) > 3 else ""))
        if steps:
            in_steps = collections.Counter(step_of(steps, f.get("time")) for f in items)
            print("       steps: " + "; ".join("%s x%d" % (k, v) for k, v in in_steps.items()))
        for f in items[:1]:
            for d in f.get("diffs", []):
                print("       %s: predicted %s, observed %s" % (d.get("path"), d.get("predicted"), d.get("observed")))
    print()


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    for path in argv[1:]:
        summarize(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
