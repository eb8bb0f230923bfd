"""What the scenario generators of this folder share: a log of events one
second apart from 2026-11-21T10:00:00Z, written as NAME.jsonl with its
NAME.args beside it."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


class Log:
    def __init__(self):
        self.lines = []
        self.t = 0

    def at(self):
        s = self.t
        self.t += 1
        return "2026-11-21T10:%02d:%02dZ" % (s // 60, s % 60)

    def add(self, event):
        self.lines.append(json.dumps(dict({"time": self.at()}, **event), separators=(",", ":")))

    def ev(self, typ, obj):
        self.add({"type": typ, "object": obj})

    def answer(self, action, ok, status, rv="", error=""):
        e = {"type": "ActionResult", "action": action, "ok": ok, "status": status}
        if rv:
            e["resourceVersion"] = rv
        if error:
            e["error"] = error
        self.add(e)

    def timer(self, name):
        self.add({"type": "Timer", "timer": name})

    def cluster(self, facts):
        self.add({"type": "Cluster", "facts": facts})

    def write(self, name, args="--domains\nolm\n"):
        with open(os.path.join(HERE, name + ".jsonl"), "w") as f:
            f.write("\n".join(self.lines) + "\n")
        with open(os.path.join(HERE, name + ".args"), "w") as f:
            f.write(args)
        self.lines.clear()
        self.t = 0
