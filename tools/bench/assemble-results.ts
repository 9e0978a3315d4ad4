import type { Admin } from 'kafkajs';
import { DefaultGroups, type LoadReport } from '@pipeline/load';
import type { BenchResults, StepResult } from './bench-results';
import type { PageTraffic } from './console-page';
import { normalise } from './calibration';
import type { MachineDescription } from './machine';
import type { CpuUsage } from './proc-stats';
import type { DatabaseCounters } from './stack-under-test';
import type { StepVerdict } from './step-verdict';
import type { StepCounts } from './work-counts';

const perPlaced = (n: number, orders: number): number => Math.round((n / Math.max(1, orders)) * 100) / 100;

/** Per database: how much each counter grew between two readings, per order. */
export const perOrderCounters = (
  before: Record<string, DatabaseCounters>,
  after: Record<string, DatabaseCounters>,
  orders: number,
): Record<string, DatabaseCounters> =>
  Object.fromEntries(
    Object.entries(after).map(([db, a]) => {
      const b = before[db];
      const per = (k: keyof DatabaseCounters): number => perPlaced(a[k] - (b?.[k] ?? 0), orders);
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

/** CPU ms per order over a window: per process group, and over all of them. */
export function cpuMsPerOrder(cpu: CpuUsage, orders: number): NonNullable<StepResult['cpuMsPerOrder']> {
  const ms = (seconds: number): number => Math.round(((seconds * 1000) / Math.max(1, orders)) * 100) / 100;
  const byProcess = Object.fromEntries(Object.entries(cpu.byGroup).map(([name, sec]) => [name, ms(sec)]));
  return { total: ms(Object.values(cpu.byGroup).reduce((a, b) => a + b, 0)), byProcess };
}

/** Wake-ups (voluntary context switches) per order over a window: per process group, and over all of them. */
export function wakeupsPerOrder(
  cpu: CpuUsage,
  orders: number,
): NonNullable<StepResult['wakeupsPerOrder']> | undefined {
  if (cpu.wakeupsByGroup === undefined) return undefined;
  const per = (n: number): number => Math.round((n / Math.max(1, orders)) * 10) / 10;
  const byProcess = Object.fromEntries(Object.entries(cpu.wakeupsByGroup).map(([name, n]) => [name, per(n)]));
  return { total: per(Object.values(cpu.wakeupsByGroup).reduce((a, b) => a + b, 0)), byProcess };
}

/** The console's process group in the meter: measured beside the pipeline, never in its totals. */
export const ConsoleGroup = 'console';

/** A usage without one process group, and that group's CPU seconds (undefined when not metered). */
export function splitGroup(cpu: CpuUsage, name: string): { rest: CpuUsage; seconds: number | undefined } {
  const { [name]: seconds, ...rest } = cpu.byGroup;
  if (cpu.wakeupsByGroup === undefined) return { rest: { ...cpu, byGroup: rest }, seconds };
  const { [name]: _wakeups, ...wakeupsRest } = cpu.wakeupsByGroup;
  return { rest: { ...cpu, byGroup: rest, wakeupsByGroup: wakeupsRest }, seconds };
}

/** The console's cost over a step's window, with the emulated page's traffic. */
export function consoleCost(
  seconds: number,
  window: { readonly seconds: number; readonly orders: number },
  page: PageTraffic | undefined,
  idleCoreShare: number | undefined,
): NonNullable<StepResult['console']> {
  const round = (n: number): number => Math.round(n * 100) / 100;
  const perOrder = (sec: number): number => round((sec * 1000) / Math.max(1, window.orders));
  return {
    cpuMsPerOrder: perOrder(seconds),
    ...(idleCoreShare !== undefined
      ? { aboveIdleMsPerOrder: perOrder(Math.max(0, seconds - idleCoreShare * window.seconds)) }
      : {}),
    coreShare: Math.round((seconds / Math.max(1e-9, window.seconds)) * 1000) / 1000,
    ...(page ? { page } : {}),
  };
}

/** One load step's row of the results, from the load generator's report and what the bench measured. */
export function stepResult(step: {
  readonly label: StepResult['label'];
  readonly rate: number;
  readonly again?: boolean;
  readonly speedCheckMs?: number;
  readonly report: LoadReport;
  readonly verdict: StepVerdict;
  readonly cpu: CpuUsage | undefined;
  readonly ordersInWindow: number;
  /** The open flow page's traffic over the window, when the console ran. */
  readonly page?: PageTraffic;
  readonly consoleIdleCoreShare?: number;
  readonly perOrder: Record<string, DatabaseCounters> | undefined;
  readonly counts: StepCounts | undefined;
  readonly reportFile: string;
}): StepResult {
  const { report, perOrder, counts } = step;
  const split = step.cpu ? splitGroup(step.cpu, ConsoleGroup) : undefined;
  const cpu = split?.rest;
  const wakeups = cpu ? wakeupsPerOrder(cpu, step.ordersInWindow) : undefined;
  const errors = Object.values(report.totals.httpErrors).reduce((a, b) => a + b, 0);
  return {
    label: step.label,
    ...(step.again ? { again: true as const } : {}),
    ...(step.speedCheckMs !== undefined ? { speedCheckMs: Math.round(step.speedCheckMs * 100) / 100 } : {}),
    offered: step.rate,
    achieved: report.achievedRate,
    terminalPerSecond:
      (report.totals.terminalEvents['order.confirmed'] + report.totals.terminalEvents['order.cancelled']) /
      report.durationSeconds,
    placed: report.totals.placed,
    lost: report.totals.lost,
    duplicated: report.totals.duplicated,
    httpErrors: errors + report.totals.dropped,
    e2e: report.latency.e2e,
    e2eConfirmed: report.latency.e2eConfirmed,
    http: report.latency.http,
    maxLagByGroup: report.lag.maxByGroup,
    verdict: step.verdict,
    ...(cpu
      ? {
          cpu,
          ordersInCpuWindow: step.ordersInWindow,
          cpuMsPerOrder: cpuMsPerOrder(cpu, step.ordersInWindow),
          ...(wakeups ? { wakeupsPerOrder: wakeups } : {}),
        }
      : {}),
    ...(split?.seconds !== undefined
      ? {
          console: consoleCost(
            split.seconds,
            { seconds: split.rest.seconds, orders: step.ordersInWindow },
            step.page,
            step.consoleIdleCoreShare,
          ),
        }
      : {}),
    ...(perOrder ? { perOrder } : {}),
    ...(counts ? { counts } : {}),
    // Reports of a loadgen from before it measured itself have no `generator`.
    ...(report.generator
      ? {
          generator: {
            cpuMsPerOrder: report.generator.cpu.msPerOrder,
            coreShare: report.generator.cpu.coreShare,
            sendDelayP99Ms: report.generator.sendDelay.p99,
          },
        }
      : {}),
    report: step.reportFile,
    window: { startedAt: report.startedAt, seconds: report.durationSeconds },
  };
}

async function sumEndOffsets(admin: Admin, prefix: string): Promise<Record<string, number>> {
  const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
  const sums: Record<string, number> = {};
  for (const topic of topics) {
    const offsets = await admin.fetchTopicOffsets(topic);
    sums[topic.slice(prefix.length)] = offsets.reduce((s, p) => s + Number(p.high), 0);
  }
  return sums;
}

/** Kafka records per placed order over the whole run: produced to all topics, consumed over all groups. */
export async function recordsPerOrder(
  admin: Admin,
  topicPrefix: string,
  placed: number,
): Promise<NonNullable<BenchResults['recordsPerOrder']>> {
  const ends = await sumEndOffsets(admin, topicPrefix);
  const produced = Object.values(ends).reduce((a, b) => a + b, 0);
  const consumed = Object.values(DefaultGroups)
    .flat()
    .reduce((sum, topic) => sum + (ends[topic] ?? 0), 0);
  return { produced: perPlaced(produced, placed), consumed: perPlaced(consumed, placed) };
}

/** The whole run's results (bench.json, and what BENCHMARKS.md is rendered from). */
export function benchResults(run: {
  readonly startedAt: Date;
  readonly quick: boolean;
  readonly tracing: string;
  readonly mailSink: string;
  readonly emails: BenchResults['emails'];
  readonly machine: MachineDescription;
  readonly warmup: BenchResults['warmup'];
  readonly steps: readonly StepResult[];
  readonly sustainableRate: number;
  readonly ramp: BenchResults['ramp'];
  readonly kafkaUptimeSeconds: number | undefined;
  readonly halfRate: StepResult | undefined;
  readonly maxRssMiB: Readonly<Record<string, number>>;
  readonly rssAtReadyMiB: Readonly<Record<string, number>>;
  readonly idleCpu: CpuUsage | undefined;
  readonly idleCounts: BenchResults['idleCounts'];
  readonly console: BenchResults['console'];
  readonly recordsPerOrder: BenchResults['recordsPerOrder'];
  readonly kafka: BenchResults['kafka'];
  readonly pgbench: BenchResults['pgbench'];
  readonly hopsUnavailable?: string;
  readonly errors: readonly string[];
}): BenchResults {
  const normalised = normalise(run.sustainableRate, run.pgbench);
  return {
    startedAt: run.startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    mode: run.quick ? 'quick' : 'full',
    tracing: run.tracing,
    mailSink: run.mailSink,
    ...(run.emails ? { emails: run.emails } : {}),
    machine: run.machine,
    ...(run.warmup ? { warmup: run.warmup } : {}),
    steps: run.steps,
    sustainableRate: run.sustainableRate,
    ...(run.ramp ? { ramp: run.ramp } : {}),
    ...(run.kafkaUptimeSeconds !== undefined ? { kafkaUptimeSeconds: run.kafkaUptimeSeconds } : {}),
    ...(run.halfRate ? { halfRate: run.halfRate } : {}),
    maxRssMiB: run.maxRssMiB,
    rssAtReadyMiB: run.rssAtReadyMiB,
    ...(run.idleCpu ? { idleCpu: run.idleCpu } : {}),
    ...(run.idleCounts ? { idleCounts: run.idleCounts } : {}),
    ...(run.console ? { console: run.console } : {}),
    ...(run.recordsPerOrder ? { recordsPerOrder: run.recordsPerOrder } : {}),
    ...(run.kafka ? { kafka: run.kafka } : {}),
    ...(run.pgbench ? { pgbench: run.pgbench } : {}),
    ...(normalised ? { normalised } : {}),
    ...(run.hopsUnavailable !== undefined ? { hopsUnavailable: run.hopsUnavailable } : {}),
    errors: run.errors,
  };
}
