#!/usr/bin/env bash
# The full fault-tolerance suite (tests/faults, FAULTS=full): every fault, including broker loss
# on a three-node cluster with acks=all and acks=1 and a crash of each of the five services. It
# starts the shared infrastructure it needs (and stops what it started); the faults that break
# Kafka, Postgres or SMTP run on instances of their own. The table lands in reports/faults/.
LOG_PREFIX=test-faults
source "$(dirname "$0")/lib/common.sh"

begin_test_run
start_infra
REPORT_DIR="${FAULTS_REPORT_DIR:-reports/faults}"
rm -rf "$REPORT_DIR/rows"
log "running the fault suite ($(seconds_since_run_start) s of preparation)"
rc=0
FAULTS=full npx vitest run tests/faults tests/interop "$@" || rc=$?
# The table matters most when something failed: print what was recorded either way.
if [ -f "$REPORT_DIR/faults.md" ]; then
  log "table: $REPORT_DIR/faults.md"
  cat "$REPORT_DIR/faults.md"
fi
exit "$rc"
