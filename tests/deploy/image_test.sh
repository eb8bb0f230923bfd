#!/usr/bin/env bash
# scripts/image's runtime root filesystem runs recon without a container
# runtime: built with mmdebstrap from Debian's packages, then recon is run
# inside it with chroot: --version, every shared library found (ldd), a
# scenario replayed byte for byte as outside, and the agent on the
# simulated cluster until it converges, as the image's non-root user.
#   image_test.sh RECON_BIN SOURCE_DIR
set -euo pipefail
BIN="$1"
SRC="$2"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# chroot needs root; a user namespace gives it to anyone else.
if [ "$(id -u)" -eq 0 ]; then in_root=(chroot); else in_root=(unshare --map-root-user chroot); fi
ROOT="$WORK/rootfs"
RECON_BIN="$BIN" "$SRC/scripts/image" --rootfs "$ROOT" --rootfs-only

missing=$("${in_root[@]}" "$ROOT" ldd /usr/bin/recon | grep "not found" || true)
[ -z "$missing" ] || fail "libraries missing in the image: $missing"

version=$("${in_root[@]}" "$ROOT" /usr/bin/recon --version)
grep -q "^recon " <<<"$version" || fail "recon --version in the image printed: $version"

# The same scenario, inside and outside: the same bytes.
scenario=tests/scenarios/samples/removal_waits_then_gives_up
cp "$SRC/$scenario.jsonl" "$ROOT/tmp/scenario.jsonl"
inside=$("${in_root[@]}" "$ROOT" /usr/bin/recon replay /tmp/scenario.jsonl --domains samples | sha256sum)
outside=$("$BIN" replay "$SRC/$scenario.jsonl" --domains samples | sha256sum)
[ "$inside" = "$outside" ] || fail "replay in the image differs from the build's"

# The agent as the image's user (10001), on the simulated cluster, with the
# samples inventory where deploy/ expects it in the image.
cp -r "$SRC/examples/scenarios" "$ROOT/tmp/scenarios"
agent=(/usr/bin/recon agent --cluster sim --scenario /tmp/scenarios/samples-removed.json
  --store /var/lib/recon/store --durability nosync --until-converged)
if [ "$(id -u)" -eq 0 ]; then
  out=$(chroot --userspec=10001:10001 "$ROOT" "${agent[@]}" 2>&1) || fail "agent in the image: $out"
else
  out=$("${in_root[@]}" "$ROOT" "${agent[@]}" 2>&1) || fail "agent in the image: $out"
fi
grep -q "converged after" <<<"$out" || fail "the agent in the image did not converge: $out"
[ -d "$ROOT/usr/share/recon/samples/ocp-x86_64" ] || fail "no samples inventory at /usr/share/recon/samples/ocp-x86_64"
echo "image root filesystem: ldd complete, --version, replay identical, agent converged as uid 10001"
