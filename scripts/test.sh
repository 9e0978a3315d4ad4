#!/usr/bin/env bash
# The whole test suite, on a fresh machine: installs what is missing, checks types, lint and
# formatting, starts the real infrastructure it needs, runs every test, and stops what it started.
LOG_PREFIX=test
source "$(dirname "$0")/lib/common.sh"

begin_test_run
log "static checks: types, lint (module boundaries), formatting"
npx tsc -p tsconfig.json --noEmit
npm run --silent lint
npx prettier --check . --log-level=warn
start_infra
node scripts/db/setup.mjs
log "running the tests ($(seconds_since_run_start) s of preparation)"
npx vitest run "$@"
