#!/usr/bin/env bash
# Builds olm-resolver-peer (main.go beside this script) inside OLM v0.24.0's
# source tree, offline, from OLM's vendored modules only: the peer
# `recon bench olm --peer PATH` races recon's resolver against.
#
#   bench/peers/olm-resolver/build.sh GIT_DIR [OUT]
#
# GIT_DIR: a clone or bare mirror of
#   https://github.com/operator-framework/operator-lifecycle-manager
#   holding tag v0.24.0 (e.g. `git clone --bare <url> olm.git`).
# OUT: where the binary goes (default build/peers/olm-resolver-peer under the
#   repository). The source tree is exported next to it and kept for reading.
#
# Needs Go >= 1.19 (Debian bookworm: apt-get install -y golang-go) and git.
# Nothing is downloaded (GOPROXY=off, -mod=vendor). ~4 minutes on 2 cores.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
GIT_DIR=${1:?usage: build.sh GIT_DIR [OUT]  (GIT_DIR: operator-lifecycle-manager clone or mirror)}
OUT=${2:-$ROOT/build/peers/olm-resolver-peer}
TAG=v0.24.0
command -v go >/dev/null || { echo "build.sh: go not found (apt-get install -y golang-go)" >&2; exit 1; }
git --git-dir="$GIT_DIR" rev-parse -q --verify "$TAG^{commit}" >/dev/null 2>&1 ||
  git -C "$GIT_DIR" rev-parse -q --verify "$TAG^{commit}" >/dev/null 2>&1 ||
  { echo "build.sh: $GIT_DIR has no tag $TAG" >&2; exit 1; }
[ -d "$GIT_DIR/.git" ] && GIT_DIR=$GIT_DIR/.git

SRC=$(dirname "$OUT")/operator-lifecycle-manager-$TAG
rm -rf "$SRC"
mkdir -p "$SRC"
# Some mirrors lack go-sqlite3's 8 MB amalgamation; nothing on the
# resolver's path compiles it (CGO is off), so it is left out.
# (git still names the missing object on stderr: the count below is the check.)
SKIP=vendor/github.com/mattn/go-sqlite3/sqlite3-binding.c
git --git-dir="$GIT_DIR" archive "$TAG" -- . ":(exclude)$SKIP" 2>"$SRC.archive.log" | tar -x -C "$SRC"
want=$(git --git-dir="$GIT_DIR" ls-tree -r "$TAG" | grep -vc "$SKIP\$")
have=$(cd "$SRC" && find . -type f -o -type l | wc -l)
[ "$want" = "$have" ] || { echo "build.sh: exported $have of $want files of $TAG ($SRC.archive.log)" >&2; exit 1; }
mkdir -p "$SRC/cmd/olm-resolver-peer"
cp "$HERE/main.go" "$SRC/cmd/olm-resolver-peer/main.go"
export GOPROXY=off GOFLAGS=-mod=vendor CGO_ENABLED=0
export GOCACHE=${GOCACHE:-$(dirname "$OUT")/.gocache}
(cd "$SRC" && nice -n 19 go build -o "$OUT" ./cmd/olm-resolver-peer)
echo "built $OUT ($(go version | cut -d' ' -f3), OLM $TAG $(git --git-dir="$GIT_DIR" rev-parse --short "$TAG^{commit}"))"
