#!/usr/bin/env python3
"""Writes csv_create_answer_after_echo.jsonl/.args from csv_lifecycle.jsonl: its
first 58 events, with the answer to the plan's create of the CSV (action 53.0)
moved after the CSV's Added event, as a real API server may deliver them (the
watch event before the write's response). The CSV's group annotations wait for
that answer and must be written at it: beside a real kube-apiserver the group
sync at the echo skipped the CSV while the create was on its way, and no later
event of the CSV came, so the CSV stayed without a phase (session 31).
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "csv_lifecycle.jsonl")) as f:
    events = [json.loads(line) for line in f.read().splitlines()[:58]]
answer = next(e for e in events if e["type"] == "ActionResult" and e["action"] == "53.0")
echo = next(e for e in events if e.get("object", {}).get("kind") == "ClusterServiceVersion")
assert events.index(answer) < events.index(echo)
events.remove(answer)
answer["time"] = events[-1]["time"]  # times never go backwards in a log
events.append(answer)
with open(os.path.join(HERE, "csv_create_answer_after_echo.jsonl"), "w") as f:
    for seq, e in enumerate(events, 1):
        e["seq"] = seq
        f.write(json.dumps(e, separators=(",", ":")) + "\n")
with open(os.path.join(HERE, "csv_lifecycle.args")) as src, \
        open(os.path.join(HERE, "csv_create_answer_after_echo.args"), "w") as dst:
    dst.write(src.read())
