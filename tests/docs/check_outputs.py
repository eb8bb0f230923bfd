#!/usr/bin/env python3
"""Runs the commands a Markdown file shows and compares their output.

A fenced block whose first line starts with "$ " is a shell session: each
"$ command" (a line ending in "\\" continues it) is followed by the output
it printed, up to the next "$ " line. "..." stands for any number of lines.
The commands run as a user would run them from a checkout, in a scratch
workspace that links the repository's folders and has the binary under test
at ./build/recon, so nothing is written into the repository: "/tmp/" in a
command names the workspace's own tmp/. Times, rates, sizes of memory and
ports are masked on both sides (values measured on a machine); every other
number must be as shown. etcd's default ports in a command (127.0.0.1:2379
and :2380) are replaced with free ones.

Commands that cannot run here say why in SKIP (and are listed in the
output): a docs block that is neither checked nor listed fails.

  check_outputs.py --recon BIN --source DIR FILE.md [FILE.md ...]
"""
import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile

# Command prefixes (after "$ ") that are not run, and why.
SKIP = {
    "./build/recon sim serve --port 0 --scenario tests/adapters/sim/testdata/serve-samples.json":
        "serves kubectl below, whose AGE column is the wall clock's",
    "./build/recon sim serve --port 0 --scenario examples/scenarios/samples-removed.json --speed 20 --kubeconfig-out /tmp/demo/kc &":
        "serves the Ctrl-C agent run below",
    "./build/recon sim serve --port 18080 --arm": "serves the 40 s agent run below",
    "./build/recon agent --cluster /tmp/demo/kc --domains samples --store /tmp/demo/store --set samples.inventory=examples/scenarios/samples-small --fact architecture=x86_64 --probe-via":
        "runs until Ctrl-C",
    "kubectl ": "needs kubectl and the sim serve above",
    "./build/recon soak ": "a real-time run of minutes; its counts depend on the machine's speed",
    "./build/recon shadow report --store /tmp/shadow": "the store is written by cli.shadow_side_by_side_e2e",
    "./build/recon explain --store /tmp/shadow": "the store is written by cli.shadow_side_by_side_e2e",
    "timeout -s INT 40 ./build/recon agent": "40 s against the sim serve --arm above",
    "./build/recon explain --store /tmp/aro-arm-store": "the store of the agent run above",
}

LINKED = ["crd", "datasets", "deploy", "examples", "scripts", "tests"]

MASKS = [
    (re.compile(r"\b\d+(\.\d+)? ?(ns|µs|us|ms|s)\b(?! of (cluster|virtual) time)"), "<time>"),
    (re.compile(r"\b\d+(\.\d+)? ?(events|actions|resolutions)/s\b"), "<rate>"),
    (re.compile(r"\b\d+(\.\d+)? ?(KB|MB|GB)\b"), "<size>"),
    (re.compile(r"127\.0\.0\.1:\d+"), "127.0.0.1:<port>"),
    (re.compile(r"\b\d+ on disk\b"), "<n> on disk"),  # RocksDB's files: when it flushes is its own
    # etcd's database file grows by its own allocation policy.
    (re.compile(r"\b\d+ in etcd's database\b"), "<n> in etcd's database"),
    (re.compile(r"\b\d+\.\d % used\b"), "<n> % used"),
    (re.compile(r"\bport \d+"), "port <port>"),
    (re.compile(r"^commit [0-9a-f]{40} \([0-9a-f]{12}(-dirty)?\)$"), "commit <commit>"),
]


# spdlog's lines on stderr ("[2026-12-03 07:02:38.257] [recon] [info] ..."):
# a terminal shows them wherever they fall; the docs leave them out.
LOG_LINE = re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\] \[recon\] \[\w+\] ")


def mask(line):
    for pattern, repl in MASKS:
        line = pattern.sub(repl, line)
    return line.rstrip()


def blocks(path):
    """Yields every "$ " block as a list of (line number, command, expected lines)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        if not lines[i].startswith("```"):
            i += 1
            continue
        j = i + 1
        block = []
        while j < len(lines) and not lines[j].startswith("```"):
            block.append((j + 1, lines[j]))
            j += 1
        i = j + 1
        if not block or not block[0][1].startswith("$ "):
            continue
        out = []
        k = 0
        while k < len(block):
            lineno, text = block[k]
            cmd = text[2:]
            while cmd.endswith("\\") and k + 1 < len(block):
                k += 1
                cmd = cmd[:-1] + " " + block[k][1].strip()
            k += 1
            expected = []
            while k < len(block) and not block[k][1].startswith("$ "):
                expected.append(block[k][1])
                k += 1
            out.append((lineno, cmd, expected))
        yield out


def matches(expected, actual):
    """Whether actual (masked lines) shows expected in order; "..." is any
    run of lines. Returns None or a description of the first mismatch."""
    pos = 0
    gap = False
    for e in expected:
        if e.strip() == "...":
            gap = True
            continue
        want = mask(e)
        if gap:
            while pos < len(actual) and actual[pos] != want:
                pos += 1
        if pos >= len(actual) or actual[pos] != want:
            got = actual[pos] if pos < len(actual) else "(end of output)"
            return f"expected {want!r}\n      got {got!r}"
        pos += 1
        gap = False
    if not gap and pos < len(actual):
        return f"expected the end of the output\n      got {actual[pos]!r}"
    return None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# The ports the docs show for a local etcd (its defaults) become free ones,
# so an example's etcd never meets another on the machine.
PORTS = {"127.0.0.1:2379": None, "127.0.0.1:2380": None}


def with_ports(cmd):
    for shown in PORTS:
        if shown in cmd:
            if PORTS[shown] is None:
                PORTS[shown] = f"127.0.0.1:{free_port()}"
            cmd = cmd.replace(shown, PORTS[shown])
    return cmd


def workspace(source, recon):
    ws = tempfile.mkdtemp(prefix="recon-docs-")
    for name in LINKED:
        os.symlink(os.path.join(os.path.abspath(source), name), os.path.join(ws, name))
    os.makedirs(os.path.join(ws, "build"))
    os.symlink(os.path.abspath(recon), os.path.join(ws, "build", "recon"))
    os.makedirs(os.path.join(ws, "tmp"))
    return ws


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--recon", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    ws = workspace(a.source, a.recon)
    env = dict(os.environ, RECON_NO_BUILD="1", LC_ALL="C")
    failures = checked = skipped = 0
    tmp = os.path.join(ws, "tmp")
    for rel in a.files:
        path = os.path.join(a.source, rel)
        # Each file's examples start from an empty /tmp.
        shutil.rmtree(tmp)
        os.makedirs(tmp)
        for block in blocks(path):
            # One shell per block, as a user types it: $? and files carry
            # over from one command to the next. A marker line before each
            # command splits the output.
            script = ["exec 2>&1", "set -o pipefail"]
            run = []
            for n, (lineno, cmd, expected) in enumerate(block):
                spaced = " ".join(cmd.split())  # continuation lines joined with their indents
                reason = next((r for p, r in SKIP.items() if spaced.startswith(p)), None)
                if reason is not None:
                    print(f"skipped  {rel}:{lineno}: $ {cmd[:80]} ({reason})")
                    skipped += 1
                    continue
                # The marker keeps the last command's exit status for `echo $?`.
                script.append(f"__rc=$?; echo '@@docs-check {n}@@'; (exit $__rc)")
                script.append(with_ports(cmd).replace("/tmp/", tmp + "/"))
                run.append(n)
            if not run:
                continue
            # What a block started in the background (a sim serve) ends with it.
            script.append("__rc=$?; kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; (exit $__rc)")
            # Its own process group: a block that hangs is killed whole,
            # servers it started included.
            proc = subprocess.Popen(["bash", "-c", "\n".join(script)], cwd=ws, env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True, start_new_session=True)
            try:
                stdout, _ = proc.communicate(timeout=300)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                stdout, _ = proc.communicate()
                stdout += "\n(the block did not end within 300 s)"
            outputs = {}
            current = None
            for l in stdout.replace(tmp + "/", "/tmp/").split("\n"):
                if LOG_LINE.match(l):
                    continue
                m = re.fullmatch(r"@@docs-check (\d+)@@", l)
                if m:
                    current = int(m.group(1))
                    outputs[current] = []
                elif current is not None:
                    outputs[current].append(l)
            for n in run:
                lineno, cmd, expected = block[n]
                out = outputs.get(n, [])
                actual = [mask(l) for l in out]
                while actual and actual[-1] == "":
                    actual.pop()
                problem = matches(expected, actual)
                checked += 1
                where = f"{rel}:{lineno}"
                if problem is None:
                    print(f"ok       {where}: $ {cmd[:80]}")
                    continue
                failures += 1
                print(f"FAILED   {where}: $ {cmd}\n  {problem}\n  the whole output:")
                for l in out[:60]:
                    print(f"    {l}")
    shutil.rmtree(ws, ignore_errors=True)
    print(f"{checked} checked, {failures} failed, {skipped} skipped (each with its reason above)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
