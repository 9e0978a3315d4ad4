import type { Admin } from 'kafkajs';
import { DefaultGroups } from '../loadgen/args';
import { readGroupLag } from '@pipeline/load';
import { perOrderCounters, stepResult } from './assemble-results';
import type { BenchConfig } from './bench-args';
import { repoRoot } from './bench-environment';
import { say } from './bench-log';
import type { StepResult } from './bench-results';
import { runLoadStep } from './load-step';
import type { SinkCounts } from './mail-sink/counting-smtp-sink';
import { SinkProcess } from './mail-sink/sink-process';
import { refineStep } from './rate-steps';
import { CpuMeter, pidListeningOn, rssMiB, RssWatcher, type CpuSnapshot, type CpuUsage } from './proc-stats';
import {
  databaseCounters,
  databaseName,
  RunningStack,
  servicePort,
  Services,
  withClient,
  type DatabaseCounters,
  type StackOptions,
} from './stack-under-test';
import { judgeStep } from './step-verdict';

/** What the pipeline run fills in as it goes, so a failure part-way still leaves what was measured. */
export interface PipelineMeasurements {
  readonly steps: StepResult[];
  readonly maxRssMiB: Record<string, number>;
  readonly rssAtReadyMiB: Record<string, number>;
  idle?: CpuUsage;
  /** What the counting mail sink received over the whole run (all steps). */
  emails?: SinkCounts;
}

export interface PipelineOutcome {
  readonly sustainable: number;
  readonly half?: StepResult;
  readonly placed: number;
}

interface StepContext {
  readonly config: BenchConfig;
  readonly options: StackOptions;
  readonly outDir: string;
  readonly admin: Admin;
  readonly meter: CpuMeter;
  readonly steps: StepResult[];
  readonly onLoadgenStarted: (pid: number) => void;
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

/** One constant-rate load step against the running stack, measured and judged. */
async function runStep(
  context: StepContext,
  label: StepResult['label'],
  rate: number,
  seconds: number,
): Promise<StepResult> {
  const { config, options, admin, meter } = context;
  const name = `${label.replace(/[^a-z]/g, '')}-${rate}`;
  const dbs = Services.map((s) => databaseName(options, s));
  const backlog = await waitForCatchUp(admin, options, 60);
  if (backlog > 0) say(`  (still ${backlog} records behind after 60 s; starting anyway)`);
  say(`${label}: ${rate} orders/s for ${seconds} s`);
  let start: CpuSnapshot | undefined;
  let end: CpuSnapshot | undefined;
  let dbStart: Promise<Record<string, DatabaseCounters> | undefined> | undefined;
  let dbEnd: Promise<Record<string, DatabaseCounters> | undefined> | undefined;
  const report = await runLoadStep({
    repoRoot,
    baseUrl: `http://127.0.0.1:${servicePort(options, 'order')}`,
    kafkaBrokers: options.kafkaBrokers,
    topicPrefix: options.topicPrefix,
    groupPrefix: options.groupPrefix,
    rate,
    seconds,
    drainSeconds: config.drainSeconds,
    seed: 1000 + context.steps.length,
    out: `${context.outDir}/loadgen-${name}.json`,
    onStarted: context.onLoadgenStarted,
    onProgress: (line) => {
      // CPU is measured over the load only (from its first second), not the group join or drain.
      if (start === undefined && line.startsWith('t=1s')) {
        start = meter.snapshot();
        dbStart = countersOrNothing(options, dbs);
      }
      if (line.includes('load done')) {
        end = meter.snapshot();
        dbEnd = countersOrNothing(options, dbs);
      }
      if (/^t=\d*[05]s/.test(line) || !line.startsWith('t=')) say(`  ${line}`);
    },
  });
  const verdict = judgeStep(report, rate);
  const cpu = start && end ? meter.usage(start, end) : undefined;
  // Orders placed in the measured window, at the rate the run achieved (below the offered one
  // when the pipeline could not keep up).
  const ordersInWindow = cpu ? report.achievedRate * cpu.seconds : report.totals.placed;
  const [countersAtStart, countersAtEnd] = [await dbStart, await dbEnd];
  const perOrder =
    countersAtStart && countersAtEnd
      ? perOrderCounters(countersAtStart, countersAtEnd, ordersInWindow)
      : undefined;
  const result = stepResult({
    label,
    rate,
    report,
    verdict,
    cpu,
    ordersInWindow,
    perOrder,
    reportFile: `loadgen-${name}.html`,
  });
  context.steps.push(result);
  say(
    `  => ${verdict.sustainable ? 'SUSTAINABLE' : `NOT sustainable (${verdict.reasons.join('; ')})`}: e2e p50 ${report.latency.e2e.p50.toFixed(0)} ms, p99 ${report.latency.e2e.p99.toFixed(0)} ms, lost ${result.lost}, duplicated ${result.duplicated}`,
  );
  return result;
}

/**
 * Starts the five services, measures them idle, then steps the load up until a step is not
 * sustainable, and runs the half rate of the last sustainable one.
 */
export async function runPipeline(
  config: BenchConfig,
  options: StackOptions,
  outDir: string,
  admin: Admin,
  results: PipelineMeasurements,
): Promise<PipelineOutcome> {
  const stack = new RunningStack(options);
  say(
    `starting the five services (ports ${options.portBase}-${options.portBase + 4}, topics ${options.topicPrefix}*)`,
  );
  const kafkaPort = Number(options.kafkaBrokers.split(',')[0]?.split(':')[1] ?? 9092);
  const kafkaPid = pidListeningOn(kafkaPort);
  let sink: SinkProcess | undefined;
  const rss = new RssWatcher(() => ({
    ...stack.pids(),
    ...(kafkaPid ? { kafka: kafkaPid } : {}),
    ...(sink?.pid ? { 'smtp sink': sink.pid } : {}),
  }));
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
    ...(options.mailSink === 'counting'
      ? [{ name: 'smtp sink', pids: () => (sink?.pid ? [sink.pid] : []) }]
      : []),
  ]);
  let placed = 0;
  try {
    if (options.mailSink === 'counting')
      sink = await SinkProcess.start(
        repoRoot,
        Number(new URL(options.smtpUrl).port),
        `${options.logDir}/smtp-sink.log`,
      );
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
    const context: StepContext = {
      config,
      options,
      outDir,
      admin,
      meter,
      steps: results.steps,
      onLoadgenStarted: (pid) => (loadgenPid = pid),
    };
    const step = async (label: StepResult['label'], rate: number, seconds: number): Promise<StepResult> => {
      const result = await runStep(context, label, rate, seconds);
      placed += result.placed;
      return result;
    };

    await step('warm-up', config.warmup.rate, config.warmup.seconds);
    let sustainable = 0;
    let failed: number | undefined;
    for (const rate of config.steps) {
      const result = await step('step', rate, config.stepSeconds);
      if (!result.verdict.sustainable) {
        failed = rate;
        break;
      }
      sustainable = rate;
    }
    const between = config.refine && failed !== undefined ? refineStep(sustainable, failed) : undefined;
    if (between !== undefined && (await step('step', between, config.stepSeconds)).verdict.sustainable)
      sustainable = between;
    const halfRate = Math.max(1, Math.round((sustainable || config.steps[0]!) / 2));
    const half = await step('half rate', halfRate, config.halfRateSeconds);
    return { sustainable, half, placed };
  } finally {
    clearInterval(backendTimer);
    rss.stop();
    Object.assign(results.maxRssMiB, rss.maxMiB);
    say('stopping the services');
    await stack.stop();
    // After the services stopped: every email they sent has been accepted by now.
    results.emails = await sink?.counts().catch(() => undefined);
    await sink?.stop();
  }
}

/**
 * The database counters, read while the step runs and awaited only after it: a failed read is
 * "not measured" (handled at once), never an unhandled rejection that would end the bench with
 * its services still running.
 */
function countersOrNothing(
  options: StackOptions,
  dbs: Parameters<typeof databaseCounters>[1],
): Promise<Record<string, DatabaseCounters> | undefined> {
  return databaseCounters(options, dbs).catch((error: unknown) => {
    say(`  database counters not measured: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  });
}
