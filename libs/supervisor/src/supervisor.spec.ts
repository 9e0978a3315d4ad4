// The supervisor against real child processes: tiny Node scripts that fail, get killed, exit
// cleanly or stay up. Waits are on the supervisor's events, not on the clock.
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  formatDuration,
  isCleanStop,
  Supervisor,
  type ProcessExit,
  type ProcessSpec,
  type SupervisedProcess,
  type SupervisorOptions,
} from './supervisor';

/**
 * Runs step n of `plan` on its n-th start (the last step from then on), counting starts in a file:
 * `{ exit: 1, afterMs: 0 }` exits with that code after that long; `{ stay: true }` stays up;
 * `ignoreTerm` makes it ignore SIGTERM; `termExit` makes SIGTERM exit with that code.
 */
interface Step {
  readonly exit?: number;
  readonly afterMs?: number;
  readonly ignoreTerm?: boolean;
  readonly termExit?: number;
}

const CHILD = `
const fs = require('node:fs');
const [counter, plan] = [process.argv[1], JSON.parse(process.argv[2])];
const n = (fs.existsSync(counter) ? Number(fs.readFileSync(counter, 'utf8')) : 0) + 1;
fs.writeFileSync(counter, String(n));
const step = plan[Math.min(n, plan.length) - 1];
if (step.ignoreTerm) process.on('SIGTERM', () => console.log('ignoring SIGTERM'));
if (step.termExit !== undefined) process.on('SIGTERM', () => process.exit(step.termExit));
// Only once the handlers are in place: a test that waits for this line may signal at once.
console.log('start ' + n + ' pid ' + process.pid);
if (step.exit !== undefined) setTimeout(() => process.exit(step.exit), step.afterMs ?? 0);
else setInterval(() => {}, 60000);
`;

let dir: string;
let supervisor: Supervisor | undefined;
let lines: string[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'supervisor-'));
  lines = [];
});

afterEach(async () => {
  await supervisor?.stop();
  supervisor = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function supervise(options: SupervisorOptions = {}): Supervisor {
  supervisor = new Supervisor({
    initialBackoffMs: 20,
    maxBackoffMs: 80,
    stableAfterMs: 5_000,
    stopTimeoutMs: 10_000,
    log: (line) => lines.push(line),
    ...options,
  });
  return supervisor;
}

function spec(name: string, plan: readonly Step[]): ProcessSpec {
  return {
    name,
    command: process.execPath,
    args: ['-e', CHILD, join(dir, `${name}.count`), JSON.stringify(plan)],
    env: { PATH: process.env.PATH ?? '' },
    logFile: join(dir, 'logs', `${name}.log`),
    pidFile: join(dir, 'pids', `${name}.pid`),
  };
}

/** The next event of `name` about `proc`. */
async function next<E extends 'spawn' | 'exit' | 'restart'>(
  s: Supervisor,
  event: E,
  proc: SupervisedProcess,
): Promise<unknown> {
  for (;;) {
    const [about, value] = (await once(s, event)) as [SupervisedProcess, unknown];
    if (about === proc) return value;
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const pidFileOf = (proc: SupervisedProcess): string => readFileSync(proc.spec.pidFile!, 'utf8').trim();

describe('Supervisor', () => {
  it('restarts a process killed with SIGKILL, with a new pid in its pid file', async () => {
    const s = supervise();
    const proc = s.start(spec('payment-2', [{}]));
    const first = proc.pid()!;
    expect(pidFileOf(proc)).toBe(String(first));
    await waitForLog(proc, /start 1/);

    const exited = next(s, 'exit', proc);
    const restarted = next(s, 'spawn', proc);
    process.kill(first, 'SIGKILL');
    expect(await exited).toMatchObject({ code: null, signal: 'SIGKILL' });
    expect(proc.state()).toBe('backoff');
    const second = (await restarted) as number;

    expect(second).not.toBe(first);
    expect(proc.pid()).toBe(second);
    expect(alive(second)).toBe(true);
    expect(proc.restarts).toBe(1);
    expect(proc.state()).toBe('running');
    expect(pidFileOf(proc)).toBe(String(second));
    expect(lines).toEqual([
      expect.stringMatching(/^payment-2 exited \(signal SIGKILL\) after \S+ m?s; restart 1 in 20 ms$/),
    ]);
    // Both runs wrote into the one log file.
    await waitForLog(proc, /start 1 pid \d+\nstart 2 pid \d+\n/);
  });

  it('doubles the backoff on failures in a row up to the cap, and resets it after a stable run', async () => {
    const s = supervise({ initialBackoffMs: 20, maxBackoffMs: 80, stableAfterMs: 1_500 });
    const delays: number[] = [];
    const plan: Step[] = [
      { exit: 1 },
      { exit: 1 },
      { exit: 1 },
      { exit: 1 },
      { exit: 3, afterMs: 1_800 }, // up longer than stableAfterMs
      { exit: 1 },
      {},
    ];
    const proc = s.start(spec('crashy', plan));
    s.on('restart', (about, { delayMs }) => about === proc && delays.push(delayMs));
    while (proc.restarts < plan.length - 1) await next(s, 'spawn', proc);

    expect(delays).toEqual([20, 40, 80, 80, 20, 40]);
    expect(proc.state()).toBe('running');
    // About 1.8 s up: formatDuration prints "1.8 s", or "2 s" when it rounds to a whole second.
    expect(lines[4]).toMatch(/^crashy exited \(code 3\) after \d(?:\.\d)? s; restart 5 in 20 ms$/);
  });

  it.each([
    ['exits with code 0', { exit: 0 }],
    ['ends by SIGTERM (a graceful shutdown re-raises it)', {}],
  ])('does not restart a process that %s', async (_, step: Step) => {
    const s = supervise();
    const proc = s.start(spec('email', [step, {}]));
    const restarts: unknown[] = [];
    s.on('restart', (about) => about === proc && restarts.push(about));
    const exited = next(s, 'exit', proc);
    if (step.exit === undefined) process.kill(proc.pid()!, 'SIGTERM');
    const exit = (await exited) as ProcessExit;

    // `restart` would have been emitted right after `exit`, in the same turn.
    await new Promise((resolve) => setImmediate(resolve));
    expect(isCleanStop(exit)).toBe(true);
    expect(restarts).toEqual([]);
    expect(proc.state()).toBe('exited');
    expect(proc.pid()).toBeUndefined();
    expect(existsSync(proc.spec.pidFile!)).toBe(false);
    expect(lines.at(-1)).toMatch(
      /^email exited \((code 0|signal SIGTERM)\) after .+; not restarted \(a clean stop\)$/,
    );

    // revive() starts it again, without counting a restart.
    const again = next(s, 'spawn', proc);
    expect(s.revive()).toEqual([proc]);
    expect(await again).toBe(proc.pid());
    expect(proc.restarts).toBe(0);
  });

  it('stop() ends every child, SIGKILLs one that ignores SIGTERM, and restarts nothing', async () => {
    const s = supervise({ initialBackoffMs: 60_000, stopTimeoutMs: 300 });
    const steady = s.start(spec('order', [{}]));
    const stubborn = s.start(spec('inventory', [{ ignoreTerm: true }]));
    // Exits 1 on SIGTERM: a failure, which during stop() must not restart.
    const failsOnStop = s.start(spec('analytics', [{ termExit: 1 }]));
    const waiting = s.start(spec('payment', [{ exit: 1 }]));
    await next(s, 'restart', waiting);
    // The stubborn one must have installed its handler before the SIGTERM comes.
    await waitForLog(stubborn, /start 1/);
    await waitForLog(failsOnStop, /start 1/);
    const pids = [steady.pid()!, stubborn.pid()!, failsOnStop.pid()!];
    const spawns: string[] = [];
    s.on('spawn', (about) => spawns.push(about.name));

    await s.stop();

    for (const pid of pids) expect(alive(pid), `pid ${pid}`).toBe(false);
    for (const proc of [steady, stubborn, failsOnStop, waiting]) {
      expect(proc.state(), proc.name).toBe('stopped');
      expect(existsSync(proc.spec.pidFile!), proc.name).toBe(false);
    }
    expect(spawns).toEqual([]);
    expect(lines).toContain('inventory still running 300 ms after SIGTERM: SIGKILL');
    expect(lines).toContainEqual(expect.stringMatching(/^analytics exited \(code 1\)/));
    expect(s.revive()).toEqual([]);
    expect(() => s.start(spec('late', [{}]))).toThrow(/stopping/);
  });

  it('refuses a second process of the same name', () => {
    const s = supervise();
    s.start(spec('order', [{}]));
    expect(() => s.start(spec('order', [{}]))).toThrow(/supervised already/);
  });
});

describe('formatDuration', () => {
  it('prints milliseconds below 1 s, one decimal below 10 s, then whole seconds, minutes, hours', () => {
    expect([400, 1_000, 2_500, 12_300, 119_000, 300_000, 9_000_000].map(formatDuration)).toEqual([
      '400 ms',
      '1 s',
      '2.5 s',
      '12 s',
      '119 s',
      '5 min',
      '2.5 h',
    ]);
  });
});

/** Until the child's log shows `pattern` (it writes at start-up, before anything else). */
async function waitForLog(proc: SupervisedProcess, pattern: RegExp): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!pattern.test(existsSync(proc.spec.logFile) ? readFileSync(proc.spec.logFile, 'utf8') : '')) {
    if (Date.now() > deadline) throw new Error(`${proc.name}: ${pattern} not in its log within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
