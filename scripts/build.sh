#!/usr/bin/env bash
# Compiles every app, library, tool and test fixture to dist/ (mirroring the source tree) with SWC.
# Type checking is a separate step (npm run typecheck): SWC strips types without checking them.
set -euo pipefail
cd "$(dirname "$0")/.."
# No `rm -rf dist`: parallel builds (and tests spawning dist/) must never see it vanish.
# tests/ holds fixtures that tests run as child processes; the Docker build context has no tests/.
sources=(apps libs tools)
[ -d tests ] && sources+=(tests)
npx swc "${sources[@]}" -d dist --ignore '**/*.spec.ts' --ignore 'apps/console/public/**' --quiet
# The console's stylesheet and script go to the browser as written: copied, not compiled.
mkdir -p dist/apps/console/public && cp apps/console/public/* dist/apps/console/public/
echo "[build] compiled to dist/ ($(find dist -name '*.js' | wc -l) files)"
