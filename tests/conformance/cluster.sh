#!/usr/bin/env bash
# A real control plane on loopback for the conformance harness: Debian's etcd and a
# real kube-apiserver (1.26, built by ../shared/peers/kube-apiserver.sh), a self-signed
# serving certificate, one token per client (admin, each operator, recon),
# AlwaysAllow, an audit log of every write at RequestResponse, and the real CRDs
# (crd/data/, plus schemaless CRDs for the kinds openshift-apiserver serves).
#
# Sourced: `. cluster.sh; cluster_up DIR` starts it (and tears it down when the
# sourcing script exits). Run: `cluster.sh [DIR]` starts it, prints how to reach it,
# and waits until interrupted.
#
# Environment: RECON_KUBE_APISERVER (required), RECON_ETCD (default: etcd on PATH),
# RECON_KUBECTL (default: kubectl on PATH), CONF_EXTRA_CRDS (more CRD files or
# directories, space-separated), CONF_KEEP=1 keeps DIR.
#
# After cluster_up: CONF_API (https URL), CONF_KUBECONFIG (admin),
# CONF_KUBECONFIG_<USER> via cluster_kubeconfig USER, CONF_AUDIT_LOG, CONF_WORK.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The users of the token file, "short|user name|groups": the token is the short
# name plus a per-run nonce. The operators get the service-account names they have
# in a real cluster, so the audit log tells their writes from the workload's.
CONF_USERS=(
  "admin|system:admin|system:masters"
  "samples|system:serviceaccount:openshift-cluster-samples-operator:cluster-samples-operator|"
  "olm|system:serviceaccount:olm:olm-operator-serviceaccount|"
  "recon|system:serviceaccount:recon:recon-shadow|"
  "kcm|system:kube-controller-manager|"
)

cluster_require() {
  conf_need RECON_KUBE_APISERVER "build it with ../shared/peers/kube-apiserver.sh (microshift release-4.13)"
  conf_need RECON_ETCD "apt-get install -y etcd-server" etcd
  conf_need RECON_KUBECTL "apt-get install -y kubectl" kubectl
  command -v openssl > /dev/null || conf_skip "openssl not found: apt-get install -y openssl"
  command -v curl > /dev/null || conf_skip "curl not found: apt-get install -y curl"
}

# cluster_kubeconfig USER FILE: a kubeconfig for one of CONF_USERS.
cluster_kubeconfig() {
  local user=$1 file=$2 token
  token=$(awk -F, -v u="$user" '$3 == u {print $1}' "$CONF_WORK/tokens.csv")
  [ -n "$token" ] || conf_fail "no token for user $user"
  cat > "$file" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: conformance
  cluster:
    server: $CONF_API
    certificate-authority-data: $(base64 -w0 < "$CONF_WORK/pki/serving.crt")
users:
- name: $user
  user:
    token: $token
contexts:
- name: conformance
  context: {cluster: conformance, user: $user}
current-context: conformance
EOF
  chmod 600 "$file"
}

# cluster_token USER FILE: USER's bearer token, alone in FILE (mode 600).
cluster_token() {
  local token
  token=$(awk -F, -v u="$1" '$3 == u {print $1}' "$CONF_WORK/tokens.csv")
  [ -n "$token" ] || conf_fail "no token for user $1"
  (umask 077 && printf '%s\n' "$token" > "$2")
}

cluster_write_pki() {
  local pki=$CONF_WORK/pki
  mkdir -p "$pki"
  openssl req -x509 -newkey rsa:2048 -nodes -days 3 -subj "/CN=127.0.0.1" \
    -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
    -keyout "$pki/serving.key" -out "$pki/serving.crt" 2> "$pki/openssl.log"
  openssl genrsa -out "$pki/sa.key" 2048 2>> "$pki/openssl.log"
  openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>> "$pki/openssl.log"
  local nonce entry short name group
  nonce=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
  : > "$CONF_WORK/tokens.csv"
  for entry in "${CONF_USERS[@]}"; do
    IFS='|' read -r short name group <<< "$entry"
    # token,user,uid,"groups"; the uid column holds the short name cluster_kubeconfig looks up.
    printf '%s-%s,%s,%s,"%s"\n' "$short" "$nonce" "$name" "$short" "$group" >> "$CONF_WORK/tokens.csv"
  done
  chmod 600 "$CONF_WORK/tokens.csv"
}

cluster_write_audit_policy() {
  cat > "$CONF_WORK/audit-policy.yaml" <<'EOF'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
# Reads are not logged; neither are the churn of leases and events.
- level: None
  verbs: [get, list, watch]
- level: None
  resources:
  - {group: coordination.k8s.io, resources: [leases]}
  - {group: "", resources: [events]}
  - {group: events.k8s.io, resources: [events]}
# Every write with its request and response bodies (what `recon log import
# --format audit` and `recon shadow report --audit` read).
- level: RequestResponse
  verbs: [create, update, patch, delete, deletecollection]
- level: None
EOF
}

cluster_start_etcd() {
  local client peer
  client=$(conf_free_port)
  peer=$(conf_free_port)
  CONF_ETCD_URL=http://127.0.0.1:$client
  "$RECON_ETCD" --name conformance --data-dir "$CONF_WORK/etcd" \
    --listen-client-urls "$CONF_ETCD_URL" --advertise-client-urls "$CONF_ETCD_URL" \
    --listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
    --initial-cluster "conformance=http://127.0.0.1:$peer" \
    > "$CONF_WORK/etcd.log" 2>&1 &
  CONF_ETCD_PID=$!
  conf_at_exit "conf_stop $CONF_ETCD_PID"
  conf_wait "etcd healthy on $CONF_ETCD_URL" 60 curl -sf "$CONF_ETCD_URL/health" ||
    conf_fail "etcd did not start: $(tail -5 "$CONF_WORK/etcd.log")"
}

cluster_start_apiserver() {
  local port
  port=$(conf_free_port)
  CONF_API=https://127.0.0.1:$port
  "$RECON_KUBE_APISERVER" \
    --etcd-servers="$CONF_ETCD_URL" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$port" \
    --tls-cert-file="$CONF_WORK/pki/serving.crt" --tls-private-key-file="$CONF_WORK/pki/serving.key" \
    --cert-dir="$CONF_WORK/pki" \
    --token-auth-file="$CONF_WORK/tokens.csv" --anonymous-auth=false \
    --authorization-mode=AlwaysAllow \
    --service-account-issuer=https://kubernetes.default.svc \
    --service-account-key-file="$CONF_WORK/pki/sa.pub" \
    --service-account-signing-key-file="$CONF_WORK/pki/sa.key" \
    --service-cluster-ip-range=10.96.0.0/24 \
    --audit-policy-file="$CONF_WORK/audit-policy.yaml" \
    --audit-log-path="$CONF_AUDIT_LOG" --audit-log-maxsize=0 --audit-log-mode=blocking \
    --profiling=false --endpoint-reconciler-type=none \
    > "$CONF_WORK/kube-apiserver.log" 2>&1 &
  CONF_APISERVER_PID=$!
  conf_at_exit "conf_stop $CONF_APISERVER_PID"
  local token
  token=$(awk -F, '$3 == "admin" {print $1}' "$CONF_WORK/tokens.csv")
  conf_wait "kube-apiserver ready on $CONF_API" 180 \
    curl -sf --cacert "$CONF_WORK/pki/serving.crt" -H "Authorization: Bearer $token" "$CONF_API/readyz" ||
    conf_fail "kube-apiserver did not become ready: $(tail -5 "$CONF_WORK/kube-apiserver.log")"
}

# The CRDs: every real one in crd/data/, the schemaless openshift-apiserver kinds,
# and CONF_EXTRA_CRDS. `create`, not `apply`: the CSV CRD is larger than the
# last-applied annotation may be.
cluster_apply_crds() {
  local files=() f
  for f in "$REPO_ROOT"/crd/data/*.yaml "$CONF_DIR"/crds/*.yaml; do files+=(-f "$f"); done
  for f in ${CONF_EXTRA_CRDS:-}; do files+=(-f "$f"); done
  kc create "${files[@]}" > "$CONF_WORK/crds.log" 2>&1 || conf_fail "creating CRDs: $(tail -5 "$CONF_WORK/crds.log")"
  conf_wait "CRDs established" 120 kc wait --for=condition=Established --timeout=5s crd --all ||
    conf_fail "CRDs not established"
  # Discovery can lag the Established condition by a moment.
  conf_wait "CRD kinds in discovery" 60 kc get configs.samples.operator.openshift.io,imagestreams.image.openshift.io -A ||
    conf_fail "CRD kinds not served"
}

# cluster_up DIR: everything above; DIR is created (removed at exit unless CONF_KEEP=1).
cluster_up() {
  cluster_require
  CONF_WORK=$1
  rm -rf "$CONF_WORK"
  mkdir -p "$CONF_WORK"
  if [ "${CONF_KEEP:-0}" != 1 ]; then conf_at_exit "rm -rf '$CONF_WORK'"; fi
  CONF_AUDIT_LOG=$CONF_WORK/audit.log
  cluster_write_pki
  cluster_write_audit_policy
  cluster_start_etcd
  cluster_start_apiserver
  CONF_KUBECONFIG=$CONF_WORK/admin.kubeconfig
  cluster_kubeconfig admin "$CONF_KUBECONFIG"
  cluster_apply_crds
  export CONF_API CONF_KUBECONFIG CONF_AUDIT_LOG CONF_WORK
  conf_log "cluster up: $CONF_API ($("$RECON_KUBE_APISERVER" --version)), kubeconfig $CONF_KUBECONFIG, audit log $CONF_AUDIT_LOG"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  cluster_up "${1:-$(mktemp -d /tmp/recon-conformance-cluster.XXXXXX)}"
  echo "KUBECONFIG=$CONF_KUBECONFIG  audit log: $CONF_AUDIT_LOG  (Ctrl-C stops the cluster)"
  wait "$CONF_APISERVER_PID"
fi
