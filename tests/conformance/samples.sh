#!/usr/bin/env bash
# Conformance workload: recon's samples domain in shadow mode beside the real
# cluster-samples-operator, on a real kube-apiserver (cluster.sh), with the real
# inventory. Plays a seeded workload, then prints `recon shadow report` from the
# watch (and, when this recon has it, from the API server's audit log).
#
# usage: samples.sh [OUT_DIR]      (default ~/recon-conformance/runs/samples-<time>-seed<N>)
#
# Environment (docs/conformance.md):
#   RECON_KUBE_APISERVER, RECON_ETCD, RECON_KUBECTL   the cluster (cluster.sh)
#   RECON_SAMPLES_OPERATOR   the cluster-samples-operator binary (required)
#   RECON_BIN                recon (default build/recon)
#   CONF_SEED                the workload's seed (default 1): which samples are skipped
#   CONF_SHADOW_WINDOW       --shadow-window (default 2m, recon's default)
#   CONF_SAMPLES_INVENTORY   the inventory (default datasets/samples/ocp-x86_64)
#   CONF_TIMEOUT             bound of every wait on the cluster, seconds (default 300)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=cluster.sh
. "$(dirname "${BASH_SOURCE[0]}")/cluster.sh"

cluster_require
conf_need RECON_SAMPLES_OPERATOR "build it with ../shared/peers/samples-operator.sh (cluster-samples-operator release-4.13)"
RECON_BIN=${RECON_BIN:-$REPO_ROOT/build/recon}
conf_need RECON_BIN "build recon (./scripts/run, or cmake --build build)"
SEED=${CONF_SEED:-1}
WINDOW=${CONF_SHADOW_WINDOW:-2m}
TIMEOUT=${CONF_TIMEOUT:-300}
INVENTORY=$(cd "${CONF_SAMPLES_INVENTORY:-$REPO_ROOT/datasets/samples/ocp-x86_64}" && pwd)
OUT=${1:-$HOME/recon-conformance/runs/samples-$(date -u +%Y%m%dT%H%M%SZ)-seed$SEED}
VERSION=4.13.0
CONTENT_ROOT=/opt/openshift/operator/x86_64
CONFIG=configs.samples.operator.openshift.io/cluster
CO=clusteroperators.config.openshift.io/openshift-samples
MANAGED_LABEL=samples.operator.openshift.io/managed
SA_USER=system:serviceaccount:openshift-cluster-samples-operator:cluster-samples-operator

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
: > "$OUT/steps.tsv"
exec > >(tee "$OUT/run.log") 2>&1
conf_log "samples conformance run: seed $SEED, window $WINDOW, output $OUT"
conf_log "recon: $("$RECON_BIN" --version | tr '\n' ' ')"

# --- the content root the operator reads (fixed in its source: pkg/stub/handler.go) ---
# A symlink to the inventory; an existing symlink is put back at exit, a real
# directory there is left alone (the run is skipped).
link_content_root() {
  if [ -e "$CONTENT_ROOT" ] && [ ! -L "$CONTENT_ROOT" ]; then
    conf_skip "$CONTENT_ROOT exists and is not a symlink: the operator would read it, not $INVENTORY"
  fi
  mkdir -p "$(dirname "$CONTENT_ROOT")" 2> /dev/null ||
    conf_skip "cannot create $(dirname "$CONTENT_ROOT") (the operator's fixed content root): run as root"
  if [ -L "$CONTENT_ROOT" ]; then
    local old
    old=$(readlink "$CONTENT_ROOT")
    conf_at_exit "ln -sfn '$old' '$CONTENT_ROOT'"
  else
    conf_at_exit "rm -f '$CONTENT_ROOT'"
  fi
  ln -sfn "$INVENTORY" "$CONTENT_ROOT"
}

# --- inventory names, and the seeded choices ---
inventory_names() { # KIND_DIR (imagestreams|templates)
  python3 - "$INVENTORY" "$1" <<'PY'
import glob, json, os, sys
names = set()
for f in glob.glob(os.path.join(sys.argv[1], "*", sys.argv[2], "*.json")):
    with open(f) as fh:
        names.add(json.load(fh)["metadata"]["name"])
print("\n".join(sorted(names)))
PY
}
seeded_pick() { # N SALT < names: N names, the same for the same seed
  python3 -c '
import random, sys
names = sys.stdin.read().split()
rng = random.Random("%s/%s" % (sys.argv[2], sys.argv[3]))
print(" ".join(sorted(rng.sample(names, int(sys.argv[1])))))' "$1" "$SEED" "$2"
}

# --- predicates on the cluster (each prints why it is not there yet) ---
# kq EXPR GET-ARGS...: `kubectl get GET-ARGS -o json` as `o`; true when EXPR is.
kq() {
  local expr=$1
  shift
  kc get "$@" -o json | python3 -c '
import json, sys
o = json.load(sys.stdin)
def cond(obj, t):
    for c in obj.get("status", {}).get("conditions", []) or []:
        if c.get("type") == t:
            return c.get("status", "") + "/" + c.get("reason", "")
    return "absent"
def items(): return o.get("items", [])
def label(obj, k): return (obj.get("metadata", {}).get("labels") or {}).get(k)
v = eval(sys.argv[1])
if v is True: sys.exit(0)
print(repr(v) if v is not False else "false: " + sys.argv[1][:200]); sys.exit(1)' "$expr"
}

config_state() { # MANAGEMENT-STATE: the operator reports it and is done reconciling
  kq "(o.get('status',{}).get('managementState'), cond(o,'ImageChangesInProgress').split('/')[0]) == ('$1','False') or (o.get('status',{}).get('managementState'), cond(o,'ImageChangesInProgress'))" "$CONFIG"
}
samples_count() { # RESOURCE N: N objects labeled managed=true in openshift
  kq "len([i for i in items() if label(i,'$MANAGED_LABEL')=='true']) == $2 or len([i for i in items() if label(i,'$MANAGED_LABEL')=='true'])" "$1" -n openshift
}
co_settled() { # AVAILABLE PROGRESSING: the ClusterOperator's conditions
  kq "(cond(o,'Available').split('/')[0], cond(o,'Progressing').split('/')[0]) == ('$1','$2') or (cond(o,'Available'), cond(o,'Progressing'), cond(o,'Degraded'))" "$CO"
}
labels_are() { # RESOURCE VALUE NAMES...: each named sample carries managed=VALUE
  local res=$1 want=$2
  shift 2
  local list
  list=$(printf "'%s'," "$@")
  kq "[n for n in [$list] if not [i for i in items() if i['metadata']['name']==n and label(i,'$MANAGED_LABEL')=='$want']] or True" "$res" -n openshift
}
status_list_is() { # FIELD NAMES...: status.FIELD holds exactly NAMES (any order)
  local field=$1
  shift
  local list=""
  [ $# -gt 0 ] && list=$(printf "'%s'," "$@")
  kq "sorted(o.get('status',{}).get('$field') or []) == sorted([$list]) or o.get('status',{}).get('$field')" "$CONFIG"
}
registry_is() { # HOST: every managed imagestream's DockerImage tags pull from HOST
  kq "[i['metadata']['name'] for i in items() if label(i,'$MANAGED_LABEL')=='true' and any(t.get('from',{}).get('kind')=='DockerImage' and not t['from']['name'].startswith('$1/') for t in i.get('spec',{}).get('tags',[]))][:5] or True" imagestreams -n openshift
}
config_valid() { # STATUS: ConfigurationValid
  kq "cond(o,'ConfigurationValid').split('/')[0] == '$1' or cond(o,'ConfigurationValid')" "$CONFIG"
}
config_recreated() { # OLD-UID: a Config other than OLD-UID, Managed
  kq "(o['metadata']['uid'] != '$1' and o.get('status',{}).get('managementState') == 'Managed') or (o['metadata']['uid'], o.get('status',{}).get('managementState'))" "$CONFIG"
}

# step NAME: logged, and its start time kept in steps.tsv (summarize.py names
# the step each finding fell in).
step() {
  conf_log "=== step: $*"
  printf '%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)" "$*" >> "$OUT/steps.tsv"
}
wait_for() { conf_wait "$@" || conf_fail "the workload did not reach: $1"; }
# settled_managed: Managed, the full inventory (minus skips) present, CO Available.
settled_managed() {
  wait_for "Config Managed, no image changes in progress" "$TIMEOUT" config_state Managed
  wait_for "$((N_IS - ${2:-0})) managed imagestreams" "$TIMEOUT" samples_count imagestreams "$((N_IS - ${2:-0}))"
  wait_for "$((N_T - ${1:-0})) managed templates" "$TIMEOUT" samples_count templates "$((N_T - ${1:-0}))"
  wait_for "ClusterOperator Available, not Progressing" "$TIMEOUT" co_settled True False
}
patch_config() { kc patch "$CONFIG" --type=merge -p "$1" > /dev/null; }

# --- the cluster and the prerequisites ---
link_content_root
cluster_up "${TMPDIR:-/tmp}/recon-conformance-samples.$$"
KC_OPERATOR=$CONF_WORK/samples-operator.kubeconfig
KC_RECON=$CONF_WORK/recon.kubeconfig
cluster_kubeconfig samples "$KC_OPERATOR"
cluster_kubeconfig recon "$KC_RECON"
conf_at_exit "cp '$CONF_AUDIT_LOG' '$OUT/audit.log' 2>/dev/null"
conf_at_exit "cp '$CONF_WORK/kube-apiserver.log' '$OUT/kube-apiserver.log' 2>/dev/null"

mapfile -t IS_NAMES < <(inventory_names imagestreams)
mapfile -t T_NAMES < <(inventory_names templates)
N_IS=${#IS_NAMES[@]} N_T=${#T_NAMES[@]}
read -r -a SKIP_IS <<< "$(printf '%s\n' "${IS_NAMES[@]}" | seeded_pick 3 imagestreams)"
read -r -a SKIP_T <<< "$(printf '%s\n' "${T_NAMES[@]}" | seeded_pick 2 templates)"
conf_log "inventory $INVENTORY: $N_IS imagestreams, $N_T templates; seed $SEED skips imagestreams ${SKIP_IS[*]}, templates ${SKIP_T[*]}"

step "prerequisites: namespaces, pull secret, Image and Proxy cluster"
for ns in openshift openshift-cluster-samples-operator openshift-config; do kc create namespace "$ns" > /dev/null; done
kc -n openshift-config create secret generic pull-secret --type=kubernetes.io/dockerconfigjson \
  --from-literal=.dockerconfigjson='{"auths":{"registry.redhat.io":{"auth":"Y29uZm9ybWFuY2U6Y29uZm9ybWFuY2U="}}}' > /dev/null
kc create -f - > /dev/null <<'EOF'
apiVersion: config.openshift.io/v1
kind: Image
metadata: {name: cluster}
spec: {}
---
apiVersion: config.openshift.io/v1
kind: Proxy
metadata: {name: cluster}
spec: {}
EOF
# The registry probe: without Internet the operator tries registry.redhat.io:443
# for 5 minutes, then bootstraps Removed. A cluster-wide proxy in the Proxy's
# status makes it (and recon: domains/samples/README.md, "Bootstrap") assume the
# registry is reachable and bootstrap Managed at once. Nothing listens on the
# address; no component here sends traffic through it.
kc patch proxy.config.openshift.io cluster --subresource=status --type=merge \
  -p '{"status":{"httpsProxy":"http://127.0.0.1:9","httpProxy":"http://127.0.0.1:9"}}' > /dev/null

# --- recon in shadow mode, then the real operator ---
step "recon agent --shadow"
# The live judgement on the audit log too, where this recon has it.
live_audit=()
if "$RECON_BIN" agent --help 2>&1 | grep -q -- '--audit-log'; then
  live_audit=(--audit-log "$CONF_AUDIT_LOG" --audit-user "samples=$SA_USER")
fi
"$RECON_BIN" agent --cluster "$KC_RECON" --shadow --domains samples --store "$OUT/store" --port 0 "${live_audit[@]}" \
  --shadow-window "$WINDOW" --set "samples.inventory=$INVENTORY" --set samples.removalImportWait=0s \
  --fact "version=$VERSION" --fact architecture=x86_64 > "$OUT/recon-agent.log" 2>&1 &
RECON_PID=$!
conf_at_exit "conf_stop $RECON_PID 30"
recon_port() {
  if ! kill -0 "$RECON_PID" 2> /dev/null; then
    echo "recon agent exited: $(tail -5 "$OUT/recon-agent.log")"
    return 125
  fi
  sed -n 's/.*serving \/healthz \/readyz \/metrics on [0-9.]*:\([0-9]*\).*/\1/p' "$OUT/recon-agent.log" | head -1 | grep .
}
wait_for "recon serving /readyz" 120 recon_port
RECON_PORT=$(recon_port)
wait_for "recon ready (initial lists in)" 120 curl -sf "http://127.0.0.1:$RECON_PORT/readyz"

step "cluster-samples-operator (bootstrap)"
env KUBECONFIG="$KC_OPERATOR" WATCH_NAMESPACE=openshift-cluster-samples-operator \
  OPERATOR_NAME=cluster-samples-operator RELEASE_VERSION="$VERSION" \
  "$RECON_SAMPLES_OPERATOR" > "$OUT/samples-operator.log" 2>&1 &
OPERATOR_PID=$!
conf_at_exit "conf_stop $OPERATOR_PID 15"
wait_for "the operator created Config cluster" "$TIMEOUT" kc get "$CONFIG"
settled_managed

step "Removed"
patch_config '{"spec":{"managementState":"Removed"}}'
wait_for "Config Removed" "$TIMEOUT" config_state Removed
wait_for "no managed imagestreams" "$TIMEOUT" samples_count imagestreams 0
wait_for "no managed templates" "$TIMEOUT" samples_count templates 0
wait_for "ClusterOperator settled (Removed)" "$TIMEOUT" co_settled True False

step "Managed again"
patch_config '{"spec":{"managementState":"Managed"}}'
settled_managed

step "skippedImagestreams: ${SKIP_IS[*]}"
patch_config "{\"spec\":{\"skippedImagestreams\":$(printf '%s\n' "${SKIP_IS[@]}" | jq -R . | jq -cs .)}}"
wait_for "status.skippedImagestreams recorded" "$TIMEOUT" status_list_is skippedImagestreams "${SKIP_IS[@]}"
wait_for "skipped imagestreams labeled managed=false" "$TIMEOUT" labels_are imagestreams false "${SKIP_IS[@]}"
settled_managed 0 "${#SKIP_IS[@]}"

step "skippedImagestreams: ${SKIP_IS[0]} only"
patch_config "{\"spec\":{\"skippedImagestreams\":[\"${SKIP_IS[0]}\"]}}"
wait_for "status.skippedImagestreams recorded" "$TIMEOUT" status_list_is skippedImagestreams "${SKIP_IS[0]}"
wait_for "unskipped imagestreams managed again" "$TIMEOUT" labels_are imagestreams true "${SKIP_IS[@]:1}"
settled_managed 0 1

step "skippedImagestreams: none"
patch_config '{"spec":{"skippedImagestreams":[]}}'
wait_for "status.skippedImagestreams empty" "$TIMEOUT" status_list_is skippedImagestreams
settled_managed

step "skippedTemplates: ${SKIP_T[*]}"
patch_config "{\"spec\":{\"skippedTemplates\":$(printf '%s\n' "${SKIP_T[@]}" | jq -R . | jq -cs .)}}"
wait_for "status.skippedTemplates recorded" "$TIMEOUT" status_list_is skippedTemplates "${SKIP_T[@]}"
wait_for "skipped templates labeled managed=false" "$TIMEOUT" labels_are templates false "${SKIP_T[@]}"
settled_managed "${#SKIP_T[@]}" 0

step "skippedTemplates: none"
patch_config '{"spec":{"skippedTemplates":[]}}'
wait_for "status.skippedTemplates empty" "$TIMEOUT" status_list_is skippedTemplates
wait_for "templates managed again" "$TIMEOUT" labels_are templates true "${SKIP_T[@]}"
settled_managed

MIRROR=mirror.conformance.example:5000
step "registry override: spec.samplesRegistry=$MIRROR"
patch_config "{\"spec\":{\"samplesRegistry\":\"$MIRROR\"}}"
wait_for "status.samplesRegistry=$MIRROR" "$TIMEOUT" kq "o.get('status',{}).get('samplesRegistry') == '$MIRROR' or o.get('status',{}).get('samplesRegistry')" "$CONFIG"
wait_for "imagestreams pull from $MIRROR" "$TIMEOUT" registry_is "$MIRROR"
settled_managed

step "registry override removed"
patch_config '{"spec":{"samplesRegistry":""}}'
wait_for "status.samplesRegistry cleared" "$TIMEOUT" kq "not o.get('status',{}).get('samplesRegistry') or o['status']['samplesRegistry']" "$CONFIG"
wait_for "imagestreams back on their own registries" "$TIMEOUT" kq "[i['metadata']['name'] for i in items() if any(t.get('from',{}).get('kind')=='DockerImage' and t['from']['name'].startswith('$MIRROR/') for t in i.get('spec',{}).get('tags',[]))][:5] or True" imagestreams -n openshift
settled_managed

step "architecture change: spec.architectures=[aarch64] (refused: cannot change architectures)"
patch_config '{"spec":{"architectures":["aarch64"]}}'
wait_for "ConfigurationValid False" "$TIMEOUT" config_valid False
step "architecture back: spec.architectures=[x86_64]"
patch_config '{"spec":{"architectures":["x86_64"]}}'
wait_for "ConfigurationValid True" "$TIMEOUT" config_valid True
settled_managed

step "Unmanaged, then Managed"
patch_config '{"spec":{"managementState":"Unmanaged"}}'
wait_for "Config Unmanaged" "$TIMEOUT" kq "o.get('status',{}).get('managementState') == 'Unmanaged' or o.get('status',{}).get('managementState')" "$CONFIG"
patch_config '{"spec":{"managementState":"Managed"}}'
settled_managed

step "Config deleted (the operator cleans up and bootstraps a new one)"
OLD_UID=$(jp "$CONFIG" '{.metadata.uid}')
kc delete "$CONFIG" --wait=false > /dev/null
wait_for "a new Config, Managed" "$TIMEOUT" config_recreated "$OLD_UID"
settled_managed

step "Removed at the end"
patch_config '{"spec":{"managementState":"Removed"}}'
wait_for "Config Removed" "$TIMEOUT" config_state Removed
wait_for "no managed imagestreams" "$TIMEOUT" samples_count imagestreams 0
wait_for "no managed templates" "$TIMEOUT" samples_count templates 0
wait_for "ClusterOperator settled (Removed)" "$TIMEOUT" co_settled True False

# --- close the last windows: a prediction is decided by an event later than its
# window (shadow/README.md); wait the window out, then write one object recon
# watches and nothing reconciles (a ConfigMap in openshift-config). ---
window_s=$(python3 -c '
import re, sys
n = 0
for v, u in re.findall(r"([0-9.]+)(h|ms|m|s)", sys.argv[1]):
    n += float(v) * {"h": 3600, "m": 60, "s": 1, "ms": 0.001}[u]
print(int(n) + 1)' "$WINDOW")
step "waiting out the shadow window (${window_s}s of event time), then one closing event"
deadline=$((SECONDS + window_s + 2))
window_over() { [ "$SECONDS" -ge "$deadline" ] || { echo "$((deadline - SECONDS))s left"; return 1; }; }
conf_wait "the shadow window is over" "$((window_s + 10))" window_over
recon_last_seq() { curl -sf "http://127.0.0.1:$RECON_PORT/metrics" | awk '$1 == "recon_last_seq" {print $2}'; }
seq_before=$(recon_last_seq)
kc -n openshift-config create configmap conformance-window-closer --from-literal=at="$(date -u +%FT%TZ)" > /dev/null
seq_moved() { local s; s=$(recon_last_seq); [ "${s%.*}" -gt "${seq_before%.*}" ] || { echo "last seq $s"; return 1; }; }
wait_for "recon logged the closing event (last seq past $seq_before)" 60 seq_moved

step "stopping recon (SIGTERM) and the operator"
curl -sf "http://127.0.0.1:$RECON_PORT/metrics" > "$OUT/recon-metrics.txt" || true
kill -0 "$RECON_PID" 2> /dev/null || conf_log "WARNING: the recon agent exited before the end of the workload"
conf_stop "$RECON_PID" 60
[ "$CONF_STOP_RC" = 0 ] || conf_log "WARNING: the recon agent exited with status $CONF_STOP_RC"
conf_stop "$OPERATOR_PID" 15
cp "$CONF_AUDIT_LOG" "$OUT/audit.log"

step "shadow report (watch)"
set +e
"$RECON_BIN" shadow report --store "$OUT/store" --domains samples --shadow-window "$WINDOW" | tee "$OUT/report.txt"
"$RECON_BIN" shadow report --store "$OUT/store" --domains samples --shadow-window "$WINDOW" -o json > "$OUT/report.json"
if "$RECON_BIN" shadow report --help 2>&1 | grep -q -- '--audit '; then
  step "shadow report (audit log $OUT/audit.log)"
  "$RECON_BIN" shadow report --store "$OUT/store" --domains samples --shadow-window "$WINDOW" \
    --audit "$OUT/audit.log" --audit-user "samples=$SA_USER" | tee "$OUT/report-audit.txt"
  "$RECON_BIN" shadow report --store "$OUT/store" --domains samples --shadow-window "$WINDOW" \
    --audit "$OUT/audit.log" --audit-user "samples=$SA_USER" -o json > "$OUT/report-audit.json"
else
  echo "note: this recon has no \`shadow report --audit\` yet (issue 36 item 1): no report from the audit log"
fi
step "summary"
reports=("$OUT/report.json")
[ -f "$OUT/report-audit.json" ] && reports+=("$OUT/report-audit.json")
"$CONF_DIR/summarize.py" "${reports[@]}" | tee "$OUT/summary.txt"
set -e
conf_log "done: $OUT (report.txt, report-audit.txt, audit.log, store/, *.log)"
