import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StackProcess } from './stack-plan';
import { formatDuration, type SupervisedProcess, type Supervisor } from '@pipeline/supervisor';

export interface Started {
  readonly plan: StackProcess;
  readonly process: SupervisedProcess;
}

/** Why the stack did not come up; main prints it and stops what it started. */
export class StartupFailure extends Error {}

/** Whether `url` answers 2xx within 2 s. */
export async function probe(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * Whether a server could listen on `port` on every interface. Checked before starting: a service
 * that cannot bind exits, but its readiness probe would meanwhile reach the other server.
 */
export async function portInUse(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(true));
    server.listen(port, '0.0.0.0', () => server.close(() => resolve(false)));
  });
}

/**
 * Until every process answers its readyUrl: one line per process as it gets ready, and every 10 s
 * the ones still awaited. Fails when one exits meanwhile (no start-up crash loop) or after
 * timeoutMs; returns early once `cancelled()` holds.
 */
export async function waitUntilReady(
  supervisor: Supervisor,
  started: readonly Started[],
  options: {
    readonly timeoutMs: number;
    readonly log: (line: string) => void;
    readonly cancelled: () => boolean;
  },
): Promise<void> {
  const t0 = performance.now();
  const pending = new Set(started);
  let exited: Started | undefined;
  const onExit = (proc: SupervisedProcess): void => {
    exited ??= [...pending].find((s) => s.process === proc);
  };
  supervisor.on('exit', onExit);
  let reportedAt = t0;
  try {
    while (pending.size > 0 && !options.cancelled()) {
      if (exited !== undefined)
        throw new StartupFailure(`${exited.plan.label} exited during start-up; ${logTail(exited.plan)}`);
      const elapsed = performance.now() - t0;
      if (elapsed > options.timeoutMs)
        throw new StartupFailure(
          `not ready after ${formatDuration(elapsed)}: ${[...pending].map((s) => `${s.plan.label} (${s.plan.readyUrl}; log ${relativeLog(s.plan)})`).join(', ')}`,
        );
      await Promise.all(
        [...pending].map(async (s) => {
          if (!(await probe(s.plan.readyUrl)) || exited !== undefined) return;
          pending.delete(s);
          options.log(`${s.plan.label} ready (${formatDuration(performance.now() - t0)})`);
        }),
      );
      if (pending.size > 0 && performance.now() - reportedAt >= 10_000) {
        reportedAt = performance.now();
        const waiting = [...pending].map((s) => s.plan.label).join(', ');
        options.log(`waiting for ${waiting} (${formatDuration(reportedAt - t0)})`);
      }
      if (pending.size > 0) await sleep(200);
    }
  } finally {
    supervisor.off('exit', onExit);
  }
}

/** After start-up: a restarted (or revived) process is reported once it is ready again. */
export function reportReadyAgain(
  supervisor: Supervisor,
  started: readonly Started[],
  log: (line: string) => void,
): void {
  supervisor.on('spawn', (proc, pid) => {
    const found = started.find((s) => s.process === proc);
    if (found === undefined) return;
    const t0 = performance.now();
    void (async () => {
      while (proc.pid() === pid) {
        if (await probe(found.plan.readyUrl)) {
          log(`${proc.name} (pid ${pid}) ready again after ${formatDuration(performance.now() - t0)}`);
          return;
        }
        await sleep(500);
      }
    })();
  });
}

const relativeLog = (plan: StackProcess): string => plan.spec.logFile.replace(`${plan.spec.cwd ?? ''}/`, '');

function logTail(plan: StackProcess, lines = 20): string {
  const file = plan.spec.logFile;
  if (!existsSync(file)) return `no log at ${relativeLog(plan)}`;
  const tail = readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  return `the end of ${relativeLog(plan)}:\n${tail}`;
}
