#!/usr/bin/env bash
# The simulated AAD beside the real Azure SDK for Go (ARO-RP bf96a7527b's
# vendored azidentity/MSAL), over TLS on port 443 under the real host name:
# `recon sim serve --arm --arm-port 443 --tls DIR`, /etc/hosts pointing
# login.microsoftonline.com at 127.0.0.1 for the run, SSL_CERT_FILE the CA,
# the service principal in AZURE_* as the operator's Deployment sets it.
# Needs root (port 443, /etc/hosts), Go 1.22 and an ARO-RP mirror; not part
# of the suite.  aad_check.sh RECON GIT_DIR [SCRATCH]
set -euo pipefail
RECON=${1:?usage: $0 RECON GIT_DIR [SCRATCH]}
GIT=${2:?usage: $0 RECON GIT_DIR [SCRATCH]}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=${3:-$(mktemp -d)}
WORK=$(mktemp -d)
if [ ! -f "$SRC/go.mod" ]; then
  GIT_INDEX_FILE="$SRC.index" git --git-dir="$GIT" --work-tree="$SRC" checkout bf96a7527b2931e27ae4a6c96803ac9aededda61 -- \
    go.mod go.sum pkg vendor ':(exclude)pkg/portal/assets' \
    ':(exclude)vendor/github.com/mattn/go-sqlite3/sqlite3-binding.c' \
    ':(exclude)vendor/sigs.k8s.io/kustomize/kyaml/openapi/kubernetesapi/v1212/swagger.json'
  rm -f "$SRC.index"
fi
mkdir -p "$SRC/reconaad" && cp "$HERE/recon_aad_test.go" "$SRC/reconaad/"
"$RECON" sim serve --port 0 --arm --arm-port 443 --tls "$WORK/tls" \
  --scenario "$(dirname "$HERE")/../../../examples/scenarios/aro-arm.json" --kubeconfig-out "$WORK/kc" >"$WORK/serve.out" 2>&1 &
SERVE=$!
cp /etc/hosts "$WORK/hosts.orig"
trap 'cp "$WORK/hosts.orig" /etc/hosts; kill $SERVE 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do [ -s "$WORK/kc" ] && break; sleep 0.1; done
echo "127.0.0.1 login.microsoftonline.com" >> /etc/hosts
cd "$SRC" && SSL_CERT_FILE="$WORK/tls/ca.crt" AZURE_CLIENT_ID=client-1 AZURE_TENANT_ID=tenant-1 \
  AZURE_CLIENT_SECRET="${SECRET:-secret-1}" PATH=/usr/lib/go-1.22/bin:$PATH GOTOOLCHAIN=local GOPROXY=off \
  GOFLAGS=-mod=vendor GOMAXPROCS=2 go test -count=1 -v -run '^TestReconAad$' ./reconaad/ 2>&1 | grep 'RECON-AAD'
