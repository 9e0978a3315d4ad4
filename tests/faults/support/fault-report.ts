// The suite's table: one row per fault, printed and kept under the git-ignored reports/faults/
// (one JSON file per row, and faults.md / faults.json over all rows of the run directory).
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from '../../support/processes';

export interface FaultRow {
  readonly fault: string;
  readonly placed: number;
  readonly lost: number;
  readonly duplicated: number;
  /** Seconds; null when the pipeline did not recover. */
  readonly recoverySeconds: number | null;
  readonly notes: string;
}

export const REPORT_DIR = join(process.env.FAULTS_REPORT_DIR ?? join(REPO_ROOT, 'reports/faults'));

const slug = (fault: string) =>
  fault
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

export function formatTable(rows: readonly FaultRow[]): string {
  const header = '| fault | orders placed | lost | duplicated | time to recover (s) | notes |';
  const lines = rows.map(
    (row) =>
      `| ${row.fault} | ${row.placed} | ${row.lost} | ${row.duplicated} | ${row.recoverySeconds ?? 'n/a'} | ${row.notes} |`,
  );
  return [header, '|---|---:|---:|---:|---:|---|', ...lines].join('\n');
}

export async function recordFaultRow(row: FaultRow): Promise<void> {
  const rowsDir = join(REPORT_DIR, 'rows');
  await mkdir(rowsDir, { recursive: true });
  await writeFile(
    join(rowsDir, `${slug(row.fault)}.json`),
    JSON.stringify({ ...row, at: new Date().toISOString() }, null, 2),
  );
  const rows: FaultRow[] = [];
  for (const file of (await readdir(rowsDir)).filter((name) => name.endsWith('.json')).sort())
    rows.push(JSON.parse(await readFile(join(rowsDir, file), 'utf8')) as FaultRow);
  await writeFile(join(REPORT_DIR, 'faults.json'), JSON.stringify(rows, null, 2));
  await writeFile(join(REPORT_DIR, 'faults.md'), `${formatTable(rows)}\n`);
  console.log(`\n${formatTable([row])}\n(all rows: ${join(REPORT_DIR, 'faults.md')})`);
}
