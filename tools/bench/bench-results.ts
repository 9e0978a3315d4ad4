import type { PercentileSummary } from '@pipeline/load';
import type { Normalised } from './calibration';
import type { PageTraffic } from './console-page';
import type { MachineDescription } from './machine';
import type { SinkCounts } from './mail-sink/counting-smtp-sink';
import type { ConsumerPerf, EndToEndLatency, PgbenchResult, ProducerPerf } from './perf-output';
import type { HopBreakdown } from './hop-breakdown';
import type { CpuUsage } from './proc-stats';
import type { DatabaseCounters } from './stack-under-test';
import type { WarmupSummary } from './ramp';
import type { StepVerdict } from './step-verdict';
import type { IdleRates, StepCounts } from './work-counts';

export interface StepResult {
  readonly label: 'warm-up' | 'step' | 'half rate';
  /** The second run of a rate whose first run was not kept up with (a full run's `confirm`). */
  readonly again?: true;
  readonly offered: number;
  readonly achieved: number;
  readonly terminalPerSecond: number;
  readonly placed: number;
  readonly lost: number;
  readonly duplicated: number;
  readonly httpErrors: number;
  readonly e2e: PercentileSummary;
  readonly e2eConfirmed: PercentileSummary;
  readonly http: PercentileSummary;
  readonly maxLagByGroup: Readonly<Record<string, number>>;
  readonly verdict: StepVerdict;
  /**
   * The speed check right before the step (`speed-check.ts`): ms for a fixed piece of CPU work,
   * lower is faster. The machine's own speed, to read the step's CPU and latency figures against.
   */
  readonly speedCheckMs?: number;
  readonly cpu?: CpuUsage;
  /** Orders placed while the CPU was measured: the denominator of CPU per order. */
  readonly ordersInCpuWindow?: number;
  /** CPU ms per order over the window, per process and in total. */
  readonly cpuMsPerOrder?: { readonly total: number; readonly byProcess: Readonly<Record<string, number>> };
  /**
   * Wake-ups per order over the same window (voluntary context switches of every thread), per
   * process and in total: a count that does not depend on the machine's speed.
   */
  readonly wakeupsPerOrder?: { readonly total: number; readonly byProcess: Readonly<Record<string, number>> };
  /**
   * The console's own process over the same window, with one live flow page open on it (its
   * consumer, metrics polling, server-sent events); not in `cpu` nor in `cpuMsPerOrder`.
   */
  readonly console?: {
    readonly cpuMsPerOrder: number;
    /** Less what it burns idle (with the page open, no load), when that was measured. */
    readonly aboveIdleMsPerOrder?: number;
    /** CPU seconds per second: 1 = one core. */
    readonly coreShare: number;
    /** What the emulated page received: it was really open. */
    readonly page?: PageTraffic;
  };
  /** Kafka requests by API, database statements and commits per order over the same window. */
  readonly counts?: StepCounts;
  /** Per database: commits and row changes per placed order during the step. */
  readonly perOrder?: Readonly<Record<string, DatabaseCounters>>;
  /** The load generator's own cost and lateness: was it, not the pipeline, the limit? */
  readonly generator?: {
    readonly cpuMsPerOrder: number;
    readonly coreShare: number;
    readonly sendDelayP99Ms: number;
  };
  readonly report: string;
  /** When the load generator began placing orders, and for how long: where the step's traces are. */
  readonly window?: { readonly startedAt: string; readonly seconds: number };
  /** Relay wait, produce, fetch and transaction per hop, from the step's sampled orders' traces. */
  readonly hops?: HopBreakdown;
}

export interface BenchResults {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly mode: 'quick' | 'full';
  readonly tracing: string;
  /** Where the email service's mail went. */
  readonly mailSink: string;
  /** What the counting sink accepted over the whole run, when the bench ran it. */
  readonly emails?: SinkCounts;
  readonly machine: MachineDescription;
  /** How long the warm-up lasted and the broker's CPU per order in each of its windows. */
  readonly warmup?: WarmupSummary;
  readonly steps: readonly StepResult[];
  readonly sustainableRate: number;
  /** Rates tried below the ramp's first step, when that one was not sustainable. */
  readonly ramp?: { readonly steppedDown: readonly number[]; readonly floorReached: boolean };
  /** How long the Kafka broker's process had been running when the pipeline run began. */
  readonly kafkaUptimeSeconds?: number;
  /** Sustainable orders/s per 1,000 pgbench one-hop tps of the same run. */
  readonly normalised?: Normalised;
  readonly halfRate?: StepResult;
  readonly maxRssMiB: Readonly<Record<string, number>>;
  /** CPU of each process over 10 s with the stack ready and no load (polling, heartbeats). */
  readonly idleCpu?: CpuUsage;
  /** The console the bench ran beside the pipeline, and the page it kept open on it. */
  readonly console?: {
    readonly stream: string;
    readonly polls: readonly { readonly path: string; readonly everyMs: number }[];
    /** Its CPU with the page open and no load, in cores. */
    readonly idleCoreShare?: number;
  };
  /** Over the same idle window, per second: Kafka requests, statements and commits of the five services. */
  readonly idleCounts?: IdleRates;
  /** RSS of each service once ready, before any load. */
  readonly rssAtReadyMiB: Readonly<Record<string, number>>;
  /** Kafka records per placed order: produced to all topics, and consumed over all groups. */
  readonly recordsPerOrder?: { readonly produced: number; readonly consumed: number };
  readonly kafka?: {
    readonly recordSize: number;
    readonly producer: Readonly<Record<'linger0' | 'linger20', ProducerPerf>>;
    readonly consumer: ConsumerPerf;
    /** Kafka's end-to-end latency tool, one record at a time (absent in runs before 2026-12-06). */
    readonly hop?: EndToEndLatency;
    readonly hopRecords?: number;
  };
  readonly pgbench?: readonly PgbenchResult[];
  /** Why no step has a per-hop breakdown (tracing off, Zipkin not answering), when none has. */
  readonly hopsUnavailable?: string;
  readonly errors: readonly string[];
}
