#!/usr/bin/env bash
# npm run soak [-- --minutes 30] [--rate r]: builds, then soaks the local stack (tools/soak). A
# stack whose five services answer is used as it is; otherwise this starts one as `npm run stack`
# does (the infrastructure that does not answer, databases, topics, then the supervised services
# and console, given SOAK_STACK_ARGS) and stops what it started at the end. Its output goes to
# .run/soak-stack.log.
LOG_PREFIX=soak
source "$(dirname "$0")/lib/common.sh"

STARTED_FILE="$REPO_ROOT/.run/soak-infra-started"
mkdir -p "$REPO_ROOT/.run"
SUPERVISOR_PID=""

# shellcheck disable=SC2317 # runs from the traps
cleanup() {
  trap - INT TERM EXIT
  if [ -n "$SUPERVISOR_PID" ] && kill -0 "$SUPERVISOR_PID" 2>/dev/null; then
    log "stopping the stack this run started"
    kill -TERM "$SUPERVISOR_PID" 2>/dev/null
    # It SIGKILLs a process 10 s after SIGTERM, so it is gone within about 12 s.
    for _ in $(seq 1 150); do kill -0 "$SUPERVISOR_PID" 2>/dev/null || break; sleep 0.1; done
  fi
  if [ -s "$STARTED_FILE" ]; then
    log "stopping infrastructure: $(tr '\n' ' ' <"$STARTED_FILE")"
    # shellcheck disable=SC2046
    bash infra/bin/infra.sh down $(cat "$STARTED_FILE") || true
  fi
  rm -f "$STARTED_FILE"
}

ensure_dependencies
ensure_postgres
build_all
# --help and bad arguments answer before any stack is started.
for arg in "$@"; do case "$arg" in -h | --help) exec node dist/tools/soak/main.js --help ;; esac; done
node dist/tools/soak/main.js --check-args "$@"

: >"$STARTED_FILE"
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM
trap cleanup EXIT

answers() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }
stack_ready() {
  local port
  for port in 3000 3001 3002 3003 3004; do
    curl -fs -o /dev/null --max-time 2 "http://127.0.0.1:$port/health/ready" || return 1
  done
}

if stack_ready; then
  log "using the stack that answers on 127.0.0.1:3000-3004"
else
  export KAFKA_BROKERS="${KAFKA_BROKERS:-127.0.0.1:9092}" SMTP_URL="${SMTP_URL:-smtp://127.0.0.1:1025}"
  broker="${KAFKA_BROKERS%%,*}"
  smtp="${SMTP_URL#smtp://}"
  smtp="${smtp%%/*}"
  export KAFKA_PORT="${KAFKA_PORT:-${broker##*:}}" MAILDEV_SMTP_PORT="${MAILDEV_SMTP_PORT:-${smtp##*:}}"
  # What already answers is used (a developer's infrastructure, or one from another checkout).
  missing=()
  answers "${broker%:*}" "${broker##*:}" || missing+=(kafka)
  answers "${smtp%:*}" "${smtp##*:}" || missing+=(maildev)
  answers 127.0.0.1 "${ZIPKIN_PORT:-9411}" || missing+=(zipkin)
  if [ ${#missing[@]} -gt 0 ]; then
    INFRA_STARTED_FILE="$STARTED_FILE" bash infra/bin/infra.sh up "${missing[@]}"
  fi
  node scripts/db/setup.mjs
  node dist/tools/provision-topics.js
  log "starting the stack (node dist/tools/stack/main.js ${SOAK_STACK_ARGS:-}; output in .run/soak-stack.log)"
  # shellcheck disable=SC2086 # SOAK_STACK_ARGS is a list of arguments
  setsid node dist/tools/stack/main.js ${SOAK_STACK_ARGS:-} >"$REPO_ROOT/.run/soak-stack.log" 2>&1 &
  SUPERVISOR_PID=$!
  for _ in $(seq 1 180); do
    kill -0 "$SUPERVISOR_PID" 2>/dev/null || { tail -n 20 .run/soak-stack.log >&2; exit 1; }
    stack_ready && break
    sleep 1
  done
  stack_ready || { log "the stack was not ready after 180 s (.run/soak-stack.log)" >&2; exit 1; }
  log "stack ready"
fi
node dist/tools/soak/main.js "$@"
