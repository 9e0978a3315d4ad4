/**
 * Writes docs/asyncapi.yaml from the contracts (libs/contracts): `npm run asyncapi`.
 * `--check` writes nothing and exits 1 when the file is out of date.
 * Usage: node dist/tools/asyncapi/main.js [--check]
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { buildAsyncApiDocument, renderAsyncApiYaml } from './asyncapi-document';

/** The workspace root: the nearest directory above this file with nx.json (works from tools/ and dist/tools/). */
function workspaceRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'nx.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no nx.json above ${from}`);
  }
}

function renderAsyncApiFile(root: string): string {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  return renderAsyncApiYaml(buildAsyncApiDocument({ version }));
}

function main(): void {
  const root = workspaceRoot(__dirname);
  const target = join(root, 'docs', 'asyncapi.yaml');
  const rendered = renderAsyncApiFile(root);
  const current = existsSync(target) ? readFileSync(target, 'utf8') : undefined;
  const name = relative(process.cwd(), target) || target;
  if (process.argv.includes('--check')) {
    if (current !== rendered) {
      console.error(`[asyncapi] ${name} is out of date: run npm run asyncapi`);
      process.exit(1);
    }
    console.log(`[asyncapi] ${name} is up to date`);
    return;
  }
  if (current === rendered) {
    console.log(`[asyncapi] ${name} unchanged`);
    return;
  }
  writeFileSync(target, rendered);
  console.log(`[asyncapi] wrote ${name}`);
}

if (require.main === module) {
  try {
    main();
  } catch (error: unknown) {
    console.error(`[asyncapi] failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
