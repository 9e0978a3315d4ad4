#!/usr/bin/env bash
# The whole pipeline on this machine, without Docker: Kafka, the mail sink, the trace backend,
# migrated databases and topics, then the five services and the console under a supervisor that
# restarts a service that dies (tools/stack/main.ts; docs/local-stack.md). Arguments go to it:
#   npm run stack -- --instances payment=2 [--no-console]
# Ctrl-C stops the services, then the infrastructure this script started.
LOG_PREFIX=stack
source "$(dirname "$0")/lib/common.sh"

STARTED_FILE="$REPO_ROOT/.run/stack-infra-started"
mkdir -p "$REPO_ROOT/.run"
: >"$STARTED_FILE"
SUPERVISOR_PID=""

# Only when this script exits while the supervisor still runs (an error, a signal before it was
# started): the normal path waits for it below.
# shellcheck disable=SC2317 # stop_supervisor and shutdown run from the traps
stop_supervisor() {
  if [ -z "$SUPERVISOR_PID" ] || ! kill -0 "$SUPERVISOR_PID" 2>/dev/null; then return 0; fi
  log "stopping the services"
  kill -TERM "$SUPERVISOR_PID" 2>/dev/null
  # It SIGKILLs a service 10 s after SIGTERM, so it is gone within about 12 s.
  for _ in $(seq 1 150); do kill -0 "$SUPERVISOR_PID" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$SUPERVISOR_PID" 2>/dev/null
}

# shellcheck disable=SC2317
shutdown() {
  trap - EXIT
  # A second Ctrl-C (npm forwards its own as well) must not cut the shutdown short; nor may a
  # closed terminal or pipe: output goes through `tee -p` into a log file, which survives it.
  trap '' INT TERM HUP PIPE
  set +e
  stop_supervisor
  {
    if [ -s "$STARTED_FILE" ]; then
      log "stopping infrastructure: $(tr '\n' ' ' <"$STARTED_FILE")"
      # shellcheck disable=SC2046
      bash infra/bin/infra.sh down $(cat "$STARTED_FILE")
    fi
    rm -f "$STARTED_FILE"
    log "stopped"
  } 2>&1 | tee -p -a "$REPO_ROOT/.run/stack-shutdown.log"
}
trap 'shutdown; exit 130' INT
trap 'shutdown; exit 143' TERM HUP
trap shutdown EXIT

ensure_dependencies
ensure_postgres
build_all
INFRA_STARTED_FILE="$STARTED_FILE" bash infra/bin/infra.sh up
node scripts/db/setup.mjs
node dist/tools/provision-topics.js

# setsid: a terminal's Ctrl-C reaches the supervisor only through this script, once, so that the
# services stop before the infrastructure does, whether the signal came from the terminal or
# from `kill <this script's pid>`.
setsid node dist/tools/stack/main.js "$@" &
SUPERVISOR_PID=$!
signal_code=""
trap 'signal_code=130; kill -INT "$SUPERVISOR_PID" 2>/dev/null || true' INT
trap 'signal_code=143; kill -TERM "$SUPERVISOR_PID" 2>/dev/null || true' TERM HUP
# `wait` returns early when a trapped signal arrives: wait again until the supervisor is gone.
while :; do
  supervisor_code=0
  wait "$SUPERVISOR_PID" || supervisor_code=$?
  kill -0 "$SUPERVISOR_PID" 2>/dev/null || break
done
SUPERVISOR_PID=""
exit "${signal_code:-$supervisor_code}"
