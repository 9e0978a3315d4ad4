/**
 * Writes infra/k8s/dev/ and infra/k8s/prod/ from libs/contracts and tools/k8s/variants.ts.
 * Usage: npm run k8s:generate   (tools/k8s/render-manifests.spec.ts fails when they are stale)
 */
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderVariant } from './render-manifests';
import { VARIANTS } from './variants';

/** The nearest directory above this file with nx.json (from tools/k8s/ and dist/tools/k8s/). */
function workspaceRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'nx.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no nx.json above ${from}`);
  }
}

const ROOT = workspaceRoot(__dirname);

for (const variant of VARIANTS) {
  const dir = path.join(ROOT, 'infra/k8s', variant.name);
  mkdirSync(dir, { recursive: true });
  const files = renderVariant(variant);
  // A file no longer generated would otherwise linger and still be applied.
  for (const stale of readdirSync(dir).filter((file) => file.endsWith('.yaml') && !files.has(file))) {
    rmSync(path.join(dir, stale));
  }
  for (const [file, text] of files) writeFileSync(path.join(dir, file), text);
  console.log(`[k8s] ${variant.name}: ${files.size} files in ${path.relative(ROOT, dir)}/`);
}
