/**
 * Rewrites the BENCHMARKS.md results section and plots from a saved run, without re-running it:
 * node dist/tools/bench/render-benchmarks.js reports/bench-<time>/bench.json
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { BenchResults } from './bench-results';
import { writeBenchmarks } from './benchmarks-md';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: render-benchmarks <reports/bench-<time>/bench.json>\n');
  process.exit(2);
}
const results = JSON.parse(readFileSync(file, 'utf8')) as BenchResults;
writeBenchmarks(results, {
  repoRoot: resolve(__dirname, '../../..'),
  outDir: resolve(dirname(file)),
  write: true,
}).then(
  (written) => process.stdout.write(`${written.map((w) => `wrote ${w}`).join('\n')}\n`),
  (error: unknown) => {
    process.stderr.write(`render-benchmarks: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
