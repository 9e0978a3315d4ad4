import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { renderHtmlReport, type LoadReport } from '@pipeline/load';

/** `load-<ISO time with - for : and .>.html`: the only names the report route serves. */
export const REPORT_FILE = /^load-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z\.html$/;

export interface ReportFiles {
  /** The HTML file's name, served at /load/reports/<html>. */
  readonly html: string;
  readonly jsonPath: string;
  readonly htmlPath: string;
}

/** Writes the report as loadgen does (JSON, and the HTML beside it) under `dir`. */
export async function writeReportFiles(dir: string, report: LoadReport): Promise<ReportFiles> {
  await mkdir(dir, { recursive: true });
  const base = `load-${report.startedAt.replace(/[:.]/g, '-')}`;
  const jsonPath = join(dir, `${base}.json`);
  const htmlPath = join(dir, `${base}.html`);
  await writeFile(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(htmlPath, renderHtmlReport(report));
  return { html: `${base}.html`, jsonPath, htmlPath };
}

/** A report's HTML, or undefined for a name that is not a report's or a file that is not there. */
export async function readReportFile(dir: string, name: string): Promise<string | undefined> {
  if (!REPORT_FILE.test(name)) return undefined;
  try {
    return await readFile(join(dir, name), 'utf8');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The CSP a report page needs and no more: no script, no network, and only its own inline
 * stylesheets, allowed by their hashes (the report is a standalone file, so its CSS is inline).
 */
export function reportCsp(page: string): string {
  const hashes = [...page.matchAll(/<style>([\s\S]*?)<\/style>/g)].map(
    ([, css]) =>
      `'sha256-${createHash('sha256')
        .update(css ?? '')
        .digest('base64')}'`,
  );
  return [
    "default-src 'none'",
    `style-src ${hashes.join(' ') || "'none'"}`,
    'img-src data:',
    "frame-ancestors 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
}
