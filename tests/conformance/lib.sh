# shellcheck shell=bash
# Shared helpers of the conformance harness (tests/conformance/README.md).
# Sourced by cluster.sh and the workload scripts; not part of CI.

CONF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$CONF_DIR/../.." && pwd)
export CONF_DIR REPO_ROOT

conf_log() { printf '[%(%H:%M:%S)T] %s\n' -1 "$*" >&2; }

conf_fail() {
  conf_log "FAIL: $*"
  exit 1
}

# conf_skip MESSAGE: the harness cannot run here; not a failure.
conf_skip() {
  echo "SKIP: $*"
  exit 0
}

# conf_need VAR HOW [DEFAULT]: VAR must name an executable (DEFAULT when unset).
# Skips, naming the variable and how to get the binary, when it does not.
conf_need() {
  local var=$1 how=$2 default=${3:-}
  local val=${!var:-$default}
  if [ -z "$val" ]; then
    conf_skip "$var is not set: $how (docs/conformance.md, \"Building the peers\")"
  fi
  if [ ! -x "$val" ] && ! command -v "$val" > /dev/null 2>&1; then
    conf_skip "$var=$val is not an executable: $how (docs/conformance.md, \"Building the peers\")"
  fi
  if [ ! -x "$val" ]; then val=$(command -v "$val"); fi
  printf -v "$var" '%s' "$val"
  export "${var?}"
}

# Cleanup stack: conf_at_exit 'command' registers; all run in reverse order on exit.
CONF_CLEANUP=()
conf_at_exit() { CONF_CLEANUP+=("$1"); }
conf_run_cleanup() {
  local i
  for ((i = ${#CONF_CLEANUP[@]} - 1; i >= 0; i--)); do
    eval "${CONF_CLEANUP[$i]}" || true
  done
  CONF_CLEANUP=()
}
trap conf_run_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# conf_stop PID [SECONDS]: SIGTERM a process we started, SIGKILL after SECONDS (10).
# Its exit status is left in CONF_STOP_RC.
export CONF_STOP_RC=0
conf_stop() {
  local pid=$1 limit=${2:-10} i
  CONF_STOP_RC=0
  if ! kill -0 "$pid" 2> /dev/null; then
    wait "$pid" 2> /dev/null || CONF_STOP_RC=$?
    return 0
  fi
  kill -TERM "$pid" 2> /dev/null || true
  for ((i = 0; i < limit * 10; i++)); do
    kill -0 "$pid" 2> /dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2> /dev/null; then
    conf_log "pid $pid still running after ${limit}s: SIGKILL"
    kill -KILL "$pid" 2> /dev/null || true
  fi
  wait "$pid" 2> /dev/null || CONF_STOP_RC=$?
}

# conf_free_port: a TCP port on 127.0.0.1 nobody listens on right now.
conf_free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# conf_wait DESCRIPTION SECONDS COMMAND...: polls COMMAND (every 0.5 s) until it
# succeeds; gives up after SECONDS, or at once when COMMAND exits 125 (it knows
# the condition can no longer come), with COMMAND's last output.
conf_wait() {
  local what=$1 limit=$2 out rc start=$SECONDS
  shift 2
  while true; do
    rc=0
    out=$("$@" 2>&1) || rc=$?
    if [ "$rc" = 0 ]; then
      conf_log "ok: $what ($((SECONDS - start))s)"
      return 0
    fi
    if [ "$rc" = 125 ]; then
      conf_log "gave up waiting for: $what"
      conf_log "last output: $out"
      return 1
    fi
    if ((SECONDS - start >= limit)); then
      conf_log "timed out after ${limit}s waiting for: $what"
      conf_log "last output: $out"
      return 1
    fi
    sleep 0.5
  done
}

# kc ARGS...: kubectl as the admin (the workload's own writes: field managers
# kubectl-create, kubectl-patch, ...).
kc() { "$RECON_KUBECTL" --kubeconfig "$CONF_KUBECONFIG" "$@"; }

# jp RESOURCE JSONPATH [ARGS...]: one field of one object ("" when absent).
jp() {
  local res=$1 path=$2
  shift 2
  kc get "$res" "$@" -o "jsonpath=$path"
}

# conf_eq WANT COMMAND...: COMMAND prints exactly WANT.
conf_eq() {
  local want=$1 got
  shift
  got=$("$@") || return 1
  [ "$got" = "$want" ] || {
    echo "got '$got', want '$want'"
    return 1
  }
}
