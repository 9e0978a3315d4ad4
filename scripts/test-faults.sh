#!/usr/bin/env bash
# The full fault-tolerance suite (tests/faults, FAULTS=full): every fault, including broker loss
# on a three-node cluster with acks=all and acks=1 and a crash of each of the five services. It
# starts the shared infrastructure it needs (and stops what it started); the faults that break
# Kafka, Postgres or SMTP run on instances of their own. The table lands in reports/faults/.
LOG_PREFIX=test-faults
source "$(dirname "$0")/lib/common.sh"

STARTED_FILE="$(mktemp)"
cleanup() {
  local rc=$?
  if [ -s "$STARTED_FILE" ]; then
    log "stopping the infrastructure this run started: $(tr '\n' ' ' <"$STARTED_FILE")"
    # shellcheck disable=SC2046
    bash infra/bin/infra.sh down $(cat "$STARTED_FILE") || true
  fi
  rm -f "$STARTED_FILE"
  exit "$rc"
}
trap cleanup EXIT

t0=$(date +%s)
ensure_dependencies
ensure_postgres
build_all
INFRA_STARTED_FILE="$STARTED_FILE" bash infra/bin/infra.sh up
rm -rf reports/faults/rows
log "running the fault suite ($(($(date +%s) - t0)) s of preparation)"
FAULTS=full npx vitest run tests/faults "$@"
log "table: reports/faults/faults.md"
cat reports/faults/faults.md
