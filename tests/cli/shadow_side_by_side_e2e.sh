#!/usr/bin/env bash
# Shadow mode side by side (issue 21): on one `recon sim serve`, an acting
# agent plays the real operator of the disconnected domain (it writes as that
# operator's field manager, `manager`) while a shadow agent watches the same
# cluster and sends nothing. Phase 1: every prediction the shadow agent
# decides is a match. Phase 2: the acting agent is gone; a user scales the
# instance, and writes sent by hand as `manager` play an operator that goes
# wrong: busybox-demo gets 4 replicas instead of 5 (differs: spec.replicas),
# sleeper-demo is never scaled (missed), a Deployment nobody predicted is
# created (unpredicted). Its store holds no write result (nothing was sent),
# `recon shadow report` on it equals the counters its /metrics served, and
# `recon explain --shadow` names each finding.
# usage: shadow_side_by_side_e2e.sh RECON SOURCE_DIR WORKDIR
set -u
RECON=$1 SRC=$2 WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK"
SERVER= ACTING= SHADOW=
cleanup() {
  for p in $SHADOW $ACTING $SERVER; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
  SERVER= ACTING= SHADOW=
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  for f in acting.err shadow.err; do echo "--- $f (tail)"; tail -20 "$WORK/$f" 2>/dev/null; done
  exit 1
}
"$RECON" sim serve --port 0 --scenario "$SRC/examples/scenarios/disconnected-dfa.json" --speed 40 \
  --kubeconfig-out "$WORK/kc" >"$WORK/serve.out" 2>&1 &
SERVER=$!
for _ in $(seq 1 100); do [ -s "$WORK/kc" ] && break; sleep 0.1; done
[ -s "$WORK/kc" ] || fail "recon sim serve did not start: $(cat "$WORK/serve.out")"
URL=$(grep -o 'http://127.0.0.1:[0-9]*' "$WORK/serve.out" | head -1)
# Without disconnected.operatorDeployment both agents use the fallback images
# throughout: with it, a live agent reduces its first list before the Cluster
# event that carries its options, creates with the fallbacks and then (the
# acting one) leaves some Deployments on them until the next environment
# change, which the shadow agent rightly reports as missed (a known agent bug).
# The shadow agent first, so it sees every instance before the operator acts.
"$RECON" agent --cluster "$WORK/kc" --domains disconnected --store "$WORK/shadow" --probe-via "$URL" \
  --shadow --port 0 --shadow-window 4s \
  >"$WORK/shadow.out" 2>"$WORK/shadow.err" &
SHADOW=$!
for _ in $(seq 1 100); do grep -q "serving /healthz" "$WORK/shadow.err" 2>/dev/null && break; sleep 0.1; done
# At once: the operator must act on the world the shadow agent listed, before
# the scenario's first edit (2 minutes of cluster time: 3 s at speed 40).
"$RECON" agent --cluster "$WORK/kc" --domains disconnected --store "$WORK/acting" --probe-via "$URL" \
  --no-leader-election --field-manager manager \
  >"$WORK/acting.out" 2>"$WORK/acting.err" &
ACTING=$!
# The edits the agents act on (drift, delete, scale) run to 4 minutes of
# cluster time: 6 s at speed 40 (the rest: the instance "other" goes at 6m).
sleep 6
kill -0 "$SHADOW" 2>/dev/null || fail "the shadow agent exited"
PORT=$(grep -o 'serving /healthz /readyz /metrics on [0-9.]*:[0-9]*' "$WORK/shadow.err" | grep -o '[0-9]*$')
[ -n "$PORT" ] || fail "no metrics port in the shadow agent's log"
kill -TERM "$ACTING"; wait "$ACTING"; ACTING=
sleep 0.5
curl -s "http://127.0.0.1:$PORT/metrics" >"$WORK/metrics1.txt" || fail "no /metrics"
grep -q 'recon_shadow_predictions_total{domain="disconnected",result="match"}' "$WORK/metrics1.txt" ||
  fail "phase 1: no match counted: $(grep recon_shadow "$WORK/metrics1.txt")"
if grep -E '^recon_shadow_(predictions_total\{domain="disconnected",result="(differs|missed)"\}|unpredicted_total\{domain="disconnected"\}) [1-9]' \
  "$WORK/metrics1.txt"; then fail "phase 1: not every prediction matched"; fi

# Phase 2: the operator goes wrong (requests sent as its field manager).
req() {  # METHOD PATH MANAGER [BODY [CONTENT-TYPE]]
  curl -sf -X "$1" -H "Content-Type: ${5:-application/merge-patch+json}" "$URL$2?fieldManager=$3" \
    ${4:+-d "$4"} >>"$WORK/requests.out" || fail "$1 $2 as $3 failed"
}
DFA=/apis/tools.opdev.io/v1alpha1/namespaces/apps/disconnectedfriendlyapps/demo
DEP=/apis/apps/v1/namespaces/apps/deployments
req PATCH $DFA kubectl-edit '{"spec":{"sleeperReplicas":2,"busyBoxReplicas":5}}'
GEN=$(grep -o '"generation":[0-9]*' "$WORK/requests.out" | tail -1 | cut -d: -f2)
sleep 0.5
req PATCH $DFA/status manager "{\"status\":{\"observedGeneration\":$GEN}}"
req PATCH $DEP/busybox-demo manager '{"spec":{"replicas":4}}'
req POST $DEP manager '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"stray-demo","namespace":"apps"},
  "spec":{"selector":{"matchLabels":{"app":"stray"}},"template":{"metadata":{"labels":{"app":"stray"}},
  "spec":{"containers":[{"name":"c","image":"quay.io/x/stray:1"}]}}}}' application/json
# Past the window, a user's edit (not the operator's) closes what is open.
sleep 4.5
req PATCH $DEP/stray-demo kubectl-label '{"metadata":{"labels":{"touched":"yes"}}}'
sleep 0.5
curl -s "http://127.0.0.1:$PORT/metrics" >"$WORK/metrics.txt" || fail "no /metrics"
kill -TERM "$SHADOW"; wait "$SHADOW" || fail "the shadow agent exited $? on SIGTERM"; SHADOW=
"$RECON" shadow report --store "$WORK/shadow" --domains disconnected --shadow-window 4s -o json \
  >"$WORK/report.json" 2>"$WORK/report.err"
RC=$?  # 1: findings other than match (the injected ones)
[ $RC = 1 ] || fail "shadow report exited $RC: $(cat "$WORK/report.err") $(head -c 2000 "$WORK/report.json")"
"$RECON" explain --store "$WORK/shadow" --domains disconnected --shadow --shadow-window 4s \
  >"$WORK/explain.txt" 2>&1 || fail "explain --shadow: $(tail -5 "$WORK/explain.txt")"
python3 - "$WORK/report.json" "$WORK/metrics.txt" "$WORK/shadow" "$RECON" "$WORK/explain.txt" <<'PY' || fail "see above"
import json, re, subprocess, sys
report = json.load(open(sys.argv[1]))
counts = report["counts"].get("disconnected", {})
live = {}
for line in open(sys.argv[2]):
    m = re.match(r'recon_shadow_predictions_total\{domain="disconnected",result="(\w+)"\} (\d+)', line)
    if m: live[m.group(1)] = int(m.group(2))
    m = re.match(r'recon_shadow_unpredicted_total\{domain="disconnected"\} (\d+)', line)
    if m: live["unpredicted"] = int(m.group(1))
print("report:", counts, "live:", live)
if counts.get("match", 0) < 4: sys.exit("too few matches: %s" % counts)
for r in ("match", "differs", "missed", "unpredicted"):
    if counts.get(r, 0) != live.get(r, 0): sys.exit("report %s %d != live %d" % (r, counts.get(r, 0), live.get(r, 0)))
def name(f): return "%s %s/%s" % (f["object"]["kind"], f["object"]["namespace"], f["object"]["name"])
found = {}
for f in report["findings"]:
    if f["result"] in ("match", "pending"): continue
    key = (f["result"], name(f))
    found.setdefault(key, []).append(f)
print("findings:", {"%s %s" % k: len(v) for k, v in found.items()})
differs = found.pop(("differs", "Deployment apps/busybox-demo"), [])
if len(differs) != 1: sys.exit("want one differs on busybox-demo: %s" % json.dumps(differs))
diffs = differs[0]["diffs"]
if diffs != [{"path": "spec.replicas", "predicted": "5", "observed": "4"}]: sys.exit("differs: %s" % diffs)
if not found.pop(("missed", "Deployment apps/sleeper-demo"), None): sys.exit("no missed on sleeper-demo")
unpredicted = found.pop(("unpredicted", "Deployment apps/stray-demo"), [])
if len(unpredicted) != 1 or unpredicted[0]["manager"] != "manager" or unpredicted[0]["verb"] != "Added":
    sys.exit("want one unpredicted Added of stray-demo by manager: %s" % unpredicted)
# The shadow agent, seeing busybox-demo at 4, predicts the repair again: no one makes it.
for f in found.pop(("missed", "Deployment apps/busybox-demo"), []):
    if f["verb"] != "update": sys.exit("missed: %s" % f)
if found: sys.exit("unexpected findings: %s" % json.dumps(found)[:1500])
events = subprocess.run([sys.argv[4], "log", "export", "--store", sys.argv[3]], capture_output=True, text=True).stdout
if '"type":"ActionResult"' in events: sys.exit("the shadow store holds a write result: something was sent")
explain = open(sys.argv[5]).read()
for want in [r"Deployment apps/busybox-demo: shadow: predicted update \(action [0-9.]+\) — differs within 4s: spec.replicas predicted 5, observed 4",
             r"Deployment apps/sleeper-demo: shadow: predicted update \(action [0-9.]+\) — missed: nothing within 4s",
             r"Deployment apps/stray-demo: shadow: Added by manager — unpredicted",
             r"shadow: predicted create \(action [0-9.]+\) — match at seq [0-9]+"]:
    if not re.search(want, explain): sys.exit("explain --shadow lacks /%s/" % want)
PY
echo "PASS: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["counts"])' "$WORK/report.json")"
