#!/usr/bin/env bash
# scripts/check-layering passes on the repository and fails, naming file:line
# and the rule, on a copy with one new bad include, and on a stale exception;
# given the build's link graph, it passes on it and fails on one bad link.
#   tests/scripts/check_layering_test.sh SOURCE_DIR [BUILD_DIR/link-graph.tsv]
set -euo pipefail
src="${1:-$(cd "$(dirname "$0")/../.." && pwd)}"
graph="${2:-}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# The scanned folders' sources and the script, nothing else.
mkdir -p "$work/tree"
(cd "$src" && find base schema records store engine runtime cel crd domains adapters io shadow soak cli bench fuzz \
    -type f \( -name '*.h' -o -name '*.cc' \) -print0 | tar -c --null -T - -f -) | tar -x -C "$work/tree"
mkdir -p "$work/tree/scripts"
cp "$src/scripts/check-layering" "$src/scripts/layering-exceptions.txt" "$work/tree/scripts/"
check() { python3 "$work/tree/scripts/check-layering" --root "$work/tree" "$@"; }

out="$(check)" || fail "the unchanged copy should pass: $out"

# A domain including an adapter.
f="$work/tree/domains/samples/reducer.cc"
cp "$f" "$work/reducer.cc.orig"
printf '#include "adapters/k8s/paths.h"\n' >> "$f"
line=$(wc -l < "$f")
if out="$(check)"; then fail "a domain including an adapter passed: $out"; fi
grep -qF "domains/samples/reducer.cc:$line: #include \"adapters/k8s/paths.h\": a domain may include only" <<<"$out" \
  || fail "the report does not name the file, line and rule: $out"
cp "$work/reducer.cc.orig" "$f"

# A domain including another domain, and the engine core including the runtime.
printf '#include "domains/olm/catalog/model.h"\n' >> "$f"
if out="$(check)"; then fail "a domain including another domain passed: $out"; fi
cp "$work/reducer.cc.orig" "$f"
printf '#include "runtime/runtime.h"\n' >> "$work/tree/engine/world.h"
if out="$(check)"; then fail "the engine core including the runtime passed: $out"; fi
grep -qF 'engine/world.h' <<<"$out" || fail "engine/world.h not named: $out"
sed -i '$d' "$work/tree/engine/world.h"
out="$(check)" || fail "the restored copy should pass: $out"

# The store and the engine meet only in records/: the store including the
# engine is refused (the folder circle issue 51 removed).
printf '#include "engine/world.h"\n' >> "$work/tree/store/batch.h"
if out="$(check)"; then fail "the store including the engine passed: $out"; fi
grep -qF 'store/batch.h' <<<"$out" || fail "store/batch.h not named: $out"
sed -i '$d' "$work/tree/store/batch.h"

# A relative include is checked as the path it names.
printf '#include "../../adapters/k8s/paths.h"\n' >> "$f"
if out="$(check)"; then fail "a relative include of an adapter passed: $out"; fi
cp "$work/reducer.cc.orig" "$f"

# A new top-level folder of sources needs a rule before it passes.
mkdir -p "$work/tree/newlib" && printf 'int x;\n' > "$work/tree/newlib/x.cc"
if out="$(check)"; then fail "a folder without a rule passed: $out"; fi
grep -qF 'newlib/: a folder of C++ sources with no include rule' <<<"$out" || fail "newlib/ not named: $out"
rm -r "$work/tree/newlib"

# Within a domain split into libraries, a lower one including a higher one.
g="$work/tree/domains/olm/catalog/node.h"
cp "$g" "$work/node.h.orig"
printf '#include "domains/olm/resolve/solver.h"\n' >> "$g"
if out="$(check)"; then fail "olm's catalog library including its resolver passed: $out"; fi
grep -qF 'domains/olm/catalog/ may include only the libraries below it' <<<"$out" \
  || fail "the olm layer rule is not named: $out"
cp "$work/node.h.orig" "$g"
printf '#include "domains/olm/catalog/model.h"\n' >> "$work/tree/domains/olm/resolve/solver.h"
out="$(check)" || fail "olm's resolver including its catalog library should pass: $out"

# A listed exception lets its include pass; once the include is gone the
# line is stale and fails: the list only shrinks.
exceptions="$work/tree/scripts/layering-exceptions.txt"
printf 'adapters/sim/runner.h -> shadow/report.h  # the test'"'"'s own\n' >> "$exceptions"
if out="$(check)"; then fail "a stale exception passed: $out"; fi
grep -qF 'adapters/sim/runner.h -> shadow/report.h no longer happens' <<<"$out" \
  || fail "stale line not named: $out"
printf '#include "shadow/report.h"\n' >> "$work/tree/adapters/sim/runner.h"
out="$(check)" || fail "an excepted include should pass: $out"

# Links: the graph CMake wrote passes; one link the include rules forbid fails,
# naming the CMakeLists.txt, both targets and the rule.
if [ -n "$graph" ]; then
  out="$(check --links "$graph")" || fail "the build's link graph should pass: $out"
  bad_link() {  # target dep: a copy of the graph where target also links dep
    awk -v t="$1" -v d="$2" 'BEGIN { FS = OFS = "\t" } $1 == t { $4 = ($4 == "" ? d : $4 ";" d) } { print }' \
      "$graph" > "$work/graph.tsv"
  }
  bad_link recon_samples recon_k8s
  if out="$(check --links "$work/graph.tsv")"; then fail "a domain linking an adapter passed: $out"; fi
  grep -qF "domains/samples/CMakeLists.txt: recon_samples links recon_k8s: a domain may include only" <<<"$out" \
    || fail "the bad link is not named with its rule: $out"
  bad_link recon_engine recon_runtime
  if out="$(check --links "$work/graph.tsv")"; then fail "the engine core linking the runtime passed: $out"; fi
  bad_link recon_olm_catalog recon_olm_resolve
  if out="$(check --links "$work/graph.tsv")"; then fail "olm's catalog linking its resolver passed: $out"; fi
  grep -qF "recon_olm_catalog links recon_olm_resolve" <<<"$out" || fail "the olm layer link is not named: $out"
  printf 'broken line\n' > "$work/graph.tsv"
  if out="$(check --links "$work/graph.tsv")"; then fail "a malformed graph passed: $out"; fi
fi
echo "ok"
