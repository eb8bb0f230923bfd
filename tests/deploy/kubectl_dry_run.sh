#!/usr/bin/env bash
# `kubectl apply --dry-run=client -f deploy/` accepts the manifests. kubectl
# needs an API server for discovery even in client dry-run: a simulated one
# (`recon sim serve`) answers. Exit 77 (skipped) when kubectl is absent.
set -euo pipefail
RECON="$1"
SRC="$2"
. "$(dirname "$0")/../lib/kubectl.sh"
WORK="$(mktemp -d)"
trap 'kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; rm -rf "$WORK"' EXIT
"$RECON" sim serve --port 0 --kubeconfig-out "$WORK/kubeconfig" >"$WORK/serve.log" 2>&1 &
SERVER=$!
for _ in $(seq 1 100); do
  [ -s "$WORK/kubeconfig" ] && break
  sleep 0.1
done
if [ ! -s "$WORK/kubeconfig" ]; then
  echo "recon sim serve did not start:"
  cat "$WORK/serve.log"
  exit 1
fi
export KUBECONFIG="$WORK/kubeconfig"
# The sim serves only a minimal /openapi/v3 (no schemas), so this checks
# that the YAML parses and every kind maps to a served resource
# (discovery), not the fields.
OUT="$(kubectl apply --dry-run=client -f "$SRC/deploy/" 2>&1)" || {
  echo "$OUT"
  exit 1
}
echo "$OUT"
# Every document in deploy/ was accepted (one "configured/created (dry run)" line each).
DOCS="$(cat "$SRC"/deploy/*.yaml | grep -c '^kind:')"
LINES="$(echo "$OUT" | grep -c '(dry run)')"
if [ "$DOCS" != "$LINES" ]; then
  echo "expected $DOCS accepted objects, kubectl reported $LINES"
  exit 1
fi
