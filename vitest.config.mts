import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

// One source of truth for the library aliases: tsconfig.base.json's `paths`.
const { compilerOptions } = JSON.parse(
  readFileSync(new URL('./tsconfig.base.json', import.meta.url), 'utf8'),
) as {
  compilerOptions: { paths: Record<string, string[]> };
};
const alias = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([name, [target]]) => [
    name,
    resolve(import.meta.dirname, target!),
  ]),
);

export default defineConfig({
  // SWC, not esbuild/oxc: NestJS dependency injection needs emitDecoratorMetadata.
  plugins: [swc.vite({ swcrc: false, jsc: { target: 'es2023' } })],
  resolve: { alias },
  test: {
    include: ['apps/**/*.spec.ts', 'libs/**/*.spec.ts', 'tools/**/*.spec.ts', 'tests/**/*.spec.ts'],
    // The fault suite's full-only files (`*.full.spec.ts`: the broker-loss runs on a three-node
    // cluster) are collected only by `npm run test:faults` (FAULTS=full); CI runs the rest.
    exclude: [
      '**/node_modules/**',
      '**/dist/**',
      ...(process.env.FAULTS === 'full' ? [] : ['tests/faults/**/*.full.spec.ts']),
    ],
    environment: 'node',
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    allowOnly: false,
    // Test producers use kafkajs 2's default (Java-compatible) partitioner; no need to be told.
    env: { KAFKAJS_NO_PARTITIONER_WARNING: '1' },
  },
});
