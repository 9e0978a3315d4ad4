// A maildev of the suite's own on free ports, keeping its mail in a directory so that what it
// received survives the stop/start of the SMTP-down fault (maildev reloads it on start).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { eventually, freePort, REPO_ROOT, type RunningProcess } from '../../support/processes';

function startMaildev(args: readonly string[]): RunningProcess {
  const child = spawn(
    process.execPath,
    [join(REPO_ROOT, 'node_modules/maildev/dist/bin/maildev.js'), ...args],
    {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  return { child, output: () => output, exited };
}

export interface OwnMaildev {
  readonly smtpUrl: string;
  readonly apiUrl: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startOwnMaildev(): Promise<OwnMaildev> {
  const dir = await mkdtemp(join(tmpdir(), 'faults-maildev-'));
  const smtp = await freePort();
  const web = await freePort();
  const apiUrl = `http://127.0.0.1:${web}/api/email`;
  let running: RunningProcess | undefined;
  const stop = async (): Promise<void> => {
    const current = running;
    running = undefined;
    if (current === undefined || current.child.exitCode !== null) return;
    // SIGTERM: maildev finishes the SMTP transactions in flight. A SIGKILL mid-DATA can leave a
    // message stored that the client never saw acknowledged, and it would send it again: the
    // at-least-once window of SMTP itself (docs/reliability.md).
    current.child.kill('SIGTERM');
    const timer = setTimeout(() => current.child.kill('SIGKILL'), 10_000);
    await current.exited;
    clearTimeout(timer);
  };
  const start = async (): Promise<void> => {
    const args = ['--smtp', String(smtp), '--ip', '127.0.0.1', '--web', String(web), '--web-ip', '127.0.0.1'];
    running = startMaildev([...args, '--mail-directory', dir]);
    await eventually(async () => ((await fetch(apiUrl)).ok ? true : undefined), {
      timeoutMs: 30_000,
      what: 'own maildev answering',
    });
  };
  const own: OwnMaildev = {
    smtpUrl: `smtp://127.0.0.1:${smtp}`,
    apiUrl,
    stop,
    start,
    destroy: async () => {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  await start();
  return own;
}
