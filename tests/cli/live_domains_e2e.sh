#!/usr/bin/env bash
# Each domain end to end as the live agent against `recon sim serve`, which
# admits every write against the real CRDs (crd/data/) as a kube-apiserver
# does. Passes when each domain reaches its goal state with zero refused
# writes (no `write failed` warning with a 4xx other than 409 Conflict, which
# a level-based writer may meet and re-decide on) and no object created in a
# loop; olm installs and upgrades, aro works through the simulated ARM.
# Real data: the samples inventory and the community-derived catalog
# from DATA (the repository's datasets/; a missing input fails).
# usage: live_domains_e2e.sh RECON SOURCE_DIR WORKDIR DATA_DIR
set -u
RECON=$1 SRC=$2 WORK=$3 DATA=$4
if [ ! -d "$DATA/samples/ocp-x86_64" ] || [ ! -d "$DATA/olm/community-derived" ]; then
  echo "FAIL: $DATA has no real samples inventory or catalog"
  exit 1
fi
rm -rf "$WORK" && mkdir -p "$WORK"
SERVER= AGENT=
SERVE_ARGS=()
cleanup() {
  [ -n "$AGENT" ] && kill -KILL "$AGENT" 2>/dev/null && wait "$AGENT" 2>/dev/null
  [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
  AGENT= SERVER=
}
trap cleanup EXIT
fail() {
  echo "FAIL ($DOMAIN): $*"
  echo "--- agent log (tail)"
  tail -30 "$WORK/$DOMAIN/agent.err" 2>/dev/null
  exit 1
}
# get PATH [PYTHON-EXPR over the JSON `o`]: prints the expression's value.
get() {
  python3 - "$URL$1" "${2:-o}" <<'PY'
import json, sys, urllib.request
try:
    o = json.load(urllib.request.urlopen(sys.argv[1], timeout=5))
except Exception as e:
    print("ERROR", e)
    sys.exit(1)
print(eval(sys.argv[2]))
PY
}
# wait_for DESCRIPTION EXPECTED PATH EXPR: up to 60 s.
wait_for() {
  local what=$1 want=$2 got=
  for _ in $(seq 1 300); do
    got=$(get "$3" "$4" 2>/dev/null)
    [ "$got" = "$want" ] && return 0
    kill -0 "$AGENT" 2>/dev/null || fail "the agent exited while waiting for $what"
    sleep 0.2
  done
  fail "timed out waiting for $what (last: $got)"
}
# start DOMAIN SCENARIO AGENT-ARGS...: a served cluster and an agent on it.
start() {
  DOMAIN=$1
  local scenario=$2 dir=$WORK/$1
  shift 2
  mkdir -p "$dir"
  "$RECON" sim serve --port 0 --scenario "$scenario" --speed 30 --kubeconfig-out "$dir/kc" "${SERVE_ARGS[@]}" \
    >"$dir/serve.out" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 100); do [ -s "$dir/kc" ] && break; sleep 0.1; done
  [ -s "$dir/kc" ] || fail "recon sim serve did not start: $(cat "$dir/serve.out")"
  URL=$(grep -o 'http://127.0.0.1:[0-9]*' "$dir/serve.out" | head -1)
  [ -n "$URL" ] || fail "no API server URL in: $(cat "$dir/serve.out")"
  "$RECON" agent --cluster "$dir/kc" --domains "$DOMAIN" --store "$dir/store" --probe-via "$URL" "$@" \
    >"$dir/agent.out" 2>"$dir/agent.err" &
  AGENT=$!
}
# finish: SIGTERM (exit 0), no refused write, replay --check.
finish() {
  local dir=$WORK/$DOMAIN code
  sleep 1  # late results of the last writes
  kill -TERM "$AGENT"
  wait "$AGENT"
  code=$?
  AGENT=
  [ "$code" = 0 ] || fail "the agent exited $code on SIGTERM"
  local refused
  refused=$(grep -a "write failed" "$dir/agent.err" | grep -v "HTTP 409" || true)
  [ -z "$refused" ] || fail "refused writes: $refused"
  "$RECON" replay --check --store "$dir/store" --domains "$DOMAIN" >"$dir/check.out" 2>&1 ||
    fail "replay --check: $(cat "$dir/check.out")"
  echo "PASS $DOMAIN: $(grep -ac "write failed" "$dir/agent.err") conflicts; $(tail -1 "$dir/check.out")"
  cleanup
}

# samples, the real inventory: bootstrap, every stream and template, the
# ClusterOperator created with a spec and its status written through /status.
python3 - "$SRC/examples/scenarios/samples-removed.json" "$WORK/samples.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["edits"] = []
s.pop("samplesInventory", None)
json.dump(s, open(sys.argv[2], "w"))
PY
start samples "$WORK/samples.json" --set "samples.inventory=$DATA/samples/ocp-x86_64" \
  --set samples.removalImportWait=0s --fact architecture=x86_64
wait_for "the ClusterOperator to be Available" True \
  /apis/config.openshift.io/v1/clusteroperators/openshift-samples \
  '[c["status"] for c in o.get("status",{}).get("conditions",[]) if c["type"]=="Available"][0]'
wait_for "the Config to report Managed" Managed \
  /apis/samples.operator.openshift.io/v1/configs/cluster 'o.get("status",{}).get("managementState")'
streams=$(get /apis/image.openshift.io/v1/namespaces/openshift/imagestreams 'len(o["items"])')
[ "$streams" -ge 40 ] || fail "only $streams imagestreams"
finish

# disconnected: the DisconnectedFriendlyApp status (resourceVersion on every
# update, only the fields its CRD declares).
start disconnected "$SRC/examples/scenarios/disconnected-dfa.json" \
  --set disconnected.operatorDeployment=openshift-operators/simple-disconnected-operator-controller-manager
wait_for "the DisconnectedFriendlyApp status" True \
  /apis/tools.opdev.io/v1alpha1/namespaces/apps/disconnectedfriendlyapps/demo \
  'bool(o.get("status"))'
finish

# olm, the real community-derived catalog: an Automatic subscription that
# starts at etcdoperator.v0.9.0 is installed and upgraded to the channel head
# (v0.9.2, then v0.9.4) with one InstallPlan per step, each written through
# /status, and Subscription statuses the CRD admits. recon carries the plans
# out (olm.executePlans, its default); the served cluster (sim serve
# --olm-catalog) runs the unpack Jobs and plays OLM's olm operator.
cat >"$WORK/olm.json" <<'EOF'
{"name": "olm-live", "start": "2026-11-21T10:00:00Z",
 "facts": {"architecture": "x86_64", "version": "4.16.0"},
 "objects": [
  {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "operators"}},
  {"apiVersion": "operators.coreos.com/v1alpha1", "kind": "CatalogSource",
   "metadata": {"name": "community", "namespace": "operators"},
   "spec": {"sourceType": "grpc", "image": "quay.io/example/community:latest"}},
  {"apiVersion": "operators.coreos.com/v1", "kind": "OperatorGroup",
   "metadata": {"name": "og", "namespace": "operators"}, "spec": {}},
  {"apiVersion": "operators.coreos.com/v1alpha1", "kind": "Subscription",
   "metadata": {"name": "etcd", "namespace": "operators"},
   "spec": {"name": "etcd", "channel": "singlenamespace-alpha", "source": "community",
            "sourceNamespace": "operators", "installPlanApproval": "Automatic",
            "startingCSV": "etcdoperator.v0.9.0"}}]}
EOF
SERVE_ARGS=(--olm-catalog "$DATA/olm/community-derived")
start olm "$WORK/olm.json" --catalog "operators/community=$DATA/olm/community-derived"
SUB=/apis/operators.coreos.com/v1alpha1/namespaces/operators/subscriptions/etcd
wait_for "the Subscription at the channel head" "AtLatestKnown etcdoperator.v0.9.4" "$SUB" \
  'o.get("status",{}).get("state","") + " " + o.get("status",{}).get("installedCSV","")'
wait_for "no InstallPlanPending left" False "$SUB" \
  'any(c["type"]=="InstallPlanPending" for c in o["status"].get("conditions",[]))'
sleep 3  # a loop would create more plans meanwhile
PLANS=/apis/operators.coreos.com/v1alpha1/namespaces/operators/installplans
plans=$(get $PLANS 'sorted((i["spec"]["clusterServiceVersionNames"][0], i["status"]["phase"]) for i in o["items"])')
want="[('etcdoperator.v0.9.0', 'Complete'), ('etcdoperator.v0.9.2', 'Complete'), ('etcdoperator.v0.9.4', 'Complete')]"
[ "$plans" = "$want" ] || fail "InstallPlans: $plans (want one per step: $want)"
csvs=$(get /apis/operators.coreos.com/v1alpha1/namespaces/operators/clusterserviceversions \
  '[i["metadata"]["name"] for i in o["items"]]')
[ "$csvs" = "['etcdoperator.v0.9.4']" ] || fail "CSVs left: $csvs"
finish

# olm carried out by recon (issue 49), the option said explicitly: the served cluster plays
# no part of OLM's catalog operator, only a kubelet running the
# bundle unpack Jobs and OLM's olm operator turning CSVs Succeeded; the agent
# (olm.executePlans) unpacks both bundles, creates their CSVs and the
# dependency's Subscription from its own plan, and writes the plan Complete.
mkdir -p "$WORK/olm-exec/catalog"
python3 - "$WORK/olm-exec/catalog/catalog.json" <<'PY'
import json, sys
blobs = [
    {"schema": "olm.package", "name": "app", "defaultChannel": "stable"},
    {"schema": "olm.channel", "package": "app", "name": "stable", "entries": [{"name": "app.v1.0.0"}]},
    {"schema": "olm.bundle", "name": "app.v1.0.0", "package": "app", "image": "quay.io/example/app-bundle:1.0.0",
     "properties": [{"type": "olm.package", "value": {"packageName": "app", "version": "1.0.0"}},
                    {"type": "olm.package.required", "value": {"packageName": "dep", "versionRange": ">=1.0.0"}}]},
    {"schema": "olm.package", "name": "dep", "defaultChannel": "stable"},
    {"schema": "olm.channel", "package": "dep", "name": "stable", "entries": [{"name": "dep.v1.0.0"}]},
    {"schema": "olm.bundle", "name": "dep.v1.0.0", "package": "dep", "image": "quay.io/example/dep-bundle:1.0.0",
     "properties": [{"type": "olm.package", "value": {"packageName": "dep", "version": "1.0.0"}},
                    {"type": "olm.gvk", "value": {"group": "dep.example.com", "version": "v1", "kind": "Dep"}}]}]
open(sys.argv[1], "w").write("".join(json.dumps(b) + "\n" for b in blobs))
PY
python3 - "$WORK/olm.json" "$WORK/olm-exec.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["objects"][-1]["metadata"]["name"] = "app"
s["objects"][-1]["spec"] = {"name": "app", "channel": "stable", "source": "community", "sourceNamespace": "operators",
                            "installPlanApproval": "Automatic"}
json.dump(s, open(sys.argv[2], "w"))
PY
rm -rf "$WORK/olm"  # start() works in $WORK/olm: the first olm run's kubeconfig must go
SERVE_ARGS=(--olm-catalog "$WORK/olm-exec/catalog")
start olm "$WORK/olm-exec.json" --catalog "operators/community=$WORK/olm-exec/catalog" \
  --set olm.executePlans=true
SUB=/apis/operators.coreos.com/v1alpha1/namespaces/operators/subscriptions/app
wait_for "the Subscription installed" "AtLatestKnown app.v1.0.0" "$SUB" \
  'o.get("status",{}).get("state","") + " " + o.get("status",{}).get("installedCSV","")'
wait_for "the plan Complete" "[('Complete', ['app.v1.0.0', 'dep.v1.0.0'])]" \
  /apis/operators.coreos.com/v1alpha1/namespaces/operators/installplans \
  '[(i["status"]["phase"], sorted(i["spec"]["clusterServiceVersionNames"])) for i in o["items"]]'
wait_for "both CSVs, created by recon's plan" "['app.v1.0.0', 'dep.v1.0.0']" \
  /apis/operators.coreos.com/v1alpha1/namespaces/operators/clusterserviceversions \
  'sorted(i["metadata"]["name"] for i in o["items"])'
wait_for "the dependency's Subscription, made by the plan" "install-" \
  /apis/operators.coreos.com/v1alpha1/namespaces/operators/subscriptions/dep-stable-community-operators \
  'o["metadata"]["annotations"]["olm.generated-by"][:8]'
jobs=$(get /apis/batch/v1/namespaces/operators/jobs 'sorted(c["type"] for i in o["items"] for c in i["status"]["conditions"])')
[ "$jobs" = "['Complete', 'Complete']" ] || fail "unpack Jobs: $jobs"
finish
SERVE_ARGS=()

# aro, through ARM: the served cluster also plays Azure Resource Manager and
# AAD (sim serve --arm), over TLS only (--tls: a throwaway CA the agent
# trusts through SSL_CERT_FILE, as the ARO operator would); the scenario
# detaches the master subnet's NSG in ARM at 2m of its clock, and the agent
# (--azure) re-attaches it with an NSG PUT that stamps the Cluster; the
# service principal checks out.
DOMAIN=aro
mkdir -p "$WORK/aro"
"$RECON" sim serve --port 0 --arm --tls "$WORK/aro/tls" --scenario "$SRC/examples/scenarios/aro-arm.json" --speed 30 \
  --kubeconfig-out "$WORK/aro/kc" >"$WORK/aro/serve.out" 2>&1 &
SERVER=$!
for _ in $(seq 1 100); do [ -s "$WORK/aro/kc" ] && break; sleep 0.1; done
[ -s "$WORK/aro/kc" ] || fail "recon sim serve --arm did not start: $(cat "$WORK/aro/serve.out")"
URL=$(grep -o 'http://127.0.0.1:[0-9]*' "$WORK/aro/serve.out" | head -1)
[ -n "$URL" ] || fail "no API server URL in: $(cat "$WORK/aro/serve.out")"
ARM=$(grep -o 'ARM and AAD at https://127.0.0.1:[0-9]*' "$WORK/aro/serve.out" | grep -o 'https://.*')
[ -n "$ARM" ] || fail "no ARM endpoint in: $(cat "$WORK/aro/serve.out")"
SSL_CERT_FILE="$WORK/aro/tls/ca.crt" "$RECON" agent --cluster "$WORK/aro/kc" --domains aro --store "$WORK/aro/store" --probe-via "$URL" \
  --azure --arm-endpoint "$ARM" --aad-endpoint "$ARM" --set aro.subnetsInterval=2s \
  >"$WORK/aro/agent.out" 2>"$WORK/aro/agent.err" &
AGENT=$!
CLUSTER=/apis/aro.openshift.io/v1alpha1/clusters/cluster
wait_for "the service principal checked" True "$CLUSTER" \
  '[c["status"] for c in o.get("status",{}).get("conditions",[]) if c["type"]=="ServicePrincipalValid"][0]'
wait_for "the NSG re-attached through ARM" True "$CLUSTER" \
  '"aro.openshift.io/lastSubnetReconcileTimestamp" in o["metadata"].get("annotations",{})'
finish
