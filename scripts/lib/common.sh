# Sourced by the top-level scripts: Node 24, dependencies, generated clients and a build; for the
# test runs, the infrastructure they start is stopped again on exit.
set -euo pipefail
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$REPO_ROOT"
# shellcheck source=../ensure-node.sh
source "$REPO_ROOT/scripts/ensure-node.sh"
export PGHOST="${PGHOST:-127.0.0.1}" PGPORT="${PGPORT:-5432}" PGUSER="${PGUSER:-postgres}"
export NX_DAEMON=false NX_NO_CLOUD=true

log() { printf '[%s] %s\n' "${LOG_PREFIX:-pipeline}" "$*"; }

ensure_dependencies() {
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    log "installing npm packages (npm ci)"
    npm ci --no-audit --no-fund --loglevel=error
  fi
}

ensure_postgres() {
  if pg_isready -q -h "$PGHOST" -p "$PGPORT"; then return 0; fi
  if command -v pg_ctlcluster >/dev/null && [ "$PGHOST" = 127.0.0.1 ]; then
    log "PostgreSQL is not answering; starting the local cluster"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start
  fi
  for _ in $(seq 1 30); do pg_isready -q -h "$PGHOST" -p "$PGPORT" && return 0; sleep 1; done
  log "PostgreSQL at $PGHOST:$PGPORT is not reachable" >&2
  return 1
}

# Installs a Debian package when its command is missing (as root, or with passwordless sudo).
ensure_debian_package() {
  local command_path="$1" package="$2"
  if command -v "$command_path" >/dev/null; then return 0; fi
  if ! command -v apt-get >/dev/null; then
    log "no $command_path and no apt-get to install $package" >&2
    return 1
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo -n"; fi
  log "installing $package from Debian's packages (apt-get install $package)"
  $sudo apt-get update -qq >/dev/null || { log "apt-get update failed" >&2; return 1; }
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$package" >/dev/null \
    || { log "apt-get install $package failed" >&2; return 1; }
}

# The console's browser tests drive Debian's Chromium (playwright-core; `npx playwright install`
# cannot reach its CDN here). Installed from Debian's packages when missing; CHROMIUM_PATH points
# elsewhere if it is installed under another name.
ensure_chromium() {
  local browser="${CHROMIUM_PATH:-/usr/bin/chromium}"
  if [ -x "$browser" ]; then return 0; fi
  ensure_debian_package "$browser" chromium || return 1
  log "$("$browser" --version 2>/dev/null | head -n 1)"
}

# The interoperability tests write records with Kafka clients nobody here wrote: Debian's kcat
# (librdkafka). Installed from Debian's packages when missing, as Chromium is.
ensure_kcat() {
  if command -v kcat >/dev/null; then return 0; fi
  ensure_debian_package kcat kcat || return 1
  log "$(kcat -V 2>/dev/null | head -n 1)"
}

build_all() {
  bash scripts/prisma-generate.sh
  bash scripts/build.sh
}

# A test run: dependencies, Postgres, generated clients and a build. Infrastructure the run starts
# (start_infra) is stopped when it exits, however it exits; what was already running stays.
begin_test_run() {
  RUN_T0=$(date +%s)
  STARTED_FILE="$(mktemp)"
  trap stop_started_infra EXIT
  ensure_dependencies
  ensure_postgres
  ensure_chromium
  ensure_kcat
  build_all
}

# A maildev the tests start keeps every message (MAILDEV_MAX_EMAILS 0): the fault suite and the
# e2e tests read back every email they caused, across all the files of a run, and the stack's
# bound (the newest 5,000) would drop the first files' emails before their audit.
start_infra() { MAILDEV_MAX_EMAILS="${MAILDEV_MAX_EMAILS:-0}" INFRA_STARTED_FILE="$STARTED_FILE" bash infra/bin/infra.sh up; }

seconds_since_run_start() { echo $(($(date +%s) - RUN_T0)); }

stop_started_infra() {
  local rc=$?
  if [ -s "$STARTED_FILE" ]; then
    log "stopping the infrastructure this run started: $(tr '\n' ' ' <"$STARTED_FILE")"
    # shellcheck disable=SC2046
    bash infra/bin/infra.sh down $(cat "$STARTED_FILE") || true
  fi
  rm -f "$STARTED_FILE"
  exit "$rc"
}
