import { parseArgs } from 'node:util';
import type { WarmupPolicy } from './ramp';
import { FloorRate, rateSteps } from './rate-steps';

export interface BenchConfig {
  readonly quick: boolean;
  /** Short windows repeated until the broker's CPU per order settles (ramp.ts). */
  readonly warmup: WarmupPolicy;
  /** Offered rates tried in order until one is not sustainable. */
  readonly steps: readonly number[];
  /** When the first step is not sustainable, the rate is halved down to this floor. */
  readonly floorRate: number;
  /** After the first unsustainable step, try once between it and the last sustainable one. */
  readonly refine: boolean;
  /** A step that is not sustainable is run once more before it counts as failed. */
  readonly confirm: boolean;
  readonly stepSeconds: number;
  readonly drainSeconds: number;
  readonly halfRateSeconds: number;
  /** Seconds of no load to measure each process's idle CPU. */
  readonly idleSeconds: number;
  readonly kafkaRecords: number;
  readonly pgbenchSeconds: number;
  readonly pgbenchClients: readonly number[];
  /** `console`: run the pipeline without the console beside it (and without its row). */
  readonly skip: ReadonlySet<'pipeline' | 'kafka' | 'pgbench' | 'console'>;
  readonly writeBenchmarks: boolean;
}

export const BENCH_USAGE = `Usage: npm run bench -- [--quick] [--steps a,b,c] [--step-seconds s] [--warmup-max-seconds s] [--skip kafka,pgbench,pipeline,console] [--no-write]

  --quick            a few minutes: short steps, fewer records (default: the full run, 10-15 minutes)
  --steps <list>     offered orders/s to try, in order, until one is not sustainable (default
                     5,10,25,50,100,200,400,700,1000,1400; --quick 10,25,100,400,1000,1400); a full
                     run then tries once between the last sustainable step and the first that was
                     not; when the first step is not sustainable the rate is halved down to 2/s
  --warmup-max-seconds <s>
                     longest warm-up (default 180, --quick 90): windows of load are repeated until
                     the Kafka broker's CPU ms per order changes by less than 20 % between two
                     consecutive windows (--warmup-max-seconds 0: one window)
  --step-seconds <s> seconds of load per step
  --skip <list>      leave out parts: pipeline, kafka (perf and latency tools), pgbench, console (the
                     console the bench runs beside the pipeline, with a live flow page open)
  --no-write         do not rewrite BENCHMARKS.md (the report folder is written anyway)

Environment: BENCH_REUSE_INFRA=1 uses an already running Kafka at KAFKA_BROKERS (default
127.0.0.1:9092) instead of starting one; BENCH_PORT_BASE (3100; the services take 5 ports from
it, the counting mail sink the sixth, the console the seventh), BENCH_DB_PREFIX (bench_); BENCH_TRACE_RATIO (0.01);
BENCH_MAIL_SINK (counting, or external: the SMTP server at SMTP_URL); PG* for PostgreSQL.`;

const list = (text: string): number[] =>
  text.split(',').map((part) => {
    const value = Number(part);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`not a positive number: "${part}"`);
    return value;
  });

const seconds = (text: string): number => {
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0) throw new Error(`not a number of seconds: "${text}"`);
  return value;
};

export function parseBenchArgs(argv: readonly string[]): BenchConfig | 'help' {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      quick: { type: 'boolean' },
      steps: { type: 'string' },
      'step-seconds': { type: 'string' },
      'warmup-max-seconds': { type: 'string' },
      skip: { type: 'string' },
      'no-write': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  const quick = values.quick ?? false;
  const skip = new Set((values.skip ?? '').split(',').filter((s) => s !== ''));
  for (const part of skip)
    if (!['pipeline', 'kafka', 'pgbench', 'console'].includes(part))
      throw new Error(`--skip: unknown part "${part}"`);
  return {
    quick,
    warmup: {
      rate: 20,
      windowSeconds: quick ? 10 : 15,
      maxSeconds: values['warmup-max-seconds'] ? seconds(values['warmup-max-seconds']) : quick ? 90 : 180,
      tolerance: 0.2,
    },
    steps: values.steps ? list(values.steps) : rateSteps(quick),
    floorRate: FloorRate,
    refine: !quick,
    confirm: !quick,
    stepSeconds: values['step-seconds'] ? (list(values['step-seconds'])[0] ?? 30) : quick ? 10 : 25,
    drainSeconds: quick ? 15 : 30,
    halfRateSeconds: quick ? 15 : 60,
    idleSeconds: quick ? 5 : 10,
    kafkaRecords: quick ? 30_000 : 300_000,
    pgbenchSeconds: quick ? 8 : 20,
    pgbenchClients: quick ? [1, 4] : [1, 4, 8],
    skip: skip as BenchConfig['skip'],
    writeBenchmarks: !(values['no-write'] ?? false),
  };
}
