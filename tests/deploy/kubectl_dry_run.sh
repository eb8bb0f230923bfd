#!/usr/bin/env bash
# `kubectl apply --dry-run=client -f deploy/` accepts the manifests, and the
# aro variant (deploy/ with deploy/aro/ in place of the files it names). kubectl
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
# dry_run NAME DIR: kubectl accepts every document of DIR/*.yaml.
dry_run() {
  local out docs lines
  out="$(kubectl apply --dry-run=client -f "$2/" 2>&1)" || {
    echo "$1: $out"
    exit 1
  }
  echo "$out"
  # One "configured/created (dry run)" line per document.
  docs="$(cat "$2"/*.yaml | grep -c '^kind:')"
  lines="$(echo "$out" | grep -c '(dry run)')"
  if [ "$docs" != "$lines" ]; then
    echo "$1: expected $docs accepted objects, kubectl reported $lines"
    exit 1
  fi
  echo "$1: $docs objects accepted"
}
dry_run deploy "$SRC/deploy"
# The aro variant: deploy/ with deploy/aro/'s files in place of those of
# the same names, as its README says to apply it.
mkdir "$WORK/aro"
cp "$SRC"/deploy/*.yaml "$WORK/aro/"
[ -n "$(ls "$SRC"/deploy/aro/*.yaml)" ] || { echo "deploy/aro/ has no manifests"; exit 1; }
for f in "$SRC"/deploy/aro/*.yaml; do
  [ -f "$SRC/deploy/$(basename "$f")" ] || { echo "deploy/aro/$(basename "$f") replaces nothing in deploy/"; exit 1; }
  cp "$f" "$WORK/aro/"
done
dry_run deploy/aro "$WORK/aro"
