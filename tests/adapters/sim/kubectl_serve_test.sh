#!/usr/bin/env bash
# A real kubectl against `recon sim serve`: discovery, get (table and -o yaml),
# apply, merge patch, delete, a watch, protobuf creates (namespace, configmap,
# secret generic), a refused name and get -o wide. Exit 77 (ctest SKIP) without kubectl.
# usage: kubectl_serve_test.sh RECON SCENARIO WORKDIR
set -u
RECON=$1 SCENARIO=$2 WORK=$3
. "$(dirname "$0")/../../lib/kubectl.sh"
rm -rf "$WORK" && mkdir -p "$WORK"
KC=$WORK/kubeconfig
"$RECON" sim serve --port 0 --scenario "$SCENARIO" --kubeconfig-out "$KC" >"$WORK/serve.out" 2>&1 &
SERVER=$!
WATCH=
cleanup() {
  [ -n "$WATCH" ] && kill "$WATCH" 2>/dev/null
  kill "$SERVER" 2>/dev/null
  wait "$SERVER" 2>/dev/null
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  echo "--- server output"; cat "$WORK/serve.out"
  exit 1
}
for _ in $(seq 1 200); do [ -s "$KC" ] && break; sleep 0.05; done
[ -s "$KC" ] || fail "no kubeconfig from recon sim serve"
K="kubectl --kubeconfig $KC --request-timeout 20s"

out=$($K get configs.samples.operator.openshift.io 2>&1) || fail "get configs: $out"
grep -q '^cluster ' <<<"$out" || fail "get configs did not list cluster: $out"
out=$($K get imagestreams -n openshift 2>&1) || fail "get imagestreams: $out"
grep -q '^ruby ' <<<"$out" || fail "get imagestreams did not list ruby: $out"
out=$($K get config cluster -o yaml 2>&1) || fail "get config -o yaml: $out"
grep -q 'managementState: Managed' <<<"$out" || fail "config cluster is not Managed: $out"

# The watch starts first and must see what follows. --output-watch-events
# prints the event type; --request-timeout is not a watch limit, timeout is.
timeout 15 $K get configmaps -n openshift -w --output-watch-events >"$WORK/watch.out" 2>&1 &
WATCH=$!
sleep 1

cat >"$WORK/cm.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: demo
  namespace: openshift
data:
  greeting: hello
YAML
# Default validation: the minimal /openapi/v3 tells kubectl the server
# takes fieldValidation, so kubectl needs no schema of its own.
out=$($K apply -f "$WORK/cm.yaml" 2>&1) || fail "apply (create): $out"
grep -q 'configmap/demo created' <<<"$out" || fail "apply did not create: $out"
sed -i 's/hello/bonjour/' "$WORK/cm.yaml"
out=$($K apply -f "$WORK/cm.yaml" 2>&1) || fail "apply (update): $out"
grep -q 'configmap/demo configured' <<<"$out" || fail "apply did not configure: $out"
out=$($K get configmap demo -n openshift -o jsonpath='{.data.greeting}' 2>&1) || fail "get configmap: $out"
[ "$out" = bonjour ] || fail "apply's change is not stored: $out"

out=$($K patch config cluster --type merge -p '{"spec":{"managementState":"Removed"}}' 2>&1) || fail "patch: $out"
out=$($K get config cluster -o jsonpath='{.spec.managementState}' 2>&1)
[ "$out" = Removed ] || fail "patch did not set Removed: $out"

out=$($K delete configmap demo -n openshift 2>&1) || fail "delete: $out"
if $K get configmap demo -n openshift >/dev/null 2>&1; then fail "configmap demo still there after delete"; fi

# kubectl sends these built-ins as protobuf (and does not fall back to JSON
# on a 415): the server decodes them.
out=$($K create namespace kubectl-made 2>&1) || fail "create namespace: $out"
grep -q 'namespace/kubectl-made created' <<<"$out" || fail "create namespace: $out"
out=$($K create configmap made -n kubectl-made --from-literal=greeting=hello 2>&1) || fail "create configmap: $out"
out=$($K get configmap made -n kubectl-made -o jsonpath='{.data.greeting}' 2>&1)
[ "$out" = hello ] || fail "configmap from protobuf: $out"
out=$($K create secret generic made -n kubectl-made --from-literal=password=p@ss 2>&1) || fail "create secret: $out"
out=$($K get secret made -n kubectl-made -o jsonpath='{.data.password}' 2>&1)
[ "$out" = cEBzcw== ] || fail "secret from protobuf: $out"
# The server's checks, in the real wording, through kubectl.
if out=$($K create configmap Bad_Name -n kubectl-made 2>&1); then fail "an invalid name was accepted"; fi
grep -q 'a lowercase RFC 1123 subdomain must consist of' <<<"$out" || fail "invalid name: $out"
out=$($K get configs.samples.operator.openshift.io -o wide 2>&1) || fail "get -o wide: $out"
grep -q '^cluster ' <<<"$out" || fail "get -o wide did not list cluster: $out"

for _ in $(seq 1 200); do grep -q '^DELETED' "$WORK/watch.out" && break; sleep 0.05; done
grep -q '^ADDED .*demo' "$WORK/watch.out" || fail "watch did not print ADDED demo: $(cat "$WORK/watch.out")"
grep -q '^MODIFIED .*demo' "$WORK/watch.out" || fail "watch did not print MODIFIED demo: $(cat "$WORK/watch.out")"
grep -q '^DELETED .*demo' "$WORK/watch.out" || fail "watch did not print DELETED demo: $(cat "$WORK/watch.out")"
echo "PASS: kubectl $(kubectl version --client 2>/dev/null | head -1) against recon sim serve"
