#!/usr/bin/env bash
# scripts/check-sizes passes on the repository and fails, naming the file
# (and function) and the limit, on a copy with a function over 120 lines, a
# file over 600, or an exception that no longer applies.
#   tests/scripts/check_sizes_test.sh SOURCE_DIR
set -euo pipefail
src="${1:-$(cd "$(dirname "$0")/../.." && pwd)}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir -p "$work/tree"
(cd "$src" && find base schema store engine runtime cel crd domains adapters io shadow soak cli bench fuzz tests \
    -type f \( -name '*.h' -o -name '*.cc' \) -print0 | tar -c --null -T - -f -) | tar -x -C "$work/tree"
mkdir -p "$work/tree/scripts"
cp "$src/scripts/check-sizes" "$src/scripts/size-exceptions.txt" "$work/tree/scripts/"
check() { python3 "$work/tree/scripts/check-sizes" --root "$work/tree" "$@"; }

out="$(check)" || fail "the unchanged copy should pass: $out"

# A function of 130 lines (with a lambda and a string holding braces inside).
f="$work/tree/base/long_function.cc"
{
  echo 'namespace recon {'
  echo 'int LongFunction(int x) {'
  echo '  auto twice = [](int y) { return 2 * y; };'
  echo '  const char* braces = "}}}{";'
  for i in $(seq 1 125); do echo "  x += twice($i);"; done
  echo '  return x + (braces[0] == 0);'
  echo '}'
  echo '}  // namespace recon'
} > "$f"
if out="$(check)"; then fail "a 130-line function passed: $out"; fi
grep -qF "base/long_function.cc:2: LongFunction: 130 lines, over 120" <<<"$out" || fail "not named: $out"
rm "$f"

# A file of 601 lines.
f="$work/tree/base/long_file.h"
for i in $(seq 1 601); do echo "// line $i"; done > "$f"
if out="$(check)"; then fail "a 601-line file passed: $out"; fi
grep -qF "base/long_file.h: 601 lines, over 600" <<<"$out" || fail "not named: $out"
rm "$f"

# An exception whose function is gone is stale: the list only shrinks.
echo 'base/strings.cc NoSuchFunction  # a stale line' >> "$work/tree/scripts/size-exceptions.txt"
if out="$(check)"; then fail "a stale exception passed: $out"; fi
grep -qF "base/strings.cc NoSuchFunction is within the limits now (or gone)" <<<"$out" || fail "stale line not named: $out"
echo "ok"
