/**
 * Keeps child processes running, as compose's restart policy does: a process that fails is
 * started again after a backoff; one that stops cleanly stays down. Used by `npm run stack`
 * (tools/stack/main.ts) and by tests that run services under supervision. Policy and reasons:
 * docs/local-stack.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** One process to keep running. */
export interface ProcessSpec {
  /** `payment-2`: names the process in the log lines; unique within a supervisor. */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** The child's whole environment: nothing of the supervisor's own is inherited. */
  readonly env: Readonly<Record<string, string>>;
  /** stdout and stderr are appended to it, across restarts (its directory is created). */
  readonly logFile: string;
  /** Holds the pid while the process runs: rewritten on every restart, removed when it ends. */
  readonly pidFile?: string;
  readonly cwd?: string;
}

export interface SupervisorOptions {
  /** Delay before restarting a failed process; doubles with every failure in a row. */
  readonly initialBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /** A process that ran this long before it failed is restarted after initialBackoffMs again. */
  readonly stableAfterMs?: number;
  /** stop(): from SIGTERM to SIGKILL. */
  readonly stopTimeoutMs?: number;
  readonly log?: (line: string) => void;
}

/** Compose-like: a first restart after 1 s, doubling to 30 s; SIGKILL 10 s after SIGTERM. */
export const SupervisorDefaults = {
  initialBackoffMs: 1_000,
  maxBackoffMs: 30_000,
  stableAfterMs: 10_000,
  stopTimeoutMs: 10_000,
} as const satisfies SupervisorOptions;

/**
 * `running`: a child is alive; `backoff`: it failed and a restart is scheduled; `exited`: it
 * stopped cleanly and is not restarted (revive() starts it again); `stopped`: by stop().
 */
export type ProcessState = 'running' | 'backoff' | 'exited' | 'stopped';

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly uptimeMs: number;
}

export interface SupervisedProcess {
  readonly name: string;
  readonly spec: ProcessSpec;
  /** The running child's pid; undefined between an exit and its restart. */
  pid(): number | undefined;
  /** Restarts after failures so far (revive() does not count). */
  readonly restarts: number;
  state(): ProcessState;
}

export interface SupervisorEvents {
  /** A child was started: the first time, on a restart, or by revive(). */
  spawn: [process: SupervisedProcess, pid: number];
  exit: [process: SupervisedProcess, exit: ProcessExit];
  /** A restart is scheduled `delayMs` from now; emitted right after that exit's `exit`. */
  restart: [process: SupervisedProcess, restart: { readonly attempt: number; readonly delayMs: number }];
}

/**
 * A clean stop is not restarted: exit code 0, or the end by SIGTERM or SIGINT. The services shut
 * down gracefully on SIGTERM and then re-raise it (NestJS's shutdown hooks), so `kill <pid>`
 * ends them "by SIGTERM". A crash, a non-zero exit and SIGKILL (kill -9, the OOM killer) are
 * failures.
 */
export function isCleanStop(exit: Pick<ProcessExit, 'code' | 'signal'>): boolean {
  return exit.code === 0 || exit.signal === 'SIGTERM' || exit.signal === 'SIGINT';
}

/** `400 ms`, `2.5 s`, `12 s`, `5 min`: durations in log lines. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${Number((ms / 1000).toFixed(1))} s`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 2 * 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Number((ms / 3_600_000).toFixed(1))} h`;
}

const describeExit = (exit: ProcessExit): string =>
  exit.signal !== null ? `signal ${exit.signal}` : `code ${exit.code ?? 'unknown'}`;

class Entry implements SupervisedProcess {
  child: ChildProcess | undefined;
  current: ProcessState = 'running';
  restarts = 0;
  failuresInARow = 0;
  startedAt = 0;
  timer: NodeJS.Timeout | undefined;

  constructor(readonly spec: ProcessSpec) {}

  get name(): string {
    return this.spec.name;
  }

  pid(): number | undefined {
    return this.child?.pid;
  }

  state(): ProcessState {
    return this.current;
  }
}

export class Supervisor extends EventEmitter<SupervisorEvents> {
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly stableAfterMs: number;
  private readonly stopTimeoutMs: number;
  private readonly log: (line: string) => void;
  private readonly entries: Entry[] = [];
  private stopping: Promise<void> | undefined;

  constructor(options: SupervisorOptions = {}) {
    super();
    this.initialBackoffMs = options.initialBackoffMs ?? SupervisorDefaults.initialBackoffMs;
    this.maxBackoffMs = options.maxBackoffMs ?? SupervisorDefaults.maxBackoffMs;
    this.stableAfterMs = options.stableAfterMs ?? SupervisorDefaults.stableAfterMs;
    this.stopTimeoutMs = options.stopTimeoutMs ?? SupervisorDefaults.stopTimeoutMs;
    this.log = options.log ?? ((line) => void process.stderr.write(`[supervisor] ${line}\n`));
  }

  /** Spawns the process at once and keeps it running until stop(). */
  start(spec: ProcessSpec): SupervisedProcess {
    if (this.stopping !== undefined) throw new Error(`cannot start ${spec.name}: the supervisor is stopping`);
    if (this.entries.some((entry) => entry.name === spec.name))
      throw new Error(`a process named ${spec.name} is supervised already`);
    const entry = new Entry(spec);
    this.entries.push(entry);
    this.spawnChild(entry);
    return entry;
  }

  processes(): readonly SupervisedProcess[] {
    return [...this.entries];
  }

  /** Starts again every process that stopped cleanly (state `exited`); returns them. */
  revive(): readonly SupervisedProcess[] {
    if (this.stopping !== undefined) return [];
    const revived = this.entries.filter((entry) => entry.current === 'exited');
    for (const entry of revived) {
      entry.failuresInARow = 0;
      this.log(`${entry.name} started again`);
      this.spawnChild(entry);
    }
    return revived;
  }

  /**
   * SIGTERM to every child's process group (latest started first), SIGKILL to those still there
   * after stopTimeoutMs; cancels pending restarts, and none happens afterwards. Idempotent.
   */
  stop(): Promise<void> {
    this.stopping ??= this.stopAll();
    return this.stopping;
  }

  private async stopAll(): Promise<void> {
    for (const entry of this.entries) {
      clearTimeout(entry.timer);
      entry.timer = undefined;
      if (entry.current === 'backoff') entry.current = 'stopped';
    }
    const running = this.entries.filter((entry) => entry.child !== undefined).reverse();
    await Promise.all(running.map((entry) => this.terminate(entry)));
  }

  private async terminate(entry: Entry): Promise<void> {
    const child = entry.child;
    if (child === undefined) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    signalGroup(child, 'SIGTERM');
    const timer = setTimeout(() => {
      this.log(`${entry.name} still running ${formatDuration(this.stopTimeoutMs)} after SIGTERM: SIGKILL`);
      signalGroup(child, 'SIGKILL');
    }, this.stopTimeoutMs);
    await exited;
    clearTimeout(timer);
  }

  private spawnChild(entry: Entry): void {
    const { spec } = entry;
    mkdirSync(dirname(spec.logFile), { recursive: true });
    const output = openSync(spec.logFile, 'a');
    let child: ChildProcess;
    try {
      // detached: its own session and process group, so a terminal's Ctrl-C reaches it only
      // through the supervisor's stop(), in order, and a group signal reaches its children too.
      child = spawn(spec.command, [...spec.args], {
        cwd: spec.cwd,
        env: { ...spec.env },
        stdio: ['ignore', output, output],
        detached: true,
      });
    } finally {
      closeSync(output); // the child has its own copy
    }
    entry.child = child;
    entry.current = 'running';
    entry.startedAt = performance.now();
    let ended = false;
    const end = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (ended) return;
      ended = true;
      this.onExit(entry, { code, signal, uptimeMs: performance.now() - entry.startedAt });
    };
    child.once('exit', end);
    child.on('error', (error) => {
      this.log(`${spec.name}: ${error.message}`);
      if (child.pid === undefined) end(null, null); // it never ran: a failure like any other
    });
    if (child.pid !== undefined) {
      if (spec.pidFile !== undefined) {
        mkdirSync(dirname(spec.pidFile), { recursive: true });
        writeFileSync(spec.pidFile, `${child.pid}\n`);
      }
      this.emit('spawn', entry, child.pid);
    }
  }

  private onExit(entry: Entry, exit: ProcessExit): void {
    entry.child = undefined;
    if (entry.spec.pidFile !== undefined) rmSync(entry.spec.pidFile, { force: true });
    const what = `${entry.name} exited (${describeExit(exit)}) after ${formatDuration(exit.uptimeMs)}`;
    if (this.stopping !== undefined) {
      entry.current = 'stopped';
      if (!isCleanStop(exit)) this.log(what);
      this.emit('exit', entry, exit);
      return;
    }
    if (isCleanStop(exit)) {
      entry.current = 'exited';
      this.log(`${what}; not restarted (a clean stop)`);
      this.emit('exit', entry, exit);
      return;
    }
    if (exit.uptimeMs >= this.stableAfterMs) entry.failuresInARow = 0;
    const delayMs = Math.min(this.initialBackoffMs * 2 ** entry.failuresInARow, this.maxBackoffMs);
    entry.failuresInARow += 1;
    entry.current = 'backoff';
    const attempt = entry.restarts + 1;
    this.log(`${what}; restart ${attempt} in ${formatDuration(delayMs)}`);
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      entry.restarts = attempt;
      this.spawnChild(entry);
    }, delayMs);
    this.emit('exit', entry, exit);
    this.emit('restart', entry, { attempt, delayMs });
  }
}

/** To the child's process group (it leads one: detached), or to the child alone if that fails. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}
