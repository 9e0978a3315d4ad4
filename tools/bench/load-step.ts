import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import type { LoadReport } from '@pipeline/load';

export interface LoadStepOptions {
  readonly repoRoot: string;
  readonly baseUrl: string;
  readonly kafkaBrokers: string;
  readonly topicPrefix: string;
  readonly groupPrefix: string;
  readonly rate: number;
  readonly seconds: number;
  readonly drainSeconds: number;
  readonly seed: number;
  /** The fraction of orders whose traceparent the load generator flags sampled (`--trace-ratio`). */
  readonly traceRatio: number;
  readonly out: string;
  readonly onStarted: (pid: number) => void;
  /** Each progress line of the load generator, prefixed by the caller. */
  readonly onProgress: (line: string) => void;
}

/** One constant-rate run of the load generator (its own process, as a user would run it). */
export async function runLoadStep(options: LoadStepOptions): Promise<LoadReport> {
  const args = [
    'dist/tools/loadgen/main.js',
    ...['--rate', String(options.rate), '--duration', String(options.seconds)],
    ...['--base-url', options.baseUrl, '--kafka-brokers', options.kafkaBrokers],
    ...['--topic-prefix', options.topicPrefix, '--group-prefix', options.groupPrefix],
    ...['--lag-interval', '1', '--drain-seconds', String(options.drainSeconds)],
    ...['--seed', String(options.seed), '--trace-ratio', String(options.traceRatio), '--out', options.out],
  ];
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: options.repoRoot,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    if (child.pid !== undefined) options.onStarted(child.pid);
    let pending = '';
    let tail = '';
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      tail = (tail + text).slice(-4000);
      pending += text;
      const lines = pending.split(/\r|\n/);
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') options.onProgress(line.replace(/\x1b\[2K/g, ''));
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`loadgen exited ${code}:\n${tail}`)),
    );
  });
  return JSON.parse(await readFile(options.out, 'utf8')) as LoadReport;
}
