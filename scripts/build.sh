#!/usr/bin/env bash
# Compiles every app, library, tool and test fixture to dist/ (mirroring the source tree) with SWC.
# Type checking is a separate step (npm run typecheck): SWC strips types without checking them.
set -euo pipefail
cd "$(dirname "$0")/.."
# No `rm -rf dist`: parallel builds (and tests spawning dist/) must never see it vanish.
npx swc apps libs tools tests -d dist --ignore '**/*.spec.ts' --quiet
echo "[build] compiled to dist/ ($(find dist -name '*.js' | wc -l) files)"
