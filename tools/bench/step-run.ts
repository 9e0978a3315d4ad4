import type { Admin } from 'kafkajs';
import { DefaultGroups, readGroupLag } from '@pipeline/load';
import { withSpeedCheck } from './speed-check';
import { cpuMsPerOrder, perOrderCounters, stepResult } from './assemble-results';
import type { BenchConfig } from './bench-args';
import { repoRoot, traceRatio } from './bench-environment';
import { say } from './bench-log';
import type { StepResult } from './bench-results';
import { runLoadStep } from './load-step';
import { trafficBetween, type OpenFlowPage, type PageTraffic } from './console-page';
import type { CpuMeter, CpuSnapshot } from './proc-stats';
import { readWork, type WorkReading } from './read-counters';
import { servicePort, type StackOptions } from './stack-under-test';
import { readStepHops, type SettleOptions } from './step-traces';
import { judgeStep } from './step-verdict';
import { stepCounts, type IdleRates } from './work-counts';

export interface StepContext {
  readonly config: BenchConfig;
  readonly options: StackOptions;
  readonly outDir: string;
  readonly admin: Admin;
  readonly meter: CpuMeter;
  readonly steps: StepResult[];
  readonly onLoadgenStarted: (pid: number) => void;
  /** The live flow page kept open on the console, when the bench runs one. */
  readonly page?: OpenFlowPage;
  /** The counters' growth per second with no load, once measured. */
  idleRates?: IdleRates;
  /** The console's CPU with the page open and no load, in cores, once measured. */
  consoleIdleCoreShare?: number;
  /**
   * The Zipkin the services export to, when each measured step's sampled orders' traces are to be
   * read back right after it (its per-hop breakdown, `hops`): the bench with tracing on. None for
   * the soak's ramp, which wants no breakdown.
   */
  readonly traces?: { readonly zipkinUrl: string; readonly settle?: SettleOptions };
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

/** What is read at the load window's start (`t=1s`) and end (`load done`). */
interface WindowEdges {
  cpu?: CpuSnapshot;
  page?: PageTraffic;
  work?: Promise<WorkReading | undefined>;
}

/** The loadgen's progress lines mark the window: CPU and counters over the load, not the join or drain. */
function windowWatcher(context: StepContext, start: WindowEdges, end: WindowEdges) {
  return (line: string): void => {
    if (start.cpu === undefined && line.startsWith('t=1s')) {
      start.cpu = context.meter.snapshot();
      start.page = context.page?.traffic();
      start.work = readWork(context.options);
    }
    if (line.includes('load done')) {
      end.cpu = context.meter.snapshot();
      end.page = context.page?.traffic();
      end.work = readWork(context.options);
    }
    if (/^t=\d*[05]s/.test(line) || !line.startsWith('t=')) say(`  ${line}`);
  };
}

/**
 * One constant-rate load step against the running stack, measured and judged. `again`: the second
 * run of a rate whose first was not kept up with (`RampPolicy.confirm`).
 */
export async function runStep(
  context: StepContext,
  label: StepResult['label'],
  rate: number,
  seconds: number,
  again = false,
): Promise<StepResult> {
  const { config, options, admin, meter } = context;
  const name = `${label.replace(/[^a-z]/g, '')}-${rate}${again ? '-again' : ''}`;
  const backlog = await waitForCatchUp(admin, options, 60);
  if (backlog > 0) say(`  (still ${backlog} records behind after 60 s; starting anyway)`);
  say(`${label}${again ? ' (again)' : ''}: ${rate} orders/s for ${seconds} s`);
  const [start, end]: [WindowEdges, WindowEdges] = [{}, {}];
  // The machine's own speed while the step runs: its CPU figures are read against it.
  const { value: report, speedCheckMs } = await withSpeedCheck(() =>
    runLoadStep({
      repoRoot,
      baseUrl: `http://127.0.0.1:${servicePort(options, 'order')}`,
      kafkaBrokers: options.kafkaBrokers,
      topicPrefix: options.topicPrefix,
      groupPrefix: options.groupPrefix,
      rate,
      seconds,
      drainSeconds: config.drainSeconds,
      seed: 1000 + context.steps.length,
      traceRatio: traceRatio(),
      out: `${context.outDir}/loadgen-${name}.json`,
      onStarted: context.onLoadgenStarted,
      onProgress: windowWatcher(context, start, end),
    }),
  );
  const verdict = judgeStep(report, rate);
  const cpu = start.cpu && end.cpu ? meter.usage(start.cpu, end.cpu) : undefined;
  // Orders placed in the measured window, at the rate the run achieved (below the offered one
  // when the pipeline could not keep up).
  const ordersInWindow = cpu ? report.achievedRate * cpu.seconds : report.totals.placed;
  const [workAtStart, workAtEnd] = [await start.work, await end.work];
  const both = workAtStart && workAtEnd ? ([workAtStart, workAtEnd] as const) : undefined;
  const result = stepResult({
    label,
    rate,
    again,
    ...(speedCheckMs !== undefined ? { speedCheckMs } : {}),
    report,
    verdict,
    cpu,
    ordersInWindow,
    ...(start.page && end.page ? { page: trafficBetween(start.page, end.page) } : {}),
    ...(context.consoleIdleCoreShare !== undefined
      ? { consoleIdleCoreShare: context.consoleIdleCoreShare }
      : {}),
    perOrder: both ? perOrderCounters(both[0].databases, both[1].databases, ordersInWindow) : undefined,
    counts:
      both && cpu
        ? stepCounts(
            both[0].counters,
            both[1].counters,
            { orders: ordersInWindow, seconds: cpu.seconds },
            context.idleRates,
          )
        : undefined,
    reportFile: `loadgen-${name}.html`,
  });
  sayOutcome(result);
  const hops = context.traces ? await readHops(context, context.traces, result) : undefined;
  const measured = hops ? { ...result, hops } : result;
  context.steps.push(measured);
  return measured;
}

/**
 * A measured step's per-hop breakdown, read now, before the next step: Zipkin keeps a bounded
 * number of spans, and the later (faster) steps' traces would push this one's out by the end of
 * the run. First every group catches up (as the next step would wait for anyway): a consumer
 * still working through a backlog, in transactions of seconds, exports its spans only as they
 * commit, and its hops would be missing from the traces.
 */
async function readHops(
  context: StepContext,
  traces: NonNullable<StepContext['traces']>,
  result: StepResult,
): Promise<StepResult['hops']> {
  if (result.label === 'warm-up') return undefined;
  const backlog = await waitForCatchUp(context.admin, context.options, 60);
  if (backlog > 0) say(`  (still ${backlog} records behind after 60 s; reading the step's traces anyway)`);
  return readStepHops(
    result,
    { url: traces.zipkinUrl, topicPrefix: context.options.topicPrefix },
    say,
    traces.settle,
  );
}

function sayOutcome(result: StepResult): void {
  const { verdict, e2e, counts } = result;
  say(
    `  => ${verdict.sustainable ? 'SUSTAINABLE' : `NOT sustainable (${verdict.reasons.join('; ')})`}: e2e p50 ${e2e.p50.toFixed(0)} ms, p99 ${e2e.p99.toFixed(0)} ms, lost ${result.lost}, duplicated ${result.duplicated}`,
  );
  const cpu =
    result.cpu && result.ordersInCpuWindow ? cpuMsPerOrder(result.cpu, result.ordersInCpuWindow) : undefined;
  if (counts)
    say(
      `     per order: ${counts.kafkaRequests.total} Kafka requests (${Object.entries(
        counts.kafkaRequests.byApi,
      )
        .map(([api, n]) => `${api} ${n}`)
        .join(
          ', ',
        )}), ${counts.dbCommits.total} commits, ${counts.dbStatements.total} statements${cpu ? `, ${cpu.total} CPU ms` : ''}${
        result.speedCheckMs === undefined ? '' : ` (speed check ${result.speedCheckMs.toFixed(1)} ms)`
      }${
        counts.kafkaResponseBytes?.byApi.Fetch === undefined
          ? ''
          : `, ${Math.round(counts.kafkaResponseBytes.byApi.Fetch)} Fetch bytes`
      }`,
    );
  if (result.console)
    say(
      `     console (flow page open): ${result.console.cpuMsPerOrder} CPU ms per order, ${(result.console.coreShare * 100).toFixed(1)} % of a core; the page got ${result.console.page?.streamEvents ?? '–'} stream events and ${result.console.page?.pollsOk ?? '–'} polls`,
    );
}
