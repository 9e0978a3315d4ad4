#!/usr/bin/env bash
# npm run bench [-- --quick]: builds, starts what infrastructure is missing (Kafka, Zipkin), runs
# the benchmark (tools/bench) against a fresh copy of the pipeline, and stops what it started.
# KAFKA_BROKERS (127.0.0.1:9092) says where Kafka is; a missing one is started on that port. The
# bench runs its own counting mail sink; BENCH_MAIL_SINK=external sends to SMTP_URL
# (smtp://127.0.0.1:1025) instead, starting maildev there if nothing answers.
# BENCH_REUSE_INFRA=1: start nothing, whatever answers.
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
# What already answers is used as it is (a developer's stack, or one from another checkout);
# what does not is started here and stopped at the end.
answers() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }
export KAFKA_BROKERS="${KAFKA_BROKERS:-127.0.0.1:9092}" SMTP_URL="${SMTP_URL:-smtp://127.0.0.1:1025}"
broker="${KAFKA_BROKERS%%,*}"
smtp="${SMTP_URL#smtp://}"
smtp="${smtp%%/*}"
export KAFKA_PORT="${KAFKA_PORT:-${broker##*:}}" MAILDEV_SMTP_PORT="${MAILDEV_SMTP_PORT:-${smtp##*:}}"
missing=()
if [ "${BENCH_REUSE_INFRA:-0}" = 1 ] || answers "${broker%:*}" "${broker##*:}"; then
  log "using the Kafka that answers at $broker"
else
  missing+=(kafka)
fi
if [ "${BENCH_MAIL_SINK:-counting}" != external ]; then
  log "mail goes to the bench's counting SMTP sink (BENCH_MAIL_SINK=external: to $smtp)"
elif [ "${BENCH_REUSE_INFRA:-0}" = 1 ] || answers "${smtp%:*}" "${smtp##*:}"; then
  log "using the SMTP server that answers at $smtp"
else
  missing+=(maildev)
fi
if [ "${BENCH_REUSE_INFRA:-0}" = 1 ] || [ "${BENCH_TRACE_RATIO:-0.01}" = 0 ] || answers 127.0.0.1 "${ZIPKIN_PORT:-9411}"; then
  log "traces go to the Zipkin at 127.0.0.1:${ZIPKIN_PORT:-9411} (or nowhere with BENCH_TRACE_RATIO=0)"
else
  missing+=(zipkin)
fi
if [ ${#missing[@]} -gt 0 ]; then
  INFRA_STARTED_FILE="$STARTED_FILE" bash infra/bin/infra.sh up "${missing[@]}"
fi
# Kafka's perf tools need the broker jars; fetch them now (once), not in the middle of the run.
bash infra/bin/kafka.sh fetch >/dev/null 2>&1 || true
node dist/tools/bench/main.js "$@"
