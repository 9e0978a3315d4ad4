import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readReportFile, reportCsp } from './report-files';

describe('report files', () => {
  const dir = mkdtemp(join(tmpdir(), 'console-reports-'));
  afterAll(async () => rm(await dir, { recursive: true, force: true }));

  it('serves only names of the report scheme', async () => {
    const folder = await dir;
    const name = 'load-2026-12-02T03-40-00-000Z.html';
    await writeFile(join(folder, name), '<p>report</p>');
    await writeFile(join(folder, 'secret.html'), 'no');
    await expect(readReportFile(folder, name)).resolves.toBe('<p>report</p>');
    for (const bad of ['secret.html', `../${name}`, `${name}.json`, 'load-2026-12-02T03-40-00-000Z.json'])
      await expect(readReportFile(folder, bad)).resolves.toBeUndefined();
    await expect(readReportFile(folder, 'load-2026-12-02T03-40-00-001Z.html')).resolves.toBeUndefined();
  });

  it('allows the page its inline stylesheet by hash, and no script', () => {
    const css = 'body{color:red}';
    const csp = reportCsp(`<style>${css}</style><p>x</p>`);
    const hash = createHash('sha256').update(css).digest('base64');
    expect(csp).toContain(`style-src 'sha256-${hash}'`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/script-src|unsafe/);
  });
});
