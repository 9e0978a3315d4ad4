#!/usr/bin/env bash
# npm run bench [-- --quick]: builds, starts what infrastructure is missing (Kafka, the mail sink),
# runs the benchmark (tools/bench) against a fresh copy of the pipeline, and stops what it started.
# BENCH_REUSE_INFRA=1: start nothing; use the Kafka at KAFKA_BROKERS and the SMTP server at
# SMTP_URL that are already running (e.g. started from another checkout).
LOG_PREFIX=bench
source "$(dirname "$0")/lib/common.sh"

STARTED_FILE="$REPO_ROOT/.run/bench-infra-started"
mkdir -p "$REPO_ROOT/.run"
: >"$STARTED_FILE"

cleanup() {
  trap - INT TERM EXIT
  if [ -s "$STARTED_FILE" ]; then
    log "stopping infrastructure: $(tr '\n' ' ' <"$STARTED_FILE")"
    # shellcheck disable=SC2046
    bash infra/bin/infra.sh down $(cat "$STARTED_FILE") || true
  fi
  rm -f "$STARTED_FILE"
}
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM
trap cleanup EXIT

ensure_dependencies
ensure_postgres
build_all
if [ "${BENCH_REUSE_INFRA:-0}" = 1 ]; then
  log "BENCH_REUSE_INFRA=1: using the running Kafka at ${KAFKA_BROKERS:-127.0.0.1:9092}"
else
  INFRA_STARTED_FILE="$STARTED_FILE" bash infra/bin/infra.sh up kafka maildev
fi
# Kafka's perf tools need the broker jars; fetch them now (once), not in the middle of the run.
bash infra/bin/kafka.sh fetch >/dev/null 2>&1 || true
node --disable-warning=TimeoutNegativeWarning dist/tools/bench/main.js "$@"
