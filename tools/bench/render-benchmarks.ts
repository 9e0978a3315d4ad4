/**
 * Rewrites the BENCHMARKS.md results section and plots from a saved run, without re-running it:
 * node dist/tools/bench/render-benchmarks.js reports/bench-<time>/bench.json
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { BenchResults } from './bench-results';
import { repoRoot } from './bench-environment';
import { writeBenchmarks } from './benchmarks-md';
import { runMain } from '../run-main';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: render-benchmarks <reports/bench-<time>/bench.json>\n');
  process.exit(2);
}
const results = JSON.parse(readFileSync(file, 'utf8')) as BenchResults;
runMain('render-benchmarks', async () => {
  const written = await writeBenchmarks(results, { repoRoot, outDir: resolve(dirname(file)), write: true });
  process.stdout.write(`${written.map((w) => `wrote ${w}`).join('\n')}\n`);
});
