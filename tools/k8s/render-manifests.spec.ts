// infra/k8s/ is generated: this fails when the committed files are not what tools/k8s renders.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { GENERATED_HEADER, renderVariant } from './render-manifests';
import { VARIANTS } from './variants';

const ROOT = path.resolve(__dirname, '../..');

describe.each(VARIANTS)('infra/k8s/$name', (variant) => {
  const dir = path.join(ROOT, 'infra/k8s', variant.name);
  const rendered = renderVariant(variant);

  it('is what tools/k8s renders (run `npm run build && npm run k8s:generate` after a change)', () => {
    expect(readdirSync(dir).sort()).toEqual([...rendered.keys()].sort());
    for (const [file, text] of rendered) {
      expect(readFileSync(path.join(dir, file), 'utf8') === text, `${variant.name}/${file} is stale`).toBe(
        true,
      );
    }
  });

  it('renders every file as YAML without errors, anchors or aliases, behind the generated-file header', () => {
    for (const [file, text] of rendered) {
      expect(text.startsWith(GENERATED_HEADER), file).toBe(true);
      for (const document of parseAllDocuments(text)) expect(document.errors, file).toEqual([]);
      expect(text, file).not.toMatch(/[&*]a\d+\b/);
    }
  });
});
