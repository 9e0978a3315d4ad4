#!/usr/bin/env bash
# Compiles every app, library and tool to dist/ (mirroring the source tree) with SWC.
# Type checking is a separate step (npm run typecheck): SWC strips types without checking them.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf dist
npx swc apps libs tools -d dist --ignore '**/*.spec.ts' --quiet
echo "[build] compiled to dist/ ($(find dist -name '*.js' | wc -l) files)"
