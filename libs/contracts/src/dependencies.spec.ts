import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** The library's source files (not the specs), relative to src/. */
const sources = (readdirSync(__dirname, { recursive: true }) as string[])
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'))
  .sort();

/** Module specifiers a file loads at run time (`import type` is erased by the compiler). */
const runtimeImports = (file: string): string[] =>
  [
    ...readFileSync(path.join(__dirname, file), 'utf8').matchAll(
      /^import\s+(?!type\s)[^'"]*?from\s+'([^']+)'/gm,
    ),
  ].map((match) => match[1]!);

describe('libs/contracts dependencies', () => {
  it('loads nothing but zod and its own files at run time (services import it in the production image)', () => {
    expect(sources.length).toBeGreaterThan(10);
    for (const file of sources)
      for (const specifier of runtimeImports(file))
        expect(
          specifier === 'zod' || specifier.startsWith('./') || specifier.startsWith('../'),
          `${file}: ${specifier}`,
        ).toBe(true);
  });

  it('exports every source file from index.ts', () => {
    const index = readFileSync(path.join(__dirname, 'index.ts'), 'utf8');
    for (const file of sources.filter((name) => name !== 'index.ts'))
      expect(index, file).toContain(
        `export * from './${file.replace(/\.ts$/, '').split(path.sep).join('/')}';`,
      );
  });
});
