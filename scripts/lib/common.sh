# Sourced by the top-level scripts: Node 24, dependencies, generated clients and a build.
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

build_all() {
  bash scripts/prisma-generate.sh
  bash scripts/build.sh
}
