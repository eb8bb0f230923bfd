#!/usr/bin/env bash
# Shadow mode side by side (issue 21): on one `recon sim serve`, an acting
# agent plays the real operator of the disconnected domain while a shadow
# agent watches the same cluster and sends nothing. Every prediction the
# shadow agent decides must be a match, its store must hold no write result
# (nothing was sent), and `recon shadow report` on its store must equal the
# counters its /metrics served.
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
"$RECON" sim serve --port 0 --scenario "$SRC/examples/scenarios/disconnected-dfa.json" --speed 120 \
  --kubeconfig-out "$WORK/kc" >"$WORK/serve.out" 2>&1 &
SERVER=$!
for _ in $(seq 1 100); do [ -s "$WORK/kc" ] && break; sleep 0.1; done
[ -s "$WORK/kc" ] || fail "recon sim serve did not start: $(cat "$WORK/serve.out")"
URL=$(grep -o 'http://127.0.0.1:[0-9]*' "$WORK/serve.out" | head -1)
OPERATOR=openshift-operators/simple-disconnected-operator-controller-manager
# The shadow agent first, so it sees every instance before the operator acts.
"$RECON" agent --cluster "$WORK/kc" --domains disconnected --store "$WORK/shadow" --probe-via "$URL" \
  --set disconnected.operatorDeployment=$OPERATOR --shadow --port 0 --shadow-manager disconnected= \
  >"$WORK/shadow.out" 2>"$WORK/shadow.err" &
SHADOW=$!
for _ in $(seq 1 100); do grep -q "serving /healthz" "$WORK/shadow.err" 2>/dev/null && break; sleep 0.1; done
sleep 1
"$RECON" agent --cluster "$WORK/kc" --domains disconnected --store "$WORK/acting" --probe-via "$URL" \
  --set disconnected.operatorDeployment=$OPERATOR --no-leader-election \
  >"$WORK/acting.out" 2>"$WORK/acting.err" &
ACTING=$!
# The scenario's edits run to 6 minutes of cluster time: 3 s at speed 120.
sleep 5
kill -0 "$SHADOW" 2>/dev/null || fail "the shadow agent exited"
PORT=$(grep -o 'serving /healthz /readyz /metrics on [0-9.]*:[0-9]*' "$WORK/shadow.err" | grep -o '[0-9]*$')
[ -n "$PORT" ] || fail "no metrics port in the shadow agent's log"
kill -TERM "$ACTING"; wait "$ACTING"; ACTING=
sleep 1
curl -s "http://127.0.0.1:$PORT/metrics" >"$WORK/metrics.txt" || fail "no /metrics"
kill -TERM "$SHADOW"; wait "$SHADOW" || fail "the shadow agent exited $? on SIGTERM"; SHADOW=
"$RECON" shadow report --store "$WORK/shadow" --domains disconnected --shadow-manager disconnected= -o json \
  >"$WORK/report.json" 2>"$WORK/report.err" || fail "shadow report: $(cat "$WORK/report.err") $(head -c 2000 "$WORK/report.json")"
python3 - "$WORK/report.json" "$WORK/metrics.txt" "$WORK/shadow" "$RECON" <<'PY' || fail "see above"
import json, re, subprocess, sys
report = json.load(open(sys.argv[1]))
counts = report["counts"].get("disconnected", {})
live = {}
for line in open(sys.argv[2]):
    m = re.match(r'recon_shadow_predictions_total\{domain="disconnected",result="(\w+)"\} (\d+)', line)
    if m: live[m.group(1)] = int(m.group(2))
print("report:", counts, "live:", live)
if counts.get("match", 0) < 4: sys.exit("too few matches: %s" % counts)
bad = [f for f in report["findings"] if f["result"] not in ("match", "pending")]
if bad: sys.exit("not a match: %s" % json.dumps(bad)[:1500])
for r in ("match", "differs", "missed"):
    if counts.get(r, 0) != live.get(r, 0): sys.exit("report %s %d != live %d" % (r, counts.get(r, 0), live.get(r, 0)))
events = subprocess.run([sys.argv[4], "log", "export", "--store", sys.argv[3]], capture_output=True, text=True).stdout
if '"type":"ActionResult"' in events: sys.exit("the shadow store holds a write result: something was sent")
PY
echo "PASS: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["counts"])' "$WORK/report.json")"
