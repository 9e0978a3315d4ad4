import type { ServiceName } from '@pipeline/contracts';

/** One topic at one sample: its end offsets, and how fast they moved (events/s produced). */
export interface TopicSample {
  readonly high: number | null;
  readonly perSecond: number | null;
}

/** One service's consumer group at one sample, from the admin API (so also while it is down). */
export interface GroupSample {
  readonly group: string;
  readonly lag: number | null;
  readonly committed: number | null;
  /** Per consumed topic: its lag, and how fast the group's committed offsets moved (events/s). */
  readonly byTopic: Readonly<
    Record<string, { readonly lag: number | null; readonly perSecond: number | null }>
  >;
  /** Lag and no committed progress over the interval, or an up instance's `/health/live` fails. */
  readonly stalled: boolean;
  /**
   * Why, when stalled: the failing `/health/live` message (a crash loop, a partition with lag and
   * no progress), or what the console saw while liveness still passes. Capped in length.
   */
  readonly stalledReason: string | null;
  /** The reason in a few words, for the picture's node. */
  readonly stalledSummary: string | null;
  readonly growing: boolean;
}

/** One service at one sample, from its instances' /metrics (summed over instances). */
export interface ServiceSample {
  readonly instances: number;
  readonly up: number;
  readonly outboxBacklog: number | null;
  readonly deadLetters: number | null;
  readonly cpuPercent: number | null;
  readonly rssBytes: number | null;
  /** Mean events per consumer transaction over the interval (sum and count deltas). */
  readonly eventsPerTransaction: number | null;
}

/** What the sampler read at one tick: the picture draws the latest, the charts all of them. */
export interface FlowSample {
  /** Epoch milliseconds. */
  readonly at: number;
  readonly placedPerSecond: number | null;
  readonly terminalPerSecond: number | null;
  readonly e2eP50Ms: number | null;
  readonly e2eP99Ms: number | null;
  /** By contract topic name (without the prefix). */
  readonly topics: Readonly<Record<string, TopicSample>>;
  readonly groups: Readonly<Record<ServiceName, GroupSample>>;
  readonly services: Readonly<Record<ServiceName, ServiceSample>>;
}
