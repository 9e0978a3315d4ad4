import { PipelineMetrics } from '@pipeline/observability';

/** Counters of one consumer since start-up, for metrics and tests. */
export interface ConsumerCounters {
  /** Events whose handler ran and whose transaction committed. */
  processed: number;
  /** Events already in the inbox: delivered again, skipped without effects. */
  deduplicated: number;
  /** Handler attempts that failed and were tried again. */
  retried: number;
  deadLettered: number;
  /** Declared events this service has no handler for, by type. */
  skippedByType: Record<string, number>;
  /** Times the consumer was restarted after kafkajs gave up on it. */
  restarts: number;
}

export const emptyCounters = (): ConsumerCounters => ({
  processed: 0,
  deduplicated: 0,
  retried: 0,
  deadLettered: 0,
  skippedByType: {},
  restarts: 0,
});

/** A declared event this service has no handler for: skipped, its offset committed. */
export function countSkipped(counters: ConsumerCounters, topic: string, type: string): void {
  counters.skippedByType[type] = (counters.skippedByType[type] ?? 0) + 1;
  PipelineMetrics.eventsSkipped.inc({ topic, type });
}

export type ConsumerState = 'starting' | 'running' | 'restarting' | 'stopping' | 'stopped';

export interface ConsumerStatus {
  readonly state: ConsumerState;
  readonly healthy: boolean;
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly lastError?: string;
  readonly counters: ConsumerCounters;
}
