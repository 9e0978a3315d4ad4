#!/usr/bin/env bash
# The full fault-tolerance suite (tests/faults, FAULTS=full): every fault, including broker loss
# on a three-node cluster with acks=all and acks=1 and a crash of each of the five services. It
# starts the shared infrastructure it needs (and stops what it started); the faults that break
# Kafka, Postgres or SMTP run on instances of their own. The table lands in reports/faults/.
LOG_PREFIX=test-faults
source "$(dirname "$0")/lib/common.sh"

begin_test_run
start_infra
rm -rf reports/faults/rows
log "running the fault suite ($(seconds_since_run_start) s of preparation)"
FAULTS=full npx vitest run tests/faults "$@"
log "table: reports/faults/faults.md"
cat reports/faults/faults.md
