import type { Admin } from 'kafkajs';
import type { BenchConfig } from './bench-args';
import { repoRoot, traceRatio, zipkinUrl } from './bench-environment';
import { say } from './bench-log';
import type { BenchResults, StepResult } from './bench-results';
import type { SinkCounts } from './mail-sink/counting-smtp-sink';
import { SinkProcess } from './mail-sink/sink-process';
import { CpuMeter, pidListeningOn, processAgeSeconds, rssMiB, RssWatcher, type CpuUsage } from './proc-stats';
import { climb, halfRate, warmUp, type RampOutcome, type WarmupSummary } from './ramp';
import { readWork } from './read-counters';
import { ConsoleGroup, splitGroup } from './assemble-results';
import { FlowPagePolls, FlowPageStream, OpenFlowPage } from './console-page';
import {
  consolePort,
  databaseName,
  RunningStack,
  Services,
  withClient,
  type StackOptions,
} from './stack-under-test';
import { runStep, type StepContext } from './step-run';
import { idleRates, type IdleRates } from './work-counts';

/** What the pipeline run fills in as it goes, so a failure part-way still leaves what was measured. */
export interface PipelineMeasurements {
  readonly steps: StepResult[];
  readonly maxRssMiB: Record<string, number>;
  readonly rssAtReadyMiB: Record<string, number>;
  idle?: CpuUsage;
  idleCounts?: IdleRates;
  /** The console beside the pipeline and its open page, when it ran. */
  console?: BenchResults['console'];
  warmup?: WarmupSummary;
  ramp?: BenchResults['ramp'];
  kafkaUptimeSeconds?: number;
  /** What the counting mail sink received over the whole run (all steps). */
  emails?: SinkCounts;
}

export interface PipelineOutcome {
  readonly sustainable: number;
  readonly half?: StepResult;
  readonly placed: number;
}

/** The PostgreSQL backends serving the bench databases only: the server may be shared with other work. */
class BenchBackends {
  pids: number[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: StackOptions) {}

  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), 2000);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async refresh(): Promise<void> {
    const databases = Services.map((s) => databaseName(this.options, s));
    this.pids = await withClient(this.options, 'postgres', async (c) =>
      (
        await c.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = ANY($1::text[])', [
          databases,
        ])
      ).rows.map((r) => r.pid),
    ).catch(() => this.pids);
  }
}

/** The processes whose CPU the bench reads, by name. */
function pipelineMeter(
  stack: RunningStack,
  kafkaPid: number | undefined,
  others: {
    backends: () => number[];
    loadgen: () => number | undefined;
    sink?: () => number | undefined;
    console: boolean;
  },
): CpuMeter {
  const one = (pid: number | undefined): number[] => (pid ? [pid] : []);
  return new CpuMeter([
    ...Services.map((s) => ({ name: `${s}-service`, pids: () => one(stack.pids()[s]) })),
    // Split out of every total again (assemble-results.ts): the console is not the pipeline.
    ...(others.console ? [{ name: ConsoleGroup, pids: () => one(stack.pids().console) }] : []),
    { name: 'kafka', pids: () => one(kafkaPid) },
    { name: 'postgres (bench backends)', pids: others.backends },
    { name: 'loadgen', pids: () => one(others.loadgen()) },
    ...(others.sink ? [{ name: 'smtp sink', pids: () => one(others.sink?.()) }] : []),
  ]);
}

const definedPids = (pids: Partial<Record<string, number>>): Record<string, number> =>
  Object.fromEntries(Object.entries(pids).filter((e): e is [string, number] => e[1] !== undefined));

/** Starts the console on the bench's topics and services, and opens a live flow page on it. */
async function openConsole(
  stack: RunningStack,
  options: StackOptions,
  results: PipelineMeasurements,
): Promise<OpenFlowPage> {
  say(`starting the console (port ${consolePort(options)}) with a live flow page open on it`);
  await stack.startConsole();
  const page = new OpenFlowPage(`http://127.0.0.1:${consolePort(options)}`);
  await page.open();
  results.console = { stream: FlowPageStream, polls: FlowPagePolls };
  return page;
}

/** CPU and counters with the stack ready and no load, after letting the start-up settle. */
async function measureIdle(context: StepContext, results: PipelineMeasurements): Promise<void> {
  const seconds = context.config.idleSeconds;
  // Right after start-up the services still join groups, relay the seeded catalogue and warm up
  // their JIT: let that settle first, or "idle" is several times the steady cost.
  say(`stack ready; measuring idle CPU for ${seconds} s after ${seconds} s of settling`);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const [cpuFrom, workFrom] = [context.meter.snapshot(), await readWork(context.options)];
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const [cpuTo, workTo] = [context.meter.snapshot(), await readWork(context.options)];
  const { rest, seconds: consoleSeconds } = splitGroup(context.meter.usage(cpuFrom, cpuTo), ConsoleGroup);
  results.idle = rest;
  if (consoleSeconds !== undefined && results.console) {
    context.consoleIdleCoreShare = consoleSeconds / Math.max(1e-9, rest.seconds);
    results.console = {
      ...results.console,
      idleCoreShare: Math.round(context.consoleIdleCoreShare * 1000) / 1000,
    };
  }
  if (workFrom && workTo) {
    results.idleCounts = idleRates(workFrom.counters, workTo.counters, results.idle.seconds);
    context.idleRates = results.idleCounts;
  }
}

/**
 * The warm-up, then the ramp (stepping down if its first step fails): the highest rate the stack
 * in `context` keeps up with. The bench runs it on its own stack, `npm run soak` on the local one.
 */
export async function findSustainableRate(
  context: StepContext,
  results: PipelineMeasurements,
  kafkaMeasured: boolean,
): Promise<RampOutcome> {
  const { config } = context;
  results.warmup = await warmUp(
    config.warmup,
    async (rate, seconds) => {
      const r = await runStep(context, 'warm-up', rate, seconds);
      const ms = kafkaMeasured ? r.cpuMsPerOrder?.byProcess.kafka : r.cpuMsPerOrder?.total;
      return { rate, ...(ms !== undefined ? { settleMsPerOrder: ms } : {}) };
    },
    kafkaMeasured ? 'kafka' : 'pipeline',
  );
  say(
    `warm-up ${results.warmup.settled ? 'settled' : 'did NOT settle'} after ${results.warmup.seconds} s: ${results.warmup.measure} CPU ms per order ${results.warmup.windows.map((w) => w.settleMsPerOrder?.toFixed(2) ?? '–').join(' → ')}`,
  );
  const ramp = await climb(
    { steps: config.steps, refine: config.refine, confirm: config.confirm, floor: config.floorRate },
    async (rate, again) =>
      (await runStep(context, 'step', rate, config.stepSeconds, again)).verdict.sustainable,
  );
  results.ramp = { steppedDown: ramp.steppedDown, floorReached: ramp.floorReached };
  if (ramp.steppedDown.length > 0)
    say(`the first step was not sustainable: stepped down to ${ramp.steppedDown.join(', ')} orders/s`);
  return ramp;
}

/** The ramp, then the half rate of what it found. */
async function runLoad(
  context: StepContext,
  results: PipelineMeasurements,
  kafkaMeasured: boolean,
): Promise<PipelineOutcome> {
  const ramp = await findSustainableRate(context, results, kafkaMeasured);
  const rate = halfRate(ramp.sustainable, context.config.floorRate);
  const half = await runStep(context, 'half rate', rate, context.config.halfRateSeconds);
  const placed = results.steps.reduce((sum, step) => sum + step.placed, 0);
  return { sustainable: ramp.sustainable, half, placed };
}

/**
 * Starts the five services, measures them idle, warms the broker up, then steps the load up until
 * a step is not sustainable, and runs the half rate of the last sustainable one.
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
  if (kafkaPid) results.kafkaUptimeSeconds = processAgeSeconds(kafkaPid);
  let sink: SinkProcess | undefined;
  const withConsole = !config.skip.has('console');
  let page: OpenFlowPage | undefined;
  const rss = new RssWatcher(() => ({
    ...definedPids(stack.pids()),
    ...(kafkaPid ? { kafka: kafkaPid } : {}),
    ...(sink?.pid ? { 'smtp sink': sink.pid } : {}),
  }));
  let loadgenPid: number | undefined;
  const backends = new BenchBackends(options);
  const meter = pipelineMeter(stack, kafkaPid, {
    backends: () => backends.pids,
    loadgen: () => loadgenPid,
    ...(options.mailSink === 'counting' ? { sink: () => sink?.pid } : {}),
    console: withConsole,
  });
  try {
    if (options.mailSink === 'counting')
      sink = await SinkProcess.start(
        repoRoot,
        Number(new URL(options.smtpUrl).port),
        `${options.logDir}/smtp-sink.log`,
      );
    await stack.start();
    if (withConsole) page = await openConsole(stack, options, results);
    await backends.start();
    for (const [name, pid] of Object.entries(definedPids(stack.pids())))
      results.rssAtReadyMiB[name] = rssMiB(pid) ?? 0;
    rss.start();
    const context: StepContext = {
      config,
      options,
      outDir,
      admin,
      meter,
      steps: results.steps,
      onLoadgenStarted: (pid) => (loadgenPid = pid),
      ...(page ? { page } : {}),
      ...(traceRatio() > 0 ? { traces: { zipkinUrl: zipkinUrl() } } : {}),
    };
    await measureIdle(context, results);
    return await runLoad(context, results, kafkaPid !== undefined);
  } finally {
    backends.stop();
    rss.stop();
    Object.assign(results.maxRssMiB, rss.maxMiB);
    say('stopping the services');
    await page?.close();
    await stack.stop();
    // After the services stopped: every email they sent has been accepted by now.
    results.emails = await sink?.counts().catch(() => undefined);
    await sink?.stop();
  }
}
