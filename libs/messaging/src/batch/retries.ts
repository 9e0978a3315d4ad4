import type { LoggerService } from '@nestjs/common';
import { PipelineMetrics } from '@pipeline/observability';
import type { EachBatchPayload } from 'kafkajs';
import type { DeadLetter } from '../dead-letters/dead-letter';
import {
  classifyError,
  isConcurrencyConflict,
  isDependencyOutage,
  isUnavailable,
} from '../errors/classify-error';
import { messageOf } from '../errors/message-of';
import type { ConsumerCounters } from '../events/consumer-stats';
import { describeEvent, partitionOf, type ConsumedEvent, type PendingEvent } from '../events/consumed-event';
import { withEventLogContext } from '../events/event-log-context';
import { culpritOf } from '../handlers/event-batch';
import { backoffDelay, type RetryOptions } from '../retry/backoff';
import type { Failure, IsolationPolicy } from './isolate';

export interface RetriesDeps {
  readonly retry: RetryOptions;
  readonly logger: LoggerService;
  readonly counters: ConsumerCounters;
  /** Stops fetching a partition for `ms`, then fetches it again from its resolved offset. */
  pausePartition(topic: string, partition: number, ms: number): void;
}

/**
 * What becomes of a failure: the policy `settle` applies (how many attempts, what is fatal, what
 * waits out an outage), the backoff of a blocked partition, and the dead letter of a spent one.
 * Attempts are remembered per record (`topic/partition@offset`) until its offset is resolved.
 */
export class Retries {
  private readonly attempts = new Map<string, { count: number; firstFailedAt: number }>();
  private unavailableStreak = 0;
  readonly policy: IsolationPolicy;

  constructor(private readonly deps: RetriesDeps) {
    const { retry } = deps;
    this.policy = {
      attempts: retry.attempts,
      classify: classifyError,
      isTransient: (error) => isUnavailable(error) || isConcurrencyConflict(error),
      culpritOf,
      waitsOut: (failure) => this.outageSoFarMs(failure) < retry.outageWindowMs,
    };
  }

  /** The attempt a delivery of this record is: 1, or one more than its failures so far. */
  attemptOf(topic: string, partition: number, offset: string): number {
    return (this.attempts.get(`${topic}/${partition}@${offset}`)?.count ?? 0) + 1;
  }

  /** Its offset moved on: nothing to remember. A chunk got through: the database is back. */
  resolved(event: ConsumedEvent): void {
    this.attempts.delete(attemptKey(event));
  }

  applied(): void {
    this.unavailableStreak = 0;
  }

  /** Its partition waits for the backoff, then the record is fetched and tried again. */
  later(failure: Failure<PendingEvent>): void {
    const { event, error, errorClass, attempts } = failure;
    const { retry, logger, counters } = this.deps;
    const key = attemptKey(event);
    const firstFailedAt = this.attempts.get(key)?.firstFailedAt ?? performance.now();
    this.attempts.set(key, { count: attempts, firstFailedAt });
    const delay = backoffDelay(Math.max(1, attempts), retry);
    const outageMs = this.outageSoFarMs(failure);
    const progress =
      attempts >= retry.attempts && Number.isFinite(outageMs)
        ? `its dependency is down, waiting ${Math.round(outageMs / 1000)} s of ${Math.round(retry.outageWindowMs / 1000)} s`
        : `attempt ${attempts}/${retry.attempts}`;
    withEventLogContext(event, () => {
      logger.warn(
        `${describeEvent(event)} failed (${progress}, ${errorClass}): ` +
          `${messageOf(error)}; its partition waits ${delay} ms`,
      );
    });
    counters.retried += 1;
    PipelineMetrics.eventsRetried.inc({ topic: event.position.topic, type: event.metadata.type });
    this.deps.pausePartition(event.position.topic, event.position.partition, delay);
  }

  /**
   * The whole fetch failed for a reason that is no event's fault. A deadlock is retried after a
   * short pause. The database being down is retried with backoff a few times, then the batch fails
   * to kafkajs and the supervisor restarts the consumer (readiness reports it meanwhile).
   */
  waitOutTransient(payloads: readonly EachBatchPayload[], error: unknown, nothingDone: boolean): void {
    const { retry, logger } = this.deps;
    const unavailable = isUnavailable(error);
    if (unavailable) this.unavailableStreak += 1;
    if (unavailable && nothingDone && this.unavailableStreak >= retry.attempts) {
      this.unavailableStreak = 0;
      throw error;
    }
    const delay = backoffDelay(unavailable ? this.unavailableStreak : 1, retry);
    logger.warn(
      `batch of ${payloads.length} partitions not applied (${messageOf(error)}); retry in ${delay} ms`,
    );
    for (const { batch } of payloads) this.deps.pausePartition(batch.topic, batch.partition, delay);
  }

  letterOf({ event, error, errorClass, attempts }: Failure<PendingEvent>): DeadLetter {
    withEventLogContext(event, () => {
      this.deps.logger.warn(
        `${describeEvent(event)} dead-lettered after ${attempts} attempt(s) (${errorClass}): ${messageOf(error)}`,
      );
    });
    const { topic, partition } = event.position;
    return { topic, partition, message: event.message, error: messageOf(error), errorClass, attempts };
  }

  /** How long a failing event's dependency has been down (infinite when it is no outage). */
  private outageSoFarMs({ event, error }: Failure<ConsumedEvent>): number {
    if (!isDependencyOutage(error)) return Number.POSITIVE_INFINITY;
    const since = this.attempts.get(attemptKey(event))?.firstFailedAt;
    return since === undefined ? 0 : performance.now() - since;
  }
}

const attemptKey = (event: ConsumedEvent): string =>
  `${partitionOf(event.position)}@${event.position.offset}`;
