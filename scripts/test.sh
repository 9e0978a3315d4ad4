#!/usr/bin/env bash
# The whole test suite, on a fresh machine: installs what is missing, checks types, lint and
# formatting, starts the real infrastructure it needs, runs every test, and stops what it started.
LOG_PREFIX=test
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
log "static checks: types, lint (module boundaries), formatting"
npx tsc -p tsconfig.json --noEmit
npm run --silent lint
npx prettier --check . --log-level=warn
INFRA_STARTED_FILE="$STARTED_FILE" bash infra/bin/infra.sh up
node scripts/db/setup.mjs
log "running the tests ($(($(date +%s) - t0)) s of preparation)"
npx vitest run "$@"
