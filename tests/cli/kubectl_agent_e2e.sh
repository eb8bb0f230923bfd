#!/usr/bin/env bash
# The samples domain end to end over real HTTP: `recon agent --cluster
# KUBECONFIG` on one side, kubectl on the other. The agent bootstraps the
# Config and creates the imagestreams; kubectl sets the Config to Removed
# (the agent removes them) and back to Managed (the agent creates them
# again). Exit 77 (skipped) without kubectl >= 1.27.
# usage: kubectl_agent_e2e.sh RECON SOURCE_DIR WORKDIR
set -u
RECON=$1 SRC=$2 WORK=$3
. "$(dirname "$0")/../lib/kubectl.sh"
rm -rf "$WORK" && mkdir -p "$WORK"
KC=$WORK/kubeconfig
# The scenario without its scripted admin edit: kubectl is the admin here.
python3 - "$SRC/examples/scenarios/samples-removed.json" "$WORK/scenario.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["edits"] = []
s.pop("samples_inventory", None)
json.dump(s, open(sys.argv[2], "w"))
PY
"$RECON" sim serve --port 0 --scenario "$WORK/scenario.json" --speed 20 --kubeconfig-out "$KC" >"$WORK/serve.out" 2>&1 &
SERVER=$!
AGENT=
cleanup() {
  [ -n "$AGENT" ] && kill "$AGENT" 2>/dev/null && wait "$AGENT" 2>/dev/null
  kill "$SERVER" 2>/dev/null
  wait "$SERVER" 2>/dev/null
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  # Enough to tell a slow machine from a missed event next time.
  echo "--- the Config as the server has it"
  [ -n "${K:-}" ] && $K get configs.samples.operator.openshift.io cluster -o json 2>&1 | head -80
  echo "--- imagestreams: $([ -n "${K:-}" ] && $K get imagestreams -n openshift -o name 2>&1 | tr '\n' ' ')"
  echo "--- agent log (tail)"
  tail -60 "$WORK/agent.err" 2>/dev/null
  echo "--- events the agent logged (tail)"
  if [ -n "$AGENT" ]; then kill "$AGENT" 2>/dev/null; wait "$AGENT" 2>/dev/null; AGENT=; fi  # the store's lock
  [ -d "$WORK/store" ] && "$RECON" log export --store "$WORK/store" 2>/dev/null | tail -15 | cut -c1-400
  exit 1
}
for _ in $(seq 1 100); do [ -s "$KC" ] && break; sleep 0.1; done
[ -s "$KC" ] || fail "recon sim serve did not start: $(cat "$WORK/serve.out")"
URL=$(grep -o 'http://127.0.0.1:[0-9]*' "$WORK/serve.out" | head -1)
K="kubectl --kubeconfig $KC"

"$RECON" agent --cluster "$KC" --domains samples --store "$WORK/store" \
  --set "samples.inventory=$SRC/examples/scenarios/samples-small" --set samples.removalImportWait=0s \
  --fact architecture=x86_64 --probe-via "$URL" >"$WORK/agent.out" 2>"$WORK/agent.err" &
AGENT=$!

# wait_for DESCRIPTION COMMAND...: up to 30 s.
wait_for() {
  local what=$1
  shift
  for _ in $(seq 1 300); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    kill -0 "$AGENT" 2>/dev/null || fail "the agent exited while waiting for $what"
    sleep 0.1
  done
  fail "timed out waiting for $what"
}
streams() { [ "$($K get imagestreams -n openshift -o name 2>/dev/null | wc -l)" = "$1" ]; }
state() { [ "$($K get configs.samples.operator.openshift.io cluster -o jsonpath='{.status.managementState}' 2>/dev/null)" = "$1" ]; }

wait_for "the agent to create both imagestreams" streams 2
wait_for "the Config to report Managed" state Managed
$K patch configs.samples.operator.openshift.io cluster --type merge -p '{"spec":{"managementState":"Removed"}}' >/dev/null ||
  fail "kubectl patch to Removed"
wait_for "the agent to remove the imagestreams" streams 0
wait_for "the Config to report Removed" state Removed
$K patch configs.samples.operator.openshift.io cluster --type merge -p '{"spec":{"managementState":"Managed"}}' >/dev/null ||
  fail "kubectl patch back to Managed"
wait_for "the agent to create the imagestreams again" streams 2
wait_for "the Config to report Managed again" state Managed

kill -TERM "$AGENT"
wait "$AGENT"
CODE=$?
AGENT=
[ "$CODE" = 0 ] || fail "the agent exited $CODE on SIGTERM"
# The log replays to the same actions the agent took.
"$RECON" replay --check --store "$WORK/store" --domains samples >"$WORK/check.out" 2>&1 ||
  fail "replay --check: $(cat "$WORK/check.out")"
echo "PASS: Managed -> Removed -> Managed through kubectl; $(tail -1 "$WORK/check.out")"
