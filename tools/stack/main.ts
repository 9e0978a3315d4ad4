/**
 * The services and the console of `npm run stack`, supervised: started, awaited until ready,
 * restarted when they fail, stopped on SIGINT/SIGTERM/SIGHUP. scripts/stack.sh starts the
 * infrastructure, databases and topics first, then runs this in the foreground:
 *   node dist/tools/stack/main.js [--instances payment=2,order=1]... [--no-console]
 */
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runMain } from '../run-main';
import { portInUse, reportReadyAgain, StartupFailure, waitUntilReady, type Started } from './readiness';
import { parseStackArgs, STACK_USAGE, UsageError, type StackArgs } from './stack-args';
import { planStack, RunDir, type StackProcess } from './stack-plan';
import { renderSummary } from './stack-summary';
import { Supervisor } from '@pipeline/supervisor';

const READY_TIMEOUT_MS = 120_000;
/** The supervisor's own pid: SIGUSR2 to it starts the processes stopped cleanly again. */
const STACK_PID_FILE = '.run/stack.pid';

/** The nearest directory above this file with nx.json (from tools/stack/ and dist/tools/stack/). */
function workspaceRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'nx.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no nx.json above ${from}`);
  }
}

const repoRoot = workspaceRoot(__dirname);
// A closed terminal must not crash the supervisor (its children would live on): drop the output.
process.stdout.on('error', () => undefined);
process.stderr.on('error', () => undefined);
const say = (line: string): void => void process.stdout.write(`[stack] ${line}\n`);

async function main(): Promise<number> {
  let args: StackArgs;
  try {
    args = parseStackArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`stack: ${error.message}\n\n${STACK_USAGE}\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(`${STACK_USAGE}\n`);
    return 0;
  }
  const plan = planStack({ repoRoot, instances: args.instances, console: args.console, env: process.env });
  const problem = missingEntry(plan) ?? (await busyPort(plan));
  if (problem !== undefined) {
    say(problem);
    return 1;
  }
  return supervise(plan);
}

async function supervise(plan: readonly StackProcess[]): Promise<number> {
  const t0 = performance.now();
  prepareRunDir(plan);
  const supervisor = new Supervisor({ log: say });
  let stopSignal: NodeJS.Signals | undefined;
  const stopRequested = new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      if (stopSignal !== undefined) return say(`${signal}: stopping already`);
      stopSignal = signal;
      resolve();
    };
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);
  });
  process.on('SIGUSR2', () => {
    if (supervisor.revive().length === 0) say('SIGUSR2: no process stopped cleanly, nothing to start');
  });
  writeFileSync(path.join(repoRoot, STACK_PID_FILE), `${process.pid}\n`);
  let code = 0;
  try {
    say(`starting ${plan.map((p) => p.spec.name).join(', ')} (logs: ${RunDir}/<name>.log)`);
    const started: Started[] = plan.map((p) => ({ plan: p, process: supervisor.start(p.spec) }));
    await waitUntilReady(supervisor, started, {
      timeoutMs: READY_TIMEOUT_MS,
      log: say,
      cancelled: () => stopSignal !== undefined,
    });
    if (stopSignal === undefined) {
      process.stdout.write(
        renderSummary(plan, {
          elapsedMs: performance.now() - t0,
          kafkaBrokers: process.env.KAFKA_BROKERS || '127.0.0.1:9092',
          consoleToken: Boolean(plan.find((p) => p.service === 'console')?.spec.env.CONSOLE_TOKEN),
        }),
      );
      reportReadyAgain(supervisor, started, say);
      await stopRequested;
    }
  } catch (error) {
    if (!(error instanceof StartupFailure)) throw error;
    say(error.message);
    code = 1;
  } finally {
    say(`stopping ${plan.length} processes${stopSignal ? ` (${stopSignal})` : ''}`);
    await supervisor.stop();
    rmSync(path.join(repoRoot, STACK_PID_FILE), { force: true });
    say('stopped');
  }
  if (stopSignal === undefined) return code;
  return stopSignal === 'SIGINT' ? 130 : 143;
}

function missingEntry(plan: readonly StackProcess[]): string | undefined {
  const missing = plan.find((p) => !existsSync(path.join(repoRoot, p.entry)));
  if (missing === undefined) return undefined;
  const hint =
    missing.service === 'console'
      ? 'build it (bash scripts/build.sh), or start without the console: npm run stack -- --no-console'
      : 'build first: bash scripts/build.sh';
  return `${missing.entry} is missing: ${hint}`;
}

async function busyPort(plan: readonly StackProcess[]): Promise<string | undefined> {
  for (const p of plan) {
    if (await portInUse(p.port))
      return `port ${p.port} (${p.label}) is in use: is another stack running (${STACK_PID_FILE})? Stop it first`;
  }
  return undefined;
}

/** Fresh logs for this run (restarts append to them), and no pid file left from an earlier one. */
function prepareRunDir(plan: readonly StackProcess[]): void {
  const dir = path.join(repoRoot, RunDir);
  mkdirSync(dir, { recursive: true });
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.pid'))) rmSync(path.join(dir, file));
  for (const p of plan) writeFileSync(p.spec.logFile, '');
}

runMain('stack', main);
