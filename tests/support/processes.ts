import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { resolve } from 'node:path';

export const REPO_ROOT = resolve(__dirname, '../..');

/**
 * Ports for the servers a test starts. Not from the kernel's ephemeral range (a port it handed
 * out, closed and handed to us could be taken again by any outgoing connection, or by another
 * test file asking at the same moment, before the server binds it: a fault run saw a service fail
 * with EADDRINUSE while its readiness probe reached someone else's server). Each vitest worker
 * takes ports from its own block below that range, each once, and skips any in use.
 */
const PORT_BLOCK = 400;
const FIRST_PORT = 20_000 + (Number(process.env['VITEST_POOL_ID'] ?? 0) % 30) * PORT_BLOCK;
let nextPort = FIRST_PORT;

export async function freePort(): Promise<number> {
  while (nextPort < FIRST_PORT + PORT_BLOCK) {
    const port = nextPort++;
    if (await canListen(port)) return port;
  }
  throw new Error(`no free TCP port left in ${FIRST_PORT}-${FIRST_PORT + PORT_BLOCK - 1}`);
}

/** Whether a server could bind `port` on every interface, as the services do. */
async function canListen(port: number): Promise<boolean> {
  const server = createServer();
  // Not events.once(server, 'listening'): it rejects on 'error', so a port in use threw instead of
  // being skipped.
  const bound = await new Promise<boolean>((resolve) => {
    server.once('listening', () => resolve(true));
    server.once('error', () => resolve(false));
    server.listen(port, '0.0.0.0');
  });
  if (bound) await new Promise<void>((resolve) => server.close(() => resolve()));
  return bound;
}

export interface RunningProcess {
  readonly child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  readonly exited: Promise<number | string>;
}

export function startNode(script: string, env: Record<string, string | undefined>): RunningProcess {
  const child = spawn(process.execPath, [script], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  return { child, output: () => output, exited };
}

/** Polls `probe` until it returns a value, or fails after `timeoutMs` with the last error. */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  { timeoutMs = 30_000, intervalMs = 200, what = 'condition' } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(
    `${what} not reached within ${timeoutMs} ms${lastError instanceof Error ? `: ${lastError.message}` : ''}`,
  );
}

export interface CommandRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command from the repository root with only PATH and `env`, `input` on stdin; its exit code and output. */
export async function runCommand(
  command: string,
  args: readonly string[],
  { env = {}, input = '' }: { env?: Record<string, string>; input?: string } = {},
): Promise<CommandRun> {
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input);
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}
