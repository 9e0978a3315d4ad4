#!/usr/bin/env bash
# Compiles every app, library, tool and test fixture to dist/ (mirroring the source tree) with SWC.
# Type checking is a separate step (npm run typecheck): SWC strips types without checking them.
set -euo pipefail
cd "$(dirname "$0")/.."
# No `rm -rf dist`: parallel builds (and tests spawning dist/) must never see it vanish.
# tests/ holds fixtures that tests run as child processes; the Docker build context has no tests/.
sources=(apps libs tools)
[ -d tests ] && sources+=(tests)
npx swc "${sources[@]}" -d dist --ignore '**/*.spec.ts' --quiet
echo "[build] compiled to dist/ ($(find dist -name '*.js' | wc -l) files)"
