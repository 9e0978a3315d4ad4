import { spawn } from 'node:child_process';
import { kafkaToolCommand, type KafkaCliTools } from '../kafka-cli/kafka-cli';

export interface PerfRun {
  readonly topic: string;
  readonly bootstrap: string;
  readonly records: number;
  readonly recordBytes: number;
  readonly lingerMs: number;
  /** Records/s the tool offers; -1 for as fast as it can. */
  readonly throughput: number;
  readonly signal: AbortSignal;
}

export interface PerfResult {
  readonly lingerMs: number;
  readonly throughput: number;
  readonly records: number;
  readonly recordsPerSec: number;
  readonly mbPerSec: number;
  readonly avgLatencyMs: number;
  readonly p99LatencyMs: number;
  /** Produce requests the producer sent (records ÷ records-per-request-avg, from --print-metrics). */
  readonly produceRequests: number | undefined;
  readonly recordsPerRequest: number | undefined;
  readonly batchSizeAvgBytes: number | undefined;
  /** The tool's summary line, as it printed it. */
  readonly summaryLine: string;
}

const MAIN = 'org.apache.kafka.tools.ProducerPerformance';

/** One run of Kafka's producer perf tool (acks=all), as infra/bin/kafka-producer-perf-test.sh runs it. */
export function runProducerPerf(tools: KafkaCliTools, run: PerfRun): Promise<PerfResult> {
  const args = kafkaToolCommand(
    tools,
    MAIN,
    [
      '--topic',
      run.topic,
      '--num-records',
      String(run.records),
      '--record-size',
      String(run.recordBytes),
      '--throughput',
      String(run.throughput),
      '--print-metrics',
      '--producer-props',
      `bootstrap.servers=${run.bootstrap}`,
      'acks=all',
      `linger.ms=${run.lingerMs}`,
    ],
    // The wrapper's heap; full JIT, since the fast-start options of the other tools skew numbers.
    ['-Xmx512m'],
  );
  return new Promise((resolve, reject) => {
    run.signal.throwIfAborted();
    const child = spawn(tools.java, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const onAbort = () => child.kill('SIGTERM');
    run.signal.addEventListener('abort', onAbort, { once: true });
    child.on('error', reject);
    child.on('close', (code) => {
      run.signal.removeEventListener('abort', onAbort);
      if (run.signal.aborted)
        return reject(new Error('producer perf tool stopped: the experiment was stopped'));
      const stdout = Buffer.concat(out).toString('utf8');
      const parsed = code === 0 ? parsePerfOutput(stdout, run.lingerMs, run.throughput) : undefined;
      if (parsed) return resolve(parsed);
      const tail = (Buffer.concat(err).toString('utf8') + stdout).trim().split('\n').slice(-5).join(' | ');
      reject(new Error(`producer perf tool (linger.ms=${run.lingerMs}) exited with ${code}: ${tail}`));
    });
  });
}

/** The final summary line (the one with percentiles) and the producer metrics of --print-metrics. */
export function parsePerfOutput(
  stdout: string,
  lingerMs: number,
  throughput: number,
): PerfResult | undefined {
  const summaryLine = stdout
    .split('\n')
    .find((line) => / records sent, .* 99th/.test(line))
    ?.trim();
  const summary = summaryLine?.match(
    /^(\d+) records sent, ([\d.]+) records\/sec \(([\d.]+) MB\/sec\), ([\d.]+) ms avg latency, ([\d.]+) ms max latency.*?, (\d+) ms 99th/,
  );
  if (summaryLine === undefined || summary === null || summary === undefined) return undefined;
  const records = Number(summary[1]);
  const recordsPerRequest = metric(stdout, 'producer-metrics:records-per-request-avg');
  return {
    lingerMs,
    throughput,
    records,
    recordsPerSec: Number(summary[2]),
    mbPerSec: Number(summary[3]),
    avgLatencyMs: Number(summary[4]),
    p99LatencyMs: Number(summary[6]),
    recordsPerRequest,
    produceRequests:
      recordsPerRequest === undefined || recordsPerRequest === 0
        ? undefined
        : Math.round(records / recordsPerRequest),
    batchSizeAvgBytes: metric(stdout, 'producer-metrics:batch-size-avg'),
    summaryLine,
  };
}

/** `group:name:{tags} : value` as --print-metrics writes it. */
function metric(stdout: string, name: string): number | undefined {
  const line = stdout.split('\n').find((l) => l.startsWith(`${name}:{`));
  const value = line === undefined ? Number.NaN : Number(line.slice(line.lastIndexOf(':') + 1).trim());
  return Number.isFinite(value) ? value : undefined;
}
