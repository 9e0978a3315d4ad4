import type { PercentileSummary } from '../loadgen/latency-stats';
import type { MachineDescription } from './machine';
import type { SinkCounts } from './mail-sink/counting-smtp-sink';
import type { ConsumerPerf, PgbenchResult, ProducerPerf } from './perf-output';
import type { CpuUsage } from './proc-stats';
import type { DatabaseCounters } from './stack-under-test';
import type { StepVerdict } from './step-verdict';

export interface StepResult {
  readonly label: 'warm-up' | 'step' | 'half rate';
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
  readonly cpu?: CpuUsage;
  /** Orders placed while the CPU was measured: the denominator of CPU per order. */
  readonly ordersInCpuWindow?: number;
  /** Per database: commits and row changes per placed order during the step. */
  readonly perOrder?: Readonly<Record<string, DatabaseCounters>>;
  /** The load generator's own cost and lateness: was it, not the pipeline, the limit? */
  readonly generator?: {
    readonly cpuMsPerOrder: number;
    readonly coreShare: number;
    readonly sendDelayP99Ms: number;
  };
  readonly report: string;
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
  readonly steps: readonly StepResult[];
  readonly sustainableRate: number;
  readonly halfRate?: StepResult;
  readonly maxRssMiB: Readonly<Record<string, number>>;
  /** CPU of each process over 10 s with the stack ready and no load (polling, heartbeats). */
  readonly idleCpu?: CpuUsage;
  /** RSS of each service once ready, before any load. */
  readonly rssAtReadyMiB: Readonly<Record<string, number>>;
  /** Kafka records per placed order: produced to all topics, and consumed over all groups. */
  readonly recordsPerOrder?: { readonly produced: number; readonly consumed: number };
  readonly kafka?: {
    readonly recordSize: number;
    readonly producer: Readonly<Record<'linger0' | 'linger20', ProducerPerf>>;
    readonly consumer: ConsumerPerf;
  };
  readonly pgbench?: readonly PgbenchResult[];
  readonly errors: readonly string[];
}
