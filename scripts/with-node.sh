#!/usr/bin/env bash
# Runs a command on the project's Node (.nvmrc), whatever Node is first on the caller's PATH:
#   bash scripts/with-node.sh node dist/tools/loadgen/main.js --help
# Every npm script goes through it (package.json), so `npm run <script>` behaves the same on a
# machine whose own Node is older (Debian's 20: no zstd in node:zlib, no TypeScript stripping).
# scripts/ensure-node.sh puts Node 24 first on PATH, fetching it from the npm registry once; the
# command and every process it starts (npx, tsc, nx, a bash script) inherit that PATH.
set -euo pipefail
# shellcheck source=ensure-node.sh
source "$(dirname "${BASH_SOURCE[0]}")/ensure-node.sh"
exec "$@"
