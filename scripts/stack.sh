#!/usr/bin/env bash
# The whole pipeline on this machine, without Docker:
# Kafka, the mail sink, the trace backend, migrated databases, topics and the five services.
# Ctrl-C stops everything this script started.
LOG_PREFIX=stack
source "$(dirname "$0")/lib/common.sh"
source "$REPO_ROOT/scripts/lib/services.sh"

RUN_DIR="$REPO_ROOT/.run/services"
STARTED_FILE="$REPO_ROOT/.run/stack-infra-started"
mkdir -p "$RUN_DIR"
: >"$STARTED_FILE"
declare -A PIDS=()
started_at=$(date +%s)

shutdown() {
  trap - INT TERM EXIT
  # Finish the shutdown even when the terminal or a pipe reading our output is gone:
  # output goes through `tee -p` into a log file, which survives a broken stdout.
  trap '' PIPE HUP
  set +e
  {
    log "stopping services"
    for name in "${!PIDS[@]}"; do kill -TERM "${PIDS[$name]}" 2>/dev/null; done
    for name in "${!PIDS[@]}"; do
      for _ in $(seq 1 100); do kill -0 "${PIDS[$name]}" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "${PIDS[$name]}" 2>/dev/null
    done
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
trap 'shutdown; exit 143' TERM
trap shutdown EXIT

ensure_dependencies
ensure_postgres
build_all
INFRA_STARTED_FILE="$STARTED_FILE" bash infra/bin/infra.sh up
node scripts/db/setup.mjs
node dist/tools/provision-topics.js

for name in "${SERVICES[@]}"; do
  # setsid: the services get Ctrl-C from this script's shutdown, in order, not from the terminal.
  mapfile -t service_vars < <(service_env "$name")
  env "${service_vars[@]}" setsid node "dist/apps/$name-service/src/main.js" >"$RUN_DIR/$name.log" 2>&1 &
  PIDS[$name]=$!
done

for name in "${SERVICES[@]}"; do
  url="http://127.0.0.1:${SERVICE_PORT[$name]}/health/ready"
  for _ in $(seq 1 300); do
    curl -fs -o /dev/null "$url" && break
    if ! kill -0 "${PIDS[$name]}" 2>/dev/null; then
      log "$name-service exited during start-up; the end of $RUN_DIR/$name.log:" >&2
      tail -n 20 "$RUN_DIR/$name.log" >&2
      exit 1
    fi
    sleep 0.2
  done
  curl -fs -o /dev/null "$url" || { log "$name-service not ready after 60 s (log: $RUN_DIR/$name.log)" >&2; exit 1; }
done

cat <<INFO

  The pipeline is up ($(($(date +%s) - started_at)) s).

  order-service      http://127.0.0.1:3000
  payment-service    http://127.0.0.1:3001
  inventory-service  http://127.0.0.1:3002
  email-service      http://127.0.0.1:3003
  analytics-service  http://127.0.0.1:3004
  health             http://127.0.0.1:300N/health/ready
  mail UI            http://127.0.0.1:1080
  traces (Zipkin)    http://127.0.0.1:9411
  Kafka              127.0.0.1:9092   (npm run kafka:topics -- --list)
  service logs       .run/services/<name>.log

  Ctrl-C stops everything this command started.

INFO

# Stay in the foreground until Ctrl-C or until a service dies.
while true; do
  for name in "${!PIDS[@]}"; do
    if ! kill -0 "${PIDS[$name]}" 2>/dev/null; then
      log "$name-service stopped unexpectedly; the end of its log:" >&2
      tail -n 20 "$RUN_DIR/$name.log" >&2
      exit 1
    fi
  done
  sleep 1
done
