/**
 * `npm run bench`: the pipeline's highest sustainable rate, its latency at half that rate, and the
 * machine's own Kafka and PostgreSQL limits measured in the same run; writes BENCHMARKS.md.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createKafka } from '@pipeline/messaging';
import { logLevel, type Admin } from 'kafkajs';
import { DefaultGroups } from '../loadgen/args';
import { readGroupLag } from '../loadgen/lag-monitor';
import { BENCH_USAGE, parseBenchArgs, type BenchConfig } from './bench-args';
import type { BenchResults, StepResult } from './bench-results';
import { writeBenchmarks } from './benchmarks-md';
import { describeMachine } from './machine';
import { runLoadStep } from './load-step';
import { CpuMeter, pidListeningOn, rssMiB, RssWatcher, type CpuSnapshot, type CpuUsage } from './proc-stats';
import { measureKafka, measurePostgres } from './reference-limits';
import {
  databaseCounters,
  databaseName,
  dropDatabases,
  migrate,
  recreateDatabases,
  RunningStack,
  servicePort,
  Services,
  withClient,
  type DatabaseCounters,
  type StackOptions,
} from './stack-under-test';
import { judgeStep } from './step-verdict';

const repoRoot = resolve(__dirname, '../../..');
const t0 = Date.now();
const say = (line: string): void =>
  void process.stderr.write(`[bench ${((Date.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);

function stackOptions(runId: string, logDir: string): StackOptions {
  const prefix = `bench-${runId}.`;
  return {
    repoRoot,
    pg: {
      host: process.env.PGHOST ?? '127.0.0.1',
      port: Number(process.env.PGPORT ?? 5432),
      user: process.env.PGUSER ?? 'postgres',
    },
    dbPrefix: process.env.BENCH_DB_PREFIX ?? 'bench_',
    portBase: Number(process.env.BENCH_PORT_BASE ?? 3100),
    kafkaBrokers: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
    topicPrefix: prefix,
    groupPrefix: prefix,
    smtpUrl: process.env.SMTP_URL ?? 'smtp://127.0.0.1:1025',
    logDir,
    ...(process.env.BENCH_CPU_PROFILE === '1' ? { cpuProfileDir: `${logDir}/../profiles` } : {}),
    env: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'log', ...tracingEnv() },
  };
}

const diff = (
  before: Record<string, DatabaseCounters>,
  after: Record<string, DatabaseCounters>,
  orders: number,
): Record<string, DatabaseCounters> =>
  Object.fromEntries(
    Object.entries(after).map(([db, a]) => {
      const b = before[db];
      const per = (k: keyof DatabaseCounters): number =>
        Math.round(((a[k] - (b?.[k] ?? 0)) / Math.max(1, orders)) * 100) / 100;
      return [
        db,
        {
          commits: per('commits'),
          rollbacks: per('rollbacks'),
          inserted: per('inserted'),
          updated: per('updated'),
          deleted: per('deleted'),
        },
      ];
    }),
  );

async function sumEndOffsets(admin: Admin, prefix: string): Promise<Record<string, number>> {
  const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
  const sums: Record<string, number> = {};
  for (const topic of topics) {
    const offsets = await admin.fetchTopicOffsets(topic);
    sums[topic.slice(prefix.length)] = offsets.reduce((s, p) => s + Number(p.high), 0);
  }
  return sums;
}

/** Waits (bounded) until every service's group has caught up, so a step never inherits a backlog. */
async function waitForCatchUp(admin: Admin, options: StackOptions, maxSeconds: number): Promise<number> {
  const until = Date.now() + maxSeconds * 1000;
  let lag = 0;
  do {
    lag = 0;
    for (const [group, topics] of Object.entries(DefaultGroups))
      lag += await readGroupLag(
        admin,
        options.groupPrefix + group,
        topics.map((topic) => options.topicPrefix + topic),
      ).catch(() => 0);
    if (lag === 0) return 0;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  } while (Date.now() < until);
  return lag;
}

async function pipeline(
  config: BenchConfig,
  options: StackOptions,
  outDir: string,
  admin: Admin,
  results: {
    steps: StepResult[];
    maxRssMiB: Record<string, number>;
    rssAtReadyMiB: Record<string, number>;
    idle?: CpuUsage;
  },
): Promise<{ sustainable: number; half?: StepResult; placed: number }> {
  const stack = new RunningStack(options);
  say(
    `starting the five services (ports ${options.portBase}-${options.portBase + 4}, topics ${options.topicPrefix}*)`,
  );
  const kafkaPort = Number(options.kafkaBrokers.split(',')[0]?.split(':')[1] ?? 9092);
  const kafkaPid = pidListeningOn(kafkaPort);
  const rss = new RssWatcher(() => ({ ...stack.pids(), ...(kafkaPid ? { kafka: kafkaPid } : {}) }));
  let loadgenPid: number | undefined;
  // Only the backends serving the bench databases: the server may be shared with other work.
  let backends: number[] = [];
  const refreshBackends = async (): Promise<void> => {
    backends = await withClient(options, 'postgres', async (c) =>
      (
        await c.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = ANY($1::text[])', [
          Services.map((s) => databaseName(options, s)),
        ])
      ).rows.map((r) => r.pid),
    ).catch(() => backends);
  };
  const backendTimer = setInterval(() => void refreshBackends(), 2000);
  const meter = new CpuMeter([
    ...Services.map((s) => ({
      name: `${s}-service`,
      pids: () => (stack.pids()[s] ? [stack.pids()[s]!] : []),
    })),
    { name: 'kafka', pids: () => (kafkaPid ? [kafkaPid] : []) },
    { name: 'postgres (bench backends)', pids: () => backends },
    { name: 'loadgen', pids: () => (loadgenPid ? [loadgenPid] : []) },
  ]);
  let placed = 0;
  try {
    await stack.start();
    await refreshBackends();
    for (const [name, pid] of Object.entries(stack.pids())) results.rssAtReadyMiB[name] = rssMiB(pid) ?? 0;
    rss.start();
    // Right after start-up the services still join groups, relay the seeded catalogue and warm up
    // their JIT: let that settle first, or "idle" is several times the steady cost.
    say(
      `stack ready; measuring idle CPU for ${config.idleSeconds} s after ${config.idleSeconds} s of settling`,
    );
    await new Promise((resolve) => setTimeout(resolve, config.idleSeconds * 1000));
    const idleFrom = meter.snapshot();
    await new Promise((resolve) => setTimeout(resolve, config.idleSeconds * 1000));
    results.idle = meter.usage(idleFrom, meter.snapshot());
    const dbs = Services.map((s) => databaseName(options, s));
    const step = async (label: StepResult['label'], rate: number, seconds: number): Promise<StepResult> => {
      const name = `${label.replace(/[^a-z]/g, '')}-${rate}`;
      const backlog = await waitForCatchUp(admin, options, 60);
      if (backlog > 0) say(`  (still ${backlog} records behind after 60 s; starting anyway)`);
      say(`${label}: ${rate} orders/s for ${seconds} s`);
      let start: CpuSnapshot | undefined;
      let end: CpuSnapshot | undefined;
      let dbStart: Promise<Record<string, DatabaseCounters>> | undefined;
      let dbEnd: Promise<Record<string, DatabaseCounters>> | undefined;
      const report = await runLoadStep({
        repoRoot,
        baseUrl: `http://127.0.0.1:${servicePort(options, 'order')}`,
        kafkaBrokers: options.kafkaBrokers,
        topicPrefix: options.topicPrefix,
        groupPrefix: options.groupPrefix,
        rate,
        seconds,
        drainSeconds: config.drainSeconds,
        seed: 1000 + results.steps.length,
        out: `${outDir}/loadgen-${name}.json`,
        onStarted: (pid) => (loadgenPid = pid),
        onProgress: (line) => {
          // CPU is measured over the load only (from its first second), not the group join or drain.
          if (start === undefined && line.startsWith('t=1s')) {
            start = meter.snapshot();
            dbStart = databaseCounters(options, dbs);
          }
          if (line.includes('load done')) {
            end = meter.snapshot();
            dbEnd = databaseCounters(options, dbs);
          }
          if (/^t=\d*[05]s/.test(line) || !line.startsWith('t=')) say(`  ${line}`);
        },
      });
      placed += report.totals.placed;
      const verdict = judgeStep(report, rate);
      const cpu = start && end ? meter.usage(start, end) : undefined;
      // Orders placed in the measured window, at the rate the run achieved (below the offered one
      // when the pipeline could not keep up).
      const ordersInWindow = cpu ? report.achievedRate * cpu.seconds : report.totals.placed;
      const perOrder = dbStart && dbEnd ? diff(await dbStart, await dbEnd, ordersInWindow) : undefined;
      const errors = Object.values(report.totals.httpErrors).reduce((a, b) => a + b, 0);
      const result: StepResult = {
        label,
        offered: rate,
        achieved: report.achievedRate,
        terminalPerSecond:
          (report.totals.terminalEvents['order.confirmed'] +
            report.totals.terminalEvents['order.cancelled']) /
          report.durationSeconds,
        placed: report.totals.placed,
        lost: report.totals.lost,
        duplicated: report.totals.duplicated,
        httpErrors: errors + report.totals.dropped,
        e2e: report.latency.e2e,
        e2eConfirmed: report.latency.e2eConfirmed,
        http: report.latency.http,
        maxLagByGroup: report.lag.maxByGroup,
        verdict,
        ...(cpu ? { cpu, ordersInCpuWindow: ordersInWindow } : {}),
        ...(perOrder ? { perOrder } : {}),
        report: `loadgen-${name}.html`,
      };
      results.steps.push(result);
      say(
        `  => ${verdict.sustainable ? 'SUSTAINABLE' : `NOT sustainable (${verdict.reasons.join('; ')})`}: e2e p50 ${report.latency.e2e.p50.toFixed(0)} ms, p99 ${report.latency.e2e.p99.toFixed(0)} ms, lost ${result.lost}, duplicated ${result.duplicated}`,
      );
      return result;
    };

    await step('warm-up', config.warmup.rate, config.warmup.seconds);
    let sustainable = 0;
    for (const rate of config.steps) {
      const result = await step('step', rate, config.stepSeconds);
      if (!result.verdict.sustainable) break;
      sustainable = rate;
    }
    const halfRate = Math.max(1, Math.round((sustainable || config.steps[0]!) / 2));
    const half = await step('half rate', halfRate, config.halfRateSeconds);
    return { sustainable, half, placed };
  } finally {
    clearInterval(backendTimer);
    rss.stop();
    Object.assign(results.maxRssMiB, rss.maxMiB);
    say('stopping the services');
    await stack.stop();
  }
}

async function main(argv: string[]): Promise<number> {
  const config = parseBenchArgs(argv);
  if (config === 'help') {
    process.stdout.write(`${BENCH_USAGE}\n`);
    return 0;
  }
  const startedAt = new Date();
  const runId = startedAt.toISOString().replace(/[-:]/g, '').replace(/\..*/, '').toLowerCase();
  const outDir = `${repoRoot}/reports/bench-${runId}`;
  const logDir = `${outDir}/logs`;
  await mkdir(logDir, { recursive: true });
  const options = stackOptions(runId, logDir);
  say(`report folder: reports/bench-${runId} (${config.quick ? 'quick' : 'full'} run)`);

  const postgresVersion = await withClient(options, 'postgres', async (c) =>
    String((await c.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version),
  );
  const machine = describeMachine(repoRoot, postgresVersion);
  const kafka = createKafka(
    { brokers: options.kafkaBrokers.split(','), clientId: 'bench' },
    { logLevel: logLevel.ERROR },
  );
  const admin = kafka.admin();
  await admin.connect();
  const databases = [...Services.map((s) => databaseName(options, s)), databaseName(options, 'pgbench')];
  const steps: StepResult[] = [];
  const maxRssMiB: Record<string, number> = {};
  const rssAtReadyMiB: Record<string, number> = {};
  const collected: {
    steps: StepResult[];
    maxRssMiB: Record<string, number>;
    rssAtReadyMiB: Record<string, number>;
    idle?: CpuUsage;
  } = { steps, maxRssMiB, rssAtReadyMiB };
  const errors: string[] = [];
  let outcome: { sustainable: number; half?: StepResult; placed: number } = { sustainable: 0, placed: 0 };
  let recordsPerOrder: BenchResults['recordsPerOrder'];
  let kafkaLimits: BenchResults['kafka'];
  let pgbench: BenchResults['pgbench'];
  try {
    say('creating and migrating fresh databases');
    await recreateDatabases(options, databases);
    await Promise.all([
      ...Services.map((s) => migrate(options, s, databaseName(options, s))),
      migrate(options, 'inventory', databaseName(options, 'pgbench')),
    ]);
    if (!config.skip.has('pipeline')) {
      try {
        outcome = await pipeline(config, options, outDir, admin, collected);
        const ends = await sumEndOffsets(admin, options.topicPrefix);
        const produced = Object.values(ends).reduce((a, b) => a + b, 0);
        const consumed = Object.values(DefaultGroups)
          .flat()
          .reduce((sum, topic) => sum + (ends[topic] ?? 0), 0);
        const per = (n: number): number => Math.round((n / Math.max(1, outcome.placed)) * 100) / 100;
        recordsPerOrder = { produced: per(produced), consumed: per(consumed) };
      } catch (error) {
        errors.push(`pipeline: ${String(error)}`);
        say(`pipeline failed: ${String(error)}`);
      }
    }
    if (!config.skip.has('kafka')) {
      try {
        kafkaLimits = await measureKafka({
          repoRoot,
          admin,
          brokers: options.kafkaBrokers,
          topic: `${options.topicPrefix}perf`,
          records: config.kafkaRecords,
          recordSize: 512,
          log: say,
        });
        say(
          `  producer ${kafkaLimits.producer.linger0.recordsPerSecond.toFixed(0)}/s (linger 0), ${kafkaLimits.producer.linger20.recordsPerSecond.toFixed(0)}/s (linger 20); consumer ${kafkaLimits.consumer.recordsPerSecond.toFixed(0)}/s`,
        );
      } catch (error) {
        errors.push(`kafka perf: ${String(error)}`);
        say(`kafka perf failed: ${String(error)}`);
      }
    }
    if (!config.skip.has('pgbench')) {
      try {
        const db = databaseName(options, 'pgbench');
        await withClient(options, db, (c) =>
          c.query(
            `INSERT INTO stock (sku, available) SELECT 'SKU-' || n, 1000000000 FROM generate_series(1, 1000) n`,
          ),
        );
        pgbench = await measurePostgres({
          scriptPath: `${outDir}/pgbench-hop.sql`,
          database: db,
          pg: options.pg,
          seconds: config.pgbenchSeconds,
          clients: config.pgbenchClients,
          log: say,
        });
        say(`  pgbench: ${pgbench.map((r) => `${r.clients} clients ${r.tps.toFixed(0)} tps`).join(', ')}`);
      } catch (error) {
        errors.push(`pgbench: ${String(error)}`);
        say(`pgbench failed: ${String(error)}`);
      }
    }
  } finally {
    const topics = (await admin.listTopics().catch(() => [] as string[])).filter((t) =>
      t.startsWith(options.topicPrefix),
    );
    await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
    if (process.env.BENCH_KEEP_DATABASES !== '1')
      await dropDatabases(options, databases).catch(() => undefined);
  }

  const results: BenchResults = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    mode: config.quick ? 'quick' : 'full',
    tracing: describeTracing(),
    machine,
    steps,
    sustainableRate: outcome.sustainable,
    ...(outcome.half ? { halfRate: outcome.half } : {}),
    maxRssMiB,
    rssAtReadyMiB,
    ...(collected.idle ? { idleCpu: collected.idle } : {}),
    ...(recordsPerOrder ? { recordsPerOrder } : {}),
    ...(kafkaLimits ? { kafka: kafkaLimits } : {}),
    ...(pgbench ? { pgbench } : {}),
    errors,
  };
  await writeFile(`${outDir}/bench.json`, `${JSON.stringify(results, null, 2)}\n`);
  const written = await writeBenchmarks(results, { repoRoot, outDir, write: config.writeBenchmarks });
  say(`done in ${((Date.now() - t0) / 1000).toFixed(0)} s: sustainable ${results.sustainableRate} orders/s`);
  for (const file of written) say(`  wrote ${file}`);
  return errors.length > 0 ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(
      `bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);

/**
 * Tracing as production would run it: on, sampled at a realistic ratio (`BENCH_TRACE_RATIO`,
 * default 0.1, parent-based), exported to the local Zipkin. `BENCH_TRACE_RATIO=0` turns it off.
 */
function tracingEnv(): Record<string, string> {
  const ratio = traceRatio();
  if (ratio === 0) return { OTEL_TRACES_EXPORTER: 'none' };
  return {
    OTEL_TRACES_EXPORTER: 'zipkin',
    OTEL_EXPORTER_ZIPKIN_ENDPOINT:
      process.env.OTEL_EXPORTER_ZIPKIN_ENDPOINT ?? 'http://127.0.0.1:9411/api/v2/spans',
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: String(ratio),
  };
}

function traceRatio(): number {
  const ratio = Number(process.env.BENCH_TRACE_RATIO ?? '0.1');
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1)
    throw new Error('BENCH_TRACE_RATIO must be between 0 and 1');
  return ratio;
}

function describeTracing(): string {
  const ratio = traceRatio();
  return ratio === 0
    ? 'off (BENCH_TRACE_RATIO=0)'
    : `on, OpenTelemetry sampling ${ratio * 100} % of orders (parent-based trace-id ratio), exported to Zipkin`;
}
