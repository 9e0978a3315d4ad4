import { fork, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import type { SinkCounts } from './counting-smtp-sink';

type SinkMessage = { readonly listening: number } | { readonly counts: SinkCounts };

/** The counting SMTP sink in its own process (smtp-sink-main.js), so its CPU is measured apart. */
export class SinkProcess {
  private constructor(private readonly child: ChildProcess) {}

  get pid(): number | undefined {
    return this.child.pid;
  }

  static async start(repoRoot: string, port: number, logFile: string): Promise<SinkProcess> {
    const child = fork('dist/tools/bench/mail-sink/smtp-sink-main.js', ['--port', String(port)], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const log = createWriteStream(logFile);
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    child.once('close', () => log.end());
    await new Promise<void>((resolve, reject) => {
      const onMessage = (message: SinkMessage): void => {
        if ('listening' in message) {
          child.off('exit', onExit);
          resolve();
        }
      };
      const onExit = (code: number | null): void =>
        reject(new Error(`the mail sink exited ${code} at start-up (log: ${logFile})`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
    return new SinkProcess(child);
  }

  counts(timeoutMs = 5000): Promise<SinkCounts> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.child.off('message', onMessage);
        reject(new Error(`the mail sink did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      const onMessage = (message: SinkMessage): void => {
        if (!('counts' in message)) return;
        clearTimeout(timer);
        this.child.off('message', onMessage);
        resolve(message.counts);
      };
      this.child.on('message', onMessage);
      this.child.send('counts');
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}
