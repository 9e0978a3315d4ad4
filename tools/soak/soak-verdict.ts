/**
 * What a soak asserts, over its samples and the load engine's count of every order: nothing lost
 * or duplicated, no process's memory growing, no group's lag growing (docs/reliability.md#the-soak).
 */
import { formatVerdict, type LoadReport } from '@pipeline/load';
import { SustainableLimits } from '../bench/step-verdict';

/** One sample of the running stack, every --sample-seconds during the load. */
export interface SoakSample {
  /** Seconds since the load started. */
  readonly t: number;
  /** Orders placed (202) per second since the previous sample. */
  readonly placedPerSecond: number;
  /** The highest per-second e2e p99 since the previous sample; null when no order finished. */
  readonly e2eP99Ms: number | null;
  /** Consumer group -> lag over its topics; null when it could not be read. */
  readonly lag: Readonly<Record<string, number | null>>;
  /** Consumer group -> the sum of its topics' end offsets (what was written to them so far). */
  readonly topicEnds?: Readonly<Record<string, number | null>>;
  /** Stack process (order, payment-2, ...) -> pipeline_outbox_backlog_events; null when not scraped. */
  readonly outboxBacklog: Readonly<Record<string, number | null>>;
  /** Stack process -> VmRSS in MiB; null when it could not be read (the process is gone). */
  readonly rssMiB: Readonly<Record<string, number | null>>;
  /** Stack process -> its pid: a changed pid is a restart. */
  readonly pids: Readonly<Record<string, number>>;
}

export interface SoakPolicy {
  readonly warmupSeconds: number;
  readonly windowSeconds: number;
  /** RSS may grow by less than this share between the two windows (0.1: 10 %). */
  readonly maxRssGrowth: number;
  /**
   * Records no group's lag may exceed in the last third (`--lag-bound`). When absent, each group's
   * own: LagBoundSeconds of what its topics received per second (lagBoundOf).
   */
  readonly lagBound?: number;
}

export interface SoakCheck {
  readonly name: 'orders' | 'rss' | 'lag';
  readonly pass: boolean;
  /** One line: what held, or what did not. */
  readonly summary: string;
  /** One line per process or group. */
  readonly details: readonly string[];
}

export interface SoakVerdict {
  readonly result: 'PASS' | 'FAIL' | 'STOPPED';
  readonly checks: readonly SoakCheck[];
}

/** Lag below this never counts as growing (the bench's rule: one order in flight is ~10 records). */
export const MinGrowingLag = SustainableLimits.minGrowingLagRecords;

/**
 * The default bound of a group's lag: ten seconds of its own input, at least 100 records. A group
 * reads 1-3 records per order (email-service reads order.placed and order.confirmed), so the bound
 * is in its records, not in orders. At half the sustainable rate, where e2e p99 stays well under
 * 1 s, only a stall reaches it, not a GC pause or one slow batch.
 */
export const LagBoundSeconds = 10;
const MinLagBoundRecords = 100;

export const lagBoundOf = (recordsPerSecond: number): number =>
  Math.max(MinLagBoundRecords, Math.ceil(LagBoundSeconds * recordsPerSecond));

/** The lag bound a policy sets, in words: `--lag-bound`'s records, or each group's own. */
export const lagBoundText = (policy: SoakPolicy): string =>
  policy.lagBound === undefined
    ? `${LagBoundSeconds} s of its input (at least ${MinLagBoundRecords} records)`
    : `${policy.lagBound} records`;

/** Records per second written to a group's topics between the first and the last of `samples`. */
export function inputRate(samples: readonly SoakSample[], group: string): number | undefined {
  const read = samples.filter((s) => typeof s.topicEnds?.[group] === 'number');
  const [first, last] = [read[0], read.at(-1)];
  if (first === undefined || last === undefined || last.t <= first.t) return undefined;
  return (last.topicEnds![group]! - first.topicEnds![group]!) / (last.t - first.t);
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return NaN;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** 330 -> "5:30" */
export const clock = (seconds: number): string =>
  `${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, '0')}`;

const between = (samples: readonly SoakSample[], from: number, to: number): SoakSample[] =>
  samples.filter((s) => s.t >= from && s.t <= to);

const names = (samples: readonly SoakSample[], of: (s: SoakSample) => object): string[] => [
  ...new Set(samples.flatMap((s) => Object.keys(of(s)))),
];

const read = (samples: readonly SoakSample[], get: (s: SoakSample) => number | null | undefined): number[] =>
  samples.map(get).filter((v): v is number => v !== null && v !== undefined);

/** The load engine's audit of every order: its verdict covers lost, duplicated and unexpected outcomes. */
export function ordersCheck(load: Pick<LoadReport, 'totals' | 'verdict'>): SoakCheck {
  const t = load.totals;
  const pass = load.verdict.result === 'PASS' && t.lost === 0 && t.duplicated === 0;
  return {
    name: 'orders',
    pass,
    summary: `${t.placed} orders placed, ${t.lost} lost, ${t.duplicated} duplicated`,
    details: [`load engine: ${formatVerdict(load.verdict)}`],
  };
}

/**
 * RSS growth per process: the median of the window that starts at the warm-up's end against the
 * median of the last window (medians, so that one sample at a GC's peak or trough moves neither).
 * A process whose pid changed was restarted: its RSS started again from zero, so it fails.
 */
export function rssCheck(samples: readonly SoakSample[], policy: SoakPolicy): SoakCheck {
  const end = samples.at(-1)?.t ?? 0;
  const window = Math.min(policy.windowSeconds, (end - policy.warmupSeconds) / 3);
  const first = between(samples, policy.warmupSeconds, policy.warmupSeconds + window);
  const last = between(samples, end - window, end);
  const limit = `${(policy.maxRssGrowth * 100).toFixed(0)} %`;
  if (!(window > 0) || first.length === 0 || last.length === 0)
    return {
      name: 'rss',
      pass: false,
      summary: `not judged: too few samples after the warm-up (${clock(policy.warmupSeconds)}) to compare two windows`,
      details: [],
    };
  const failures: string[] = [];
  const details = names(samples, (s) => s.rssMiB).map((name) => {
    const pids = [...new Set(read(samples, (s) => s.pids[name]))];
    const gaps = samples.filter((s) => s.rssMiB[name] === null || s.rssMiB[name] === undefined).length;
    const [from, to] = [
      median(read(first, (s) => s.rssMiB[name])),
      median(read(last, (s) => s.rssMiB[name])),
    ];
    const growth = to / from - 1;
    const line = `${name}: ${from.toFixed(1)} -> ${to.toFixed(1)} MiB (${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)} %)`;
    if (pids.length > 1) failures.push(`${name} restarted (pids ${pids.join(' -> ')})`);
    else if (gaps > 0) failures.push(`${name} not running in ${gaps} of ${samples.length} samples`);
    else if (!(growth < policy.maxRssGrowth)) failures.push(`${name} grew ${(growth * 100).toFixed(1)} %`);
    return line;
  });
  const windows = `medians over ${clock(policy.warmupSeconds)}-${clock(policy.warmupSeconds + window)} and ${clock(end - window)}-${clock(end)}`;
  return {
    name: 'rss',
    pass: failures.length === 0 && details.length > 0,
    summary:
      failures.length > 0
        ? `${failures.join(', ')} (growth under ${limit} needed, ${windows})`
        : `every process grew under ${limit} (${windows})`,
    details,
  };
}

/**
 * Lag per group over the load, in thirds: bounded when the last third's highest lag is within the
 * bound; growing when the last third's median exceeds the middle third's by more than half and by
 * more than MinGrowingLag records (medians: a spike moves neither). The first third is left out:
 * the stack may start with a backlog.
 */
export function lagCheck(samples: readonly SoakSample[], policy: SoakPolicy): SoakCheck {
  const end = samples.at(-1)?.t ?? 0;
  const middle = samples.filter((s) => s.t >= end / 3 && s.t < (2 * end) / 3);
  const last = samples.filter((s) => s.t >= (2 * end) / 3);
  const failures: string[] = [];
  const details = names(samples, (s) => s.lag).map((group) => {
    const [mid, late] = [read(middle, (s) => s.lag[group]), read(last, (s) => s.lag[group])];
    if (mid.length === 0 || late.length === 0) {
      failures.push(`${group} not read`);
      return `${group}: not read in the middle or last third`;
    }
    const [max, lateMedian, midMedian] = [Math.max(...late), median(late), median(mid)];
    const rate = inputRate([...middle, ...last], group);
    const bound = policy.lagBound ?? lagBoundOf(rate ?? 0);
    const of =
      policy.lagBound === undefined ? ` (${LagBoundSeconds} s of ${Math.round(rate ?? 0)} records/s)` : '';
    if (max > bound) failures.push(`${group} reached ${max} > ${bound} records${of}`);
    if (lateMedian > Math.max(1.5 * midMedian, midMedian + MinGrowingLag))
      failures.push(`${group} growing (median ${midMedian} -> ${lateMedian} records)`);
    return `${group}: last third max ${max}, median ${lateMedian} records (middle third median ${midMedian}); bound ${bound}${of}`;
  });
  const thirds = `last third ${clock((2 * end) / 3)}-${clock(end)}`;
  return {
    name: 'lag',
    pass: failures.length === 0 && details.length > 0,
    summary:
      failures.length > 0
        ? `${failures.join(', ')} (${thirds})`
        : details.length === 0
          ? 'no lag was sampled'
          : `every group within ${lagBoundText(policy)} and not growing (${thirds})`,
    details,
  };
}

export function judgeSoak(
  samples: readonly SoakSample[],
  load: Pick<LoadReport, 'totals' | 'verdict' | 'stopped'>,
  policy: SoakPolicy,
): SoakVerdict {
  const checks = [ordersCheck(load), rssCheck(samples, policy), lagCheck(samples, policy)];
  if (load.stopped) return { result: 'STOPPED', checks };
  return { result: checks.every((c) => c.pass) ? 'PASS' : 'FAIL', checks };
}

export const formatSoakVerdict = (verdict: SoakVerdict): string =>
  `SOAK VERDICT ${verdict.result}: ${verdict.checks.map((c) => `${c.name} ${c.pass ? 'ok' : 'FAILED'}: ${c.summary}`).join('; ')}`;

/** The checks, one line each, then their details indented: the CLI prints them, soak.html shows them. */
export const renderChecks = (verdict: SoakVerdict): string[] =>
  verdict.checks.flatMap((c) => [
    `${c.name}: ${c.pass ? 'ok' : 'FAILED'}: ${c.summary}`,
    ...c.details.map((d) => `  ${d}`),
  ]);
