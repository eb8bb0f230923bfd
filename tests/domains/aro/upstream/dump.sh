#!/usr/bin/env bash
# Regenerates geneva_objects.json: what the real ARO operator's Geneva
# logging reconcile (Azure/ARO-RP at bf96a7527b, the version recon's aro
# domain follows) writes for geneva_inputs.json. Runs upstream's own code:
# recon_dump_test.go is copied into its genevalogging package and run with
# `go test` from its vendored modules (no network). Needs Go 1.22 (Debian
# bookworm-backports: golang-1.22-go).
#   dump.sh GIT_DIR [SCRATCH]     GIT_DIR: a clone or bare mirror of Azure/ARO-RP
set -euo pipefail
GIT=${1:?usage: $0 GIT_DIR [SCRATCH]}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=${2:-$(mktemp -d)}
COMMIT=bf96a7527b2931e27ae4a6c96803ac9aededda61
if [ ! -f "$SRC/go.mod" ]; then
  # A private index: the mirror's own is left alone. Three large blobs some
  # mirrors lack are not needed.
  GIT_INDEX_FILE="$SRC.index" git --git-dir="$GIT" --work-tree="$SRC" checkout "$COMMIT" -- go.mod go.sum pkg vendor \
    ':(exclude)pkg/portal/assets' ':(exclude)vendor/github.com/mattn/go-sqlite3/sqlite3-binding.c' \
    ':(exclude)vendor/sigs.k8s.io/kustomize/kyaml/openapi/kubernetesapi/v1212/swagger.json'
  rm -f "$SRC.index"
fi
PKG=pkg/operator/controllers/genevalogging
cp "$HERE/recon_dump_test.go" "$SRC/$PKG/"
# Upstream's own tests there import test helpers outside the checkout.
rm -f "$SRC/$PKG/genevalogging_test.go"
cd "$SRC" && PATH=/usr/lib/go-1.22/bin:$PATH GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-mod=vendor GOMAXPROCS=2 \
  RECON_INPUTS="$HERE/geneva_inputs.json" RECON_OUTPUT="$HERE/geneva_objects.json" \
  go test -count=1 -run '^TestReconDump$' "./$PKG/"
echo "wrote $HERE/geneva_objects.json"
