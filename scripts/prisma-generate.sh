#!/usr/bin/env bash
# Generates the Prisma Client of every service (or of the services given as
# arguments) into apps/<name>-service/src/generated/prisma. Works offline:
# PRISMA_SCHEMA_ENGINE_BINARY points at an existing file so the CLI does not try
# to download a native schema engine (generate does not need one). /bin/false,
# not /bin/true: if a migrate command ever picks this up it fails loudly.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=/dev/null
source scripts/ensure-node.sh

export PRISMA_SCHEMA_ENGINE_BINARY="${PRISMA_SCHEMA_ENGINE_BINARY:-/bin/false}"
export PRISMA_HIDE_UPDATE_MESSAGE=1
# prisma.config.ts reads env('DATABASE_URL'), which throws when unset; generate
# never connects, so any syntactically valid URL will do.
export DATABASE_URL="${DATABASE_URL:-postgresql://generate@127.0.0.1:5432/unused}"

SERVICES=("$@")
# `testing` is the messaging library's test schema (tests/support/generated/prisma).
if [ ${#SERVICES[@]} -eq 0 ]; then
  # The service list of scripts/db/lib.mjs (SERVICES): one list for every database tool.
  read -r -a SERVICES <<<"$(node --input-type=module -e "import('./scripts/db/lib.mjs').then((m) => console.log(m.SERVICES.join(' ')))")"
  [ -d tests ] && SERVICES+=(testing) # not in the Docker build context
fi

PRISMA="$ROOT/node_modules/.bin/prisma"
for s in "${SERVICES[@]}"; do
  cfg="prisma/$s/prisma.config.ts"
  [ -f "$cfg" ] || { echo "prisma-generate: unknown service '$s' (no $cfg)" >&2; exit 2; }
  start=$(date +%s%N)
  if ! out="$("$PRISMA" generate --config "$cfg" 2>&1)"; then
    echo "$out" >&2
    echo "prisma-generate: $s FAILED" >&2
    exit 1
  fi
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  echo "prisma-generate: $s (${ms} ms)"
done
