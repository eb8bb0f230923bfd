# Sourced by the kubectl script tests: exits 77 (ctest SKIP) unless a kubectl
# client >= 1.27 is on PATH. The simulated server serves /openapi/v3 only,
# which kubectl uses for validation from 1.27 on; Debian 12's
# kubernetes-client is 1.20.
if ! command -v kubectl >/dev/null 2>&1; then
  echo "SKIP: kubectl is not on PATH"
  exit 77
fi
KMINOR=$(kubectl version --client -o json 2>/dev/null | sed -n 's/.*"minor": *"\([0-9]*\).*/\1/p' | head -1)
if [ -z "$KMINOR" ] || [ "$KMINOR" -lt 27 ]; then
  echo "SKIP: kubectl client 1.${KMINOR:-?} is older than 1.27 (needs /openapi/v3)"
  exit 77
fi
