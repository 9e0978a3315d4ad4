import { resolve } from 'node:path';
import type { StackOptions } from './stack-under-test';

export const repoRoot = resolve(__dirname, '../../..');

/** Where the stack under test runs and what its services are told, from the bench's environment. */
export function stackOptions(runId: string, logDir: string): StackOptions {
  const prefix = `bench-${runId}.`;
  const portBase = Number(process.env.BENCH_PORT_BASE ?? 3100);
  const mailSink = mailSinkKind();
  return {
    repoRoot,
    pg: {
      host: process.env.PGHOST ?? '127.0.0.1',
      port: Number(process.env.PGPORT ?? 5432),
      user: process.env.PGUSER ?? 'postgres',
    },
    dbPrefix: process.env.BENCH_DB_PREFIX ?? 'bench_',
    portBase,
    kafkaBrokers: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
    topicPrefix: prefix,
    groupPrefix: prefix,
    mailSink,
    smtpUrl:
      mailSink === 'counting'
        ? `smtp://127.0.0.1:${portBase + 5}`
        : (process.env.SMTP_URL ?? 'smtp://127.0.0.1:1025'),
    logDir,
    ...(process.env.BENCH_CPU_PROFILE === '1' ? { cpuProfileDir: `${logDir}/../profiles` } : {}),
    env: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'log', ...tracingEnv() },
  };
}

/**
 * `counting` (default): the bench's own SMTP sink, which counts and discards (maildev costs more
 * CPU per email than the email service and keeps every message); `external`: SMTP_URL.
 */
function mailSinkKind(): StackOptions['mailSink'] {
  const kind = process.env.BENCH_MAIL_SINK ?? 'counting';
  if (kind !== 'counting' && kind !== 'external')
    throw new Error(`BENCH_MAIL_SINK must be counting or external, got "${kind}"`);
  return kind;
}

/** The mail sink the email service sent to, as BENCHMARKS.md states it. */
export const describeMailSink = (options: StackOptions): string =>
  options.mailSink === 'counting'
    ? `the bench's counting SMTP sink (smtp-server: accepts, counts and discards every message) on ${options.smtpUrl}`
    : `the SMTP server at ${options.smtpUrl} (BENCH_MAIL_SINK=external)`;

/**
 * Tracing as production would run it: on, sampled at a realistic ratio (`BENCH_TRACE_RATIO`,
 * default 0.01 at these rates, parent-based), exported to the local Zipkin. 0 turns it off.
 * The services' batch span processor exports every 500 ms instead of the SDK's 5 s: the bench
 * reads each step's traces back right after the step (step-traces.ts, `readStepHops`), once two
 * reads a second apart find the same spans, which only says "all in" when a second spans more
 * than one export. Batches still go out early once full (512 spans), as at any delay.
 */
function tracingEnv(): Record<string, string> {
  const ratio = traceRatio();
  if (ratio === 0) return { OTEL_TRACES_EXPORTER: 'none' };
  return {
    OTEL_TRACES_EXPORTER: 'zipkin',
    OTEL_EXPORTER_ZIPKIN_ENDPOINT: zipkinEndpoint(),
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: String(ratio),
    OTEL_BSP_SCHEDULE_DELAY: process.env.OTEL_BSP_SCHEDULE_DELAY ?? '500',
  };
}

const zipkinEndpoint = (): string =>
  process.env.OTEL_EXPORTER_ZIPKIN_ENDPOINT ?? 'http://127.0.0.1:9411/api/v2/spans';

/** The Zipkin the services export to, where the bench reads the sampled orders' traces back. */
export const zipkinUrl = (): string => new URL(zipkinEndpoint()).origin;

/** BENCH_TRACE_RATIO (default 0.01): the load generator flags this fraction of orders sampled. */
export function traceRatio(): number {
  const ratio = Number(process.env.BENCH_TRACE_RATIO ?? '0.01');
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1)
    throw new Error('BENCH_TRACE_RATIO must be between 0 and 1');
  return ratio;
}

/** The tracing the services ran with, as BENCHMARKS.md states it. */
export function describeTracing(): string {
  const ratio = traceRatio();
  return ratio === 0
    ? 'off (BENCH_TRACE_RATIO=0)'
    : `on, ${Number((ratio * 100).toPrecision(3))} % of orders traced (the load generator flags them sampled in their traceparent, the services' parent-based sampler follows; BENCH_TRACE_RATIO=${ratio}), exported to Zipkin`;
}
