#!/usr/bin/env bash
# Conformance workload: recon's olm domain in shadow mode beside the real OLM
# v0.24.0 (`catalog` and `olm` operators) on a real kube-apiserver (cluster.sh),
# with a catalog served by the real `opm serve`, cut from
# datasets/olm/community-derived by olm_catalog.py (bundles inlined as
# olm.bundle.object: no unpack Job). No kubelet runs: deployments_available.py
# marks Deployments Available so CSVs reach Succeeded. Plays installs, an upgrade
# chain, a skipRange jump, Manual approvals, a dependency, an OperatorGroup change,
# a catalog update and an uninstall, then prints `recon shadow report` from the
# watch and from the API server's audit log. With CONF_ACTOR=olm or recon, one of
# the two acts alone (no shadow), and the run ends with its final state
# (final_state.py dump): `final_state.py compare` of the two tells whether recon
# alone leaves the cluster as OLM alone does (issue 50).
#
# usage: olm.sh [OUT_DIR]      (default ~/recon-conformance/runs/olm-<time>-seed<CONF_SEED>)
#
# Environment (docs/conformance.md):
#   RECON_KUBE_APISERVER, RECON_ETCD, RECON_KUBECTL   the cluster (cluster.sh)
#   RECON_OLM_CATALOG, RECON_OLM_OLM   OLM's `catalog` and `olm` binaries (required)
#   RECON_OPM                opm (required)
#   RECON_OLM_CRDS           OLM's deploy/chart/crds (for the Operator CRD; OLMConfig's is in crd/data; default:
#                            the tree ../shared/peers/olm/build.sh exports beside the binaries)
#   RECON_BIN                recon (default build/recon)
#   CONF_SEED                the order of the four installs (default 0: etcd, percona,
#                            kubedb, manual as written; N > 0: shuffled by Python's random.Random(N))
#   CONF_SHADOW_WINDOW       --shadow-window (default 2m, recon's default)
#   CONF_TIMEOUT             bound of every wait on the cluster, seconds (default 300)
#   CONF_ACTOR               shadow (default: OLM acts, recon shadows it), olm (OLM alone),
#                            recon (recon alone acts as both of OLM's operators; no OLM runs)
#   CONF_WORKLOAD            base (default) or global: the four installs, then an AllNamespaces
#                            group whose operator's upgrade an OperatorCondition holds, then releases;
#                            every CSV of its catalog asks for namespaced permissions
#   CONF_AGENT_ARGS          more arguments for `recon agent` (split on spaces), e.g.
#                            "--set olm.executePlans=false" (recon predicting plans but not
#                            their execution; it carries them out by default): the agent records
#                            every option in the log, so the reports replay with them too
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=cluster.sh
. "$(dirname "${BASH_SOURCE[0]}")/cluster.sh"

cluster_require
conf_need RECON_OLM_CATALOG "build OLM v0.24.0 with ../shared/peers/olm/build.sh operators"
conf_need RECON_OLM_OLM "build OLM v0.24.0 with ../shared/peers/olm/build.sh operators"
conf_need RECON_OPM "build opm v1.26.5 with ../shared/peers/olm/build.sh opm"
RECON_BIN=${RECON_BIN:-$REPO_ROOT/build/recon}
conf_need RECON_BIN "build recon (./scripts/run, or cmake --build build)"
RECON_OLM_CRDS=${RECON_OLM_CRDS:-$(dirname "$RECON_OLM_OLM")/build/operator-lifecycle-manager-operators/deploy/chart/crds}
for f in 0000_50_olm_00-operators.crd.yaml; do
  [ -f "$RECON_OLM_CRDS/$f" ] ||
    conf_skip "RECON_OLM_CRDS=$RECON_OLM_CRDS has no $f: point it at OLM v0.24.0's deploy/chart/crds (docs/conformance.md)"
done
# The olm and catalog binaries write as field managers "olm" and "catalog" (their
# executable names): recon's default --shadow-manager olm=olm,catalog.
if [ "$(basename "$RECON_OLM_OLM")" != olm ] || [ "$(basename "$RECON_OLM_CATALOG")" != catalog ]; then
  conf_skip "RECON_OLM_OLM and RECON_OLM_CATALOG must be named olm and catalog (their field managers)"
fi
WINDOW=${CONF_SHADOW_WINDOW:-2m}
TIMEOUT=${CONF_TIMEOUT:-300}
SEED=${CONF_SEED:-0}
ACTOR=${CONF_ACTOR:-shadow}
WORKLOAD=${CONF_WORKLOAD:-base}
case $ACTOR in shadow | olm | recon) ;; *) conf_fail "CONF_ACTOR must be shadow, olm or recon, not '$ACTOR'" ;; esac
case $WORKLOAD in base | global) ;; *) conf_fail "CONF_WORKLOAD must be base or global, not '$WORKLOAD'" ;; esac
runs_olm() { [ "$ACTOR" != recon ]; }
runs_recon() { [ "$ACTOR" != olm ]; }
read -r -a AGENT_ARGS <<< "${CONF_AGENT_ARGS:-}"
[[ $SEED =~ ^[0-9]+$ ]] || conf_fail "CONF_SEED must be a non-negative integer, not '$SEED'"
read -r -a INSTALL_ORDER <<< "$(python3 -c '
import random, sys
order = ["etcd", "percona", "kubedb", "manual"]
if int(sys.argv[1]):
    random.Random(int(sys.argv[1])).shuffle(order)
print(" ".join(order))' "$SEED")"
[ "$WORKLOAD" = base ] || INSTALL_ORDER+=(global)
OUT=${1:-$HOME/recon-conformance/runs/olm-$(date -u +%Y%m%dT%H%M%SZ)-seed$SEED-$ACTOR-$WORKLOAD}
SOURCE_CATALOG=$REPO_ROOT/datasets/olm/community-derived/catalog.json
PACKAGES=etcd,percona-server-mysql-operator,kubedb-installer,cert-manager
# The AllNamespaces operator: a two-entry channel, no dependency, APIs no other install provides.
GLOBAL_PACKAGE=headscale-operator GLOBAL_CHANNEL=alpha
GLOBAL_FROM=headscale-operator.v0.1.0 GLOBAL_TO=headscale-operator.v0.1.1
[ "$WORKLOAD" = base ] || PACKAGES+=",$GLOBAL_PACKAGE"
OLM_USER=system:serviceaccount:olm:olm-operator-serviceaccount
CSV=clusterserviceversions.operators.coreos.com
SUB=subscriptions.operators.coreos.com
IP=installplans.operators.coreos.com
OG=operatorgroups.operators.coreos.com
CATSRC=catalogsources.operators.coreos.com

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
: > "$OUT/steps.tsv"
exec > >(tee "$OUT/run.log") 2>&1
conf_log "olm conformance run: seed $SEED (installs: ${INSTALL_ORDER[*]}), acting: $ACTOR, window $WINDOW, output $OUT"
conf_log "recon: $("$RECON_BIN" --version | head -2 | tr '\n' ' ')"
conf_log "opm: $("$RECON_OPM" version 2>&1 | head -1)"

step() {
  conf_log "=== step: $*"
  printf '%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)" "$*" >> "$OUT/steps.tsv"
}
wait_for() { conf_wait "$@" || conf_fail "the workload did not reach: $1"; }

# kq EXPR GET-ARGS...: `kubectl get GET-ARGS -o json` as `o`; true when EXPR is.
kq() {
  local expr=$1
  shift
  kc get "$@" -o json | python3 -c '
import json, sys
o = json.load(sys.stdin)
def items(): return o.get("items", [])
def st(x=None): return (o if x is None else x).get("status", {}) or {}
v = eval(sys.argv[1])
if v is True: sys.exit(0)
print(repr(v) if v is not False else "false: " + sys.argv[1][:200]); sys.exit(1)' "$expr"
}
csv_succeeded() { # NS CSV
  kq "st().get('phase') == 'Succeeded' or (st().get('phase'), st().get('reason'), st().get('message'))" "$CSV/$2" -n "$1"
}
sub_at() { # NS SUB CSV: the subscription installed CSV and is at the latest it knows
  kq "(st().get('installedCSV'), st().get('state')) == ('$3', 'AtLatestKnown') or (st().get('installedCSV'), st().get('currentCSV'), st().get('state'))" "$SUB/$2" -n "$1"
}
installed() { # NS SUB CSV
  wait_for "$1/$2 at $3" "$TIMEOUT" sub_at "$1" "$2" "$3"
  wait_for "CSV $1/$3 Succeeded" "$TIMEOUT" csv_succeeded "$1" "$3"
}
plan_waiting() { # NS CSV: an InstallPlan of NS that installs CSV waits for approval; prints its name
  kc get "$IP" -n "$1" -o json | python3 -c '
import json, sys
plans = sorted(i["metadata"]["name"] for i in json.load(sys.stdin)["items"]
               if sys.argv[1] in i["spec"].get("clusterServiceVersionNames", [])
               and not i["spec"].get("approved") and (i.get("status") or {}).get("phase") == "RequiresApproval")
if not plans:
    print("no InstallPlan for %s waits for approval" % sys.argv[1])
    sys.exit(1)
print(plans[0])' "$2"
}
namespace_with_group() { # NS [TARGET...]: a namespace and its OperatorGroup (OwnNamespace by default)
  local ns=$1
  shift
  local targets=("${@:-$ns}")
  kc create namespace "$ns" > /dev/null
  kc create -f - > /dev/null <<EOF
apiVersion: operators.coreos.com/v1
kind: OperatorGroup
metadata: {name: $ns, namespace: $ns}
spec:
  targetNamespaces: [$(IFS=,; echo "${targets[*]}")]
EOF
}
subscribe() { # NS NAME PACKAGE CHANNEL APPROVAL [STARTING-CSV]
  kc create -f - > /dev/null <<EOF
apiVersion: operators.coreos.com/v1alpha1
kind: Subscription
metadata: {name: $2, namespace: $1}
spec:
  source: community
  sourceNamespace: olm
  name: $3
  channel: $4
  installPlanApproval: $5
${6:+  startingCSV: $6}
EOF
}

# --- the catalog: v1 lacks etcd's head of singlenamespace-alpha (etcdoperator.v0.9.4),
# v2 (the catalog update) has it ---
CATALOG_DIR=$OUT/catalog
# The global workload's CSVs ask for permissions too (session 31): the RBAC a plan creates, its
# copies into a group's other targets and its lifting for all namespaces are compared as well.
CUT_ARGS=()
[ "$WORKLOAD" = base ] || CUT_ARGS=(--permissions)
python3 "$CONF_DIR/olm_catalog.py" "$SOURCE_CATALOG" "$OUT/catalog-v1" --packages "$PACKAGES" --drop etcdoperator.v0.9.4 "${CUT_ARGS[@]}"
python3 "$CONF_DIR/olm_catalog.py" "$SOURCE_CATALOG" "$OUT/catalog-v2" --packages "$PACKAGES" "${CUT_ARGS[@]}"
for v in v1 v2; do
  "$RECON_OPM" validate "$OUT/catalog-$v" || conf_fail "opm validate catalog-$v"
done
mkdir -p "$CATALOG_DIR"
cp "$OUT/catalog-v1/catalog.json" "$CATALOG_DIR/catalog.json"

cluster_up_olm() {
  CONF_EXTRA_CRDS="$RECON_OLM_CRDS/0000_50_olm_00-operators.crd.yaml"
  cluster_up "${TMPDIR:-/tmp}/recon-conformance-olm.$$"
}
cluster_up_olm
KC_OLM=$CONF_WORK/olm.kubeconfig
KC_RECON=$CONF_WORK/recon.kubeconfig
cluster_kubeconfig olm "$KC_OLM"
cluster_kubeconfig recon "$KC_RECON"
cluster_token kcm "$CONF_WORK/kcm.token"
conf_at_exit "cp '$CONF_AUDIT_LOG' '$OUT/audit.log' 2>/dev/null"
conf_at_exit "cp '$CONF_WORK/kube-apiserver.log' '$OUT/kube-apiserver.log' 2>/dev/null"

# --- opm serve, restartable on the same port (the catalog update) ---
OPM_PORT=$(conf_free_port)
OPM_PID=
start_opm() {
  "$RECON_OPM" serve "$CATALOG_DIR" -p "$OPM_PORT" -t "$OUT/opm-termination.log" >> "$OUT/opm.log" 2>&1 &
  OPM_PID=$!
  wait_for "opm serving on 127.0.0.1:$OPM_PORT" 120 bash -c "exec 3<>/dev/tcp/127.0.0.1/$OPM_PORT"
}
stop_opm() { [ -z "$OPM_PID" ] || conf_stop "$OPM_PID" 10; OPM_PID=; }
conf_at_exit 'stop_opm'
start_opm

step "prerequisites: namespace olm, OLMConfig cluster, CatalogSource olm/community"
kc create namespace olm > /dev/null
kc create -f - > /dev/null <<EOF
apiVersion: operators.coreos.com/v1
kind: OLMConfig
metadata: {name: cluster}
---
apiVersion: operators.coreos.com/v1alpha1
kind: CatalogSource
metadata: {name: community, namespace: olm}
spec:
  sourceType: grpc
  address: 127.0.0.1:$OPM_PORT
  displayName: community-derived (conformance cut)
  publisher: recon conformance
EOF

step "the Deployment stand-in (marks Deployments Available)"
python3 "$CONF_DIR/deployments_available.py" --server "$CONF_API" --token-file "$CONF_WORK/kcm.token" \
  --cacert "$CONF_WORK/pki/serving.crt" > "$OUT/deployments-available.log" 2>&1 &
DEPLOY_PID=$!
conf_at_exit "conf_stop $DEPLOY_PID 5"

recon_mode=()
if [ "$ACTOR" = shadow ]; then
  recon_mode=(--shadow --shadow-window "$WINDOW")
  # The live judgement on the audit log too, where this recon has it.
  if "$RECON_BIN" agent --help 2>&1 | grep -q -- '--audit-log'; then
    recon_mode+=(--audit-log "$CONF_AUDIT_LOG" --audit-user "olm=$OLM_USER")
  fi
fi
RECON_PID=
if runs_recon; then
  step "recon agent ${recon_mode[*]:-(acting)}"
  "$RECON_BIN" agent --cluster "$KC_RECON" --domains olm --store "$OUT/store" --port 0 "${recon_mode[@]}" \
    --catalog "olm/community=$CATALOG_DIR" --catalog-poll 5s \
    --set olm.globalNamespace=olm "${AGENT_ARGS[@]}" > "$OUT/recon-agent.log" 2>&1 &
  RECON_PID=$!
  conf_at_exit "conf_stop $RECON_PID 30"
fi
recon_port() {
  if ! kill -0 "$RECON_PID" 2> /dev/null; then
    echo "recon agent exited: $(tail -5 "$OUT/recon-agent.log")"
    return 125
  fi
  sed -n 's/.*serving \/healthz \/readyz \/metrics on [0-9.]*:\([0-9]*\).*/\1/p' "$OUT/recon-agent.log" | head -1 | grep .
}
recon_metric() { curl -sf "http://127.0.0.1:$RECON_PORT/metrics" | awk -v m="$1" '$1 == m {print $2}'; }
if runs_recon; then
  wait_for "recon serving /readyz" 120 recon_port
  RECON_PORT=$(recon_port)
  wait_for "recon ready (initial lists in)" 120 curl -sf "http://127.0.0.1:$RECON_PORT/readyz"
fi

CATALOG_PID= OLM_PID=
if runs_olm; then
step "OLM v0.24.0: catalog and olm operators"
env KUBECONFIG="$KC_OLM" OPERATOR_NAMESPACE=olm OPERATOR_NAME=olm-operator \
  "$RECON_OLM_CATALOG" --kubeconfig "$KC_OLM" --namespace olm --writeStatusName "" > "$OUT/olm-catalog.log" 2>&1 &
CATALOG_PID=$!
conf_at_exit "conf_stop $CATALOG_PID 15"
env KUBECONFIG="$KC_OLM" OPERATOR_NAMESPACE=olm OPERATOR_NAME=olm-operator \
  "$RECON_OLM_OLM" --namespace olm --writeStatusName "" > "$OUT/olm-olm.log" 2>&1 &
OLM_PID=$!
conf_at_exit "conf_stop $OLM_PID 15"
wait_for "CatalogSource olm/community READY" "$TIMEOUT" \
  kq "st().get('connectionState',{}).get('lastObservedState') == 'READY' or st().get('connectionState')" "$CATSRC/community" -n olm
fi

# The four installs are independent (one namespace each); CONF_SEED orders them.
install_etcd() {
  step "install with an upgrade chain: etcd singlenamespace-alpha from etcdoperator.v0.9.0"
  namespace_with_group conf-etcd
  subscribe conf-etcd etcd etcd singlenamespace-alpha Automatic etcdoperator.v0.9.0
  installed conf-etcd etcd etcdoperator.v0.9.2
}
install_percona() {
  step "skipRange: percona-server-mysql-operator stable from v1.0.0"
  namespace_with_group conf-percona
  subscribe conf-percona percona percona-server-mysql-operator stable Automatic percona-server-mysql-operator.v1.0.0
  installed conf-percona percona percona-server-mysql-operator.v1.2.0
}
install_kubedb() {
  step "dependency: kubedb-installer requires cert-manager's Issuer and Certificate"
  namespace_with_group conf-kubedb
  subscribe conf-kubedb kubedb kubedb-installer stable Automatic
  installed conf-kubedb kubedb kubedb-installer.v2026.2.26
  local cm_sub cm_csv
  cm_sub=$(kc get "$SUB" -n conf-kubedb -o json | python3 -c '
import json, sys
print(" ".join(s["metadata"]["name"] for s in json.load(sys.stdin)["items"] if s["spec"]["name"] == "cert-manager"))')
  [ -n "$cm_sub" ] || conf_fail "no cert-manager subscription was generated for the dependency"
  # Its status may name the installed CSV a moment after kubedb's is Succeeded.
  wait_for "the dependency $cm_sub names its installed CSV" "$TIMEOUT" \
    kq "bool(st().get('installedCSV')) or st()" "$SUB/$cm_sub" -n conf-kubedb
  cm_csv=$(jp "$SUB/$cm_sub" '{.status.installedCSV}' -n conf-kubedb)
  wait_for "the dependency $cm_sub installed" "$TIMEOUT" csv_succeeded conf-kubedb "${cm_csv:-none}"
}
install_manual() {
  step "Manual approval: etcd clusterwide-alpha from etcdoperator.v0.9.0, each plan approved"
  namespace_with_group conf-manual
  subscribe conf-manual etcd etcd clusterwide-alpha Manual etcdoperator.v0.9.0
  # OLM may make two plans for one step (a second resolution runs before the
  # Subscription points at the first): the one approved is the first, by name, that
  # installs the CSV.
  local want plan
  for want in etcdoperator.v0.9.0 etcdoperator.v0.9.2-clusterwide etcdoperator.v0.9.4-clusterwide; do
    wait_for "an InstallPlan waiting for approval (for $want)" "$TIMEOUT" plan_waiting conf-manual "$want"
    plan=$(plan_waiting conf-manual "$want")
    conf_log "approving $plan ($(jp "$IP/$plan" '{.spec.clusterServiceVersionNames}' -n conf-manual))"
    kc patch "$IP/$plan" -n conf-manual --type=merge -p '{"spec":{"approved":true}}' > /dev/null
    wait_for "CSV conf-manual/$want Succeeded" "$TIMEOUT" csv_succeeded conf-manual "$want"
  done
  wait_for "conf-manual/etcd at its head" "$TIMEOUT" sub_at conf-manual etcd etcdoperator.v0.9.4-clusterwide
}
oc_override() { # NS NAME STATUS: the admin's Upgradeable override on an OperatorCondition
  kc patch operatorconditions.operators.coreos.com/"$2" -n "$1" --type=merge -p \
    "{\"spec\":{\"overrides\":[{\"type\":\"Upgradeable\",\"status\":\"$3\",\"reason\":\"Conformance\",\"message\":\"held by the conformance workload\"}]}}" > /dev/null
}
csv_held() { # NS CSV: Pending because the operator it replaces is not upgradeable
  kq "(st().get('phase'), st().get('reason')) == ('Pending', 'OperatorConditionNotUpgradeable') or (st().get('phase'), st().get('reason'), st().get('message'))" "$CSV/$2" -n "$1"
}
approve() { # NS CSV: approve the first plan that waits to install CSV
  local plan
  wait_for "an InstallPlan waiting for approval (for $2)" "$TIMEOUT" plan_waiting "$1" "$2"
  plan=$(plan_waiting "$1" "$2")
  conf_log "approving $plan ($(jp "$IP/$plan" '{.spec.clusterServiceVersionNames}' -n "$1"))"
  kc patch "$IP/$plan" -n "$1" --type=merge -p '{"spec":{"approved":true}}' > /dev/null
}
install_global() {
  step "AllNamespaces: $GLOBAL_PACKAGE from $GLOBAL_FROM (Manual), copied everywhere; its upgrade held by an OperatorCondition, then released"
  kc create namespace conf-global > /dev/null
  printf '%s\n' 'apiVersion: operators.coreos.com/v1' 'kind: OperatorGroup' \
    'metadata: {name: conf-global, namespace: conf-global}' | kc create -f - > /dev/null
  subscribe conf-global "$GLOBAL_PACKAGE" "$GLOBAL_PACKAGE" "$GLOBAL_CHANNEL" Manual "$GLOBAL_FROM"
  approve conf-global "$GLOBAL_FROM"
  wait_for "CSV conf-global/$GLOBAL_FROM Succeeded" "$TIMEOUT" csv_succeeded conf-global "$GLOBAL_FROM"
  wait_for "$GLOBAL_FROM copied into conf-etcd" "$TIMEOUT" csv_succeeded conf-etcd "$GLOBAL_FROM"
  wait_for "the OperatorCondition of $GLOBAL_FROM" "$TIMEOUT" \
    kc get operatorconditions.operators.coreos.com/"$GLOBAL_FROM" -n conf-global
  oc_override conf-global "$GLOBAL_FROM" False
  approve conf-global "$GLOBAL_TO"
  wait_for "CSV conf-global/$GLOBAL_TO held Pending (OperatorConditionNotUpgradeable)" "$TIMEOUT" \
    csv_held conf-global "$GLOBAL_TO"
  oc_override conf-global "$GLOBAL_FROM" True
  installed conf-global "$GLOBAL_PACKAGE" "$GLOBAL_TO"
  wait_for "$GLOBAL_FROM gone, copies too" "$TIMEOUT" \
    kq "not [i for i in items() if i['metadata']['name'] == '$GLOBAL_FROM'] or [i['metadata']['namespace'] for i in items() if i['metadata']['name'] == '$GLOBAL_FROM']" "$CSV" -A
}
for name in "${INSTALL_ORDER[@]}"; do "install_$name"; done

step "OperatorGroup change: conf-percona targets conf-percona and conf-etcd"
kc patch "$OG/conf-percona" -n conf-percona --type=merge -p '{"spec":{"targetNamespaces":["conf-percona","conf-etcd"]}}' > /dev/null
wait_for "OperatorGroup status lists both namespaces" "$TIMEOUT" \
  kq "sorted(st().get('namespaces') or []) == ['conf-etcd','conf-percona'] or st().get('namespaces')" "$OG/conf-percona" -n conf-percona
wait_for "percona copied into conf-etcd" "$TIMEOUT" csv_succeeded conf-etcd percona-server-mysql-operator.v1.2.0
wait_for "CSV conf-percona/percona-server-mysql-operator.v1.2.0 Succeeded" "$TIMEOUT" \
  csv_succeeded conf-percona percona-server-mysql-operator.v1.2.0

step "catalog update: etcdoperator.v0.9.4 joins singlenamespace-alpha (opm restarted on the new content)"
# recon reads the catalog directory (--catalog-poll 5s), OLM the gRPC server: recon is
# given the new content first and OLM told only once recon has logged it, so that
# a 0-5 s poll race does not decide whether recon's upgrade plan is a prediction
# or the adoption of OLM's (one source of truth updated, as in a cluster).
CONTENT_METRIC='recon_events_appended_total{type="Content"}'
contents_before=0
runs_recon && contents_before=$(recon_metric "$CONTENT_METRIC")
cp "$OUT/catalog-v2/catalog.json" "$CATALOG_DIR/.catalog.json.new"
mv "$CATALOG_DIR/.catalog.json.new" "$CATALOG_DIR/catalog.json"
content_logged() { local n; n=$(recon_metric "$CONTENT_METRIC"); [ "${n%.*}" -gt "${contents_before%.*}" ] || { echo "Content events $n"; return 1; }; }
runs_recon && wait_for "recon logged the new catalog (Content events past $contents_before)" 60 content_logged
stop_opm
start_opm
# OLM re-reads an address-type catalog when the CatalogSource changes; a catalog
# image update changes it too (status), here an annotation does.
kc annotate "$CATSRC/community" -n olm --overwrite conformance.recon/catalog-revision=v2 > /dev/null
installed conf-etcd etcd etcdoperator.v0.9.4

step "uninstall: the percona Subscription and its CSV deleted"
kc delete "$SUB/percona" -n conf-percona > /dev/null
kc delete "$CSV/percona-server-mysql-operator.v1.2.0" -n conf-percona > /dev/null
wait_for "percona's CSV gone (and its copy)" "$TIMEOUT" \
  kq "not [i for i in items() if i['metadata']['name'].startswith('percona-server-mysql-operator')] or [i['metadata']['namespace'] for i in items() if i['metadata']['name'].startswith('percona')]" "$CSV" -A

if [ "$ACTOR" != shadow ]; then
  step "final state ($ACTOR alone)"
  # Settled first: a plan the last step started (a catalog update's) may still run.
  wait_for "every InstallPlan settled (Complete, Failed or RequiresApproval)" "$TIMEOUT" \
    kq "not [i['metadata']['name'] for i in items() if st(i).get('phase') not in ('Complete', 'Failed', 'RequiresApproval')] or [(i['metadata']['namespace'], i['metadata']['name'], st(i).get('phase')) for i in items() if st(i).get('phase') not in ('Complete', 'Failed', 'RequiresApproval')]" "$IP" -A
  python3 "$CONF_DIR/final_state.py" dump "$RECON_KUBECTL" "$CONF_KUBECONFIG" "$OUT/final-state.json"
  [ -z "$RECON_PID" ] || conf_stop "$RECON_PID" 60
  [ -z "$CATALOG_PID" ] || conf_stop "$CATALOG_PID" 15
  [ -z "$OLM_PID" ] || conf_stop "$OLM_PID" 15
  stop_opm
  kc get "$SUB,$IP,$CSV" -A -o wide > "$OUT/final-objects.txt" 2>&1 || true
  conf_log "done: $OUT (final-state.json: compare two runs with final_state.py compare)"
  exit 0
fi

# --- close the last windows (see samples.sh) ---
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
recon_last_seq() { recon_metric recon_last_seq; }
seq_before=$(recon_last_seq)
kc annotate "$OG/conf-etcd" -n conf-etcd --overwrite conformance.recon/window-closer="$(date -u +%FT%TZ)" > /dev/null
seq_moved() { local s; s=$(recon_last_seq); [ "${s%.*}" -gt "${seq_before%.*}" ] || { echo "last seq $s"; return 1; }; }
wait_for "recon logged the closing event (last seq past $seq_before)" 60 seq_moved

step "stopping recon (SIGTERM), OLM and opm"
curl -sf "http://127.0.0.1:$RECON_PORT/metrics" > "$OUT/recon-metrics.txt" || true
kill -0 "$RECON_PID" 2> /dev/null || conf_log "WARNING: the recon agent exited before the end of the workload"
conf_stop "$RECON_PID" 60
[ "$CONF_STOP_RC" = 0 ] || conf_log "WARNING: the recon agent exited with status $CONF_STOP_RC"
conf_stop "$CATALOG_PID" 15
conf_stop "$OLM_PID" 15
stop_opm
cp "$CONF_AUDIT_LOG" "$OUT/audit.log"
kc get "$SUB,$IP,$CSV" -A -o wide > "$OUT/final-objects.txt" 2>&1 || true

step "shadow report (watch)"
set +e
"$RECON_BIN" shadow report --store "$OUT/store" --domains olm --shadow-window "$WINDOW" | tee "$OUT/report.txt"
"$RECON_BIN" shadow report --store "$OUT/store" --domains olm --shadow-window "$WINDOW" -o json > "$OUT/report.json"
if "$RECON_BIN" shadow report --help 2>&1 | grep -q -- '--audit '; then
  step "shadow report (audit log $OUT/audit.log)"
  "$RECON_BIN" shadow report --store "$OUT/store" --domains olm --shadow-window "$WINDOW" \
    --audit "$OUT/audit.log" --audit-user "olm=$OLM_USER" | tee "$OUT/report-audit.txt"
  "$RECON_BIN" shadow report --store "$OUT/store" --domains olm --shadow-window "$WINDOW" \
    --audit "$OUT/audit.log" --audit-user "olm=$OLM_USER" -o json > "$OUT/report-audit.json"
else
  echo "note: this recon has no \`shadow report --audit\` yet (issue 36 item 1): no report from the audit log"
fi
step "summary"
reports=("$OUT/report.json")
[ -f "$OUT/report-audit.json" ] && reports+=("$OUT/report-audit.json")
"$CONF_DIR/summarize.py" "${reports[@]}" | tee "$OUT/summary.txt"
set -e
conf_log "done: $OUT (report.txt, report-audit.txt, audit.log, store/, *.log)"
