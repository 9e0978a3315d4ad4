/**
 * The contract compatibility gate's snapshot: writes libs/contracts/snapshot/contracts.snapshot.json
 * from libs/contracts, and refuses a change that would break a consumer or producer of a version
 * in the committed snapshot (docs/contracts.md).
 * Usage: npm run contracts:snapshot [-- --check] [-- --drop <type>:v<version> ...]
 * `--check` writes nothing and exits 1 when the snapshot refuses the contracts or is out of date.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { format, resolveConfig } from 'prettier';
import { runMain } from '../run-main';
import { SNAPSHOT_FILE, buildSnapshot, planSnapshot, type ContractsSnapshot } from './contracts-snapshot';

/** The nearest directory above this file with nx.json (from tools/contracts/ and dist/tools/contracts/). */
function workspaceRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'nx.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no nx.json above ${from}`);
  }
}

/** `--drop a --drop b` → [a, b]. */
const dropsOf = (args: readonly string[]): string[] =>
  args.flatMap((arg, index) => (arg === '--drop' && args[index + 1] ? [args[index + 1]!] : []));

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const target = path.join(workspaceRoot(__dirname), SNAPSHOT_FILE);
  const onDisk = existsSync(target) ? readFileSync(target, 'utf8') : undefined;
  const committed = onDisk === undefined ? undefined : (JSON.parse(onDisk) as ContractsSnapshot);
  const plan = planSnapshot(committed, buildSnapshot(), dropsOf(args));
  for (const line of plan.lines) console.log(`[contracts] ${line}`);
  if (plan.write === undefined) {
    for (const error of plan.errors) console.error(`[contracts] ${error}`);
    console.error(
      `[contracts] refused: ${SNAPSHOT_FILE} is unchanged. A breaking change ships as a new version of ` +
        'the event, with its own ce_dataschema, beside the old one: see docs/contracts.md',
    );
    return 1;
  }
  const options = { ...(await resolveConfig(target)), filepath: target };
  const rendered = await format(JSON.stringify(plan.write), options);
  const versions =
    plan.lines.length - plan.lines.filter((line) => line.endsWith('no longer accepted')).length;
  const summary = `${Object.keys(plan.write.events).length} event types, ${versions} versions`;
  if (args.includes('--check')) {
    if (rendered === onDisk) {
      console.log(`[contracts] ${SNAPSHOT_FILE} is up to date (${summary})`);
      return 0;
    }
    console.error(`[contracts] ${SNAPSHOT_FILE} is out of date: run npm run contracts:snapshot`);
    return 1;
  }
  if (rendered === onDisk) {
    console.log(`[contracts] ${SNAPSHOT_FILE} unchanged (${summary})`);
    return 0;
  }
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, rendered);
  console.log(`[contracts] wrote ${SNAPSHOT_FILE} (${summary})`);
  return 0;
}

runMain('contracts', main);
