#!/usr/bin/env bash
# Each deploy variant is what the agent it runs needs (no kubectl needed):
#   - its RBAC file is exactly `recon rbac --domains D` for the domains its
#     Deployment passes (--domains=D), after the file's comment header;
#   - every flag its Deployment gives `recon agent` is one the agent knows.
# Variants: deploy/ (02-rbac.yaml, 04-deployment.yaml) and deploy/aro/.
set -euo pipefail
RECON="$1"
SRC="$2"
HELP="$("$RECON" agent --help 2>&1)"
check() {  # check NAME RBAC DEPLOYMENT
  local name=$1 rbac=$2 deployment=$3 domains derived deployed flag
  domains="$(sed -n 's/^ *- --domains=\(.*\)$/\1/p' "$deployment")"
  [ -n "$domains" ] || { echo "$name: no --domains= in $deployment"; exit 1; }
  derived="$("$RECON" rbac --domains "$domains")"
  # The file's header comment ends at the first document separator.
  deployed="$(sed -n '/^---$/,$p' "$rbac")"
  if [ "$derived" != "$deployed" ]; then
    echo "$name: $rbac is not \`recon rbac --domains $domains\`:"
    diff <(echo "$deployed") <(echo "$derived") || true
    exit 1
  fi
  # The agent's arguments: "- agent", then "- --flag[=value]" lines.
  grep -q '^ *- agent$' "$deployment" || { echo "$name: $deployment does not run recon agent"; exit 1; }
  for flag in $(sed -n 's/^ *- \(--[a-z-]*\).*$/\1/p' "$deployment"); do
    if ! grep -q -- "  $flag\b" <<<"$HELP"; then
      echo "$name: $deployment passes $flag, which recon agent --help does not list"
      exit 1
    fi
  done
  echo "$name: RBAC is recon rbac --domains $domains; $(sed -n 's/^ *- \(--[a-z-]*\).*$/\1/p' "$deployment" | wc -l) agent flags known"
}
check deploy "$SRC/deploy/02-rbac.yaml" "$SRC/deploy/04-deployment.yaml"
check deploy/aro "$SRC/deploy/aro/02-rbac.yaml" "$SRC/deploy/aro/04-deployment.yaml"
grep -q -- '- --azure$' "$SRC/deploy/aro/04-deployment.yaml" || { echo "deploy/aro: the agent runs without --azure"; exit 1; }
