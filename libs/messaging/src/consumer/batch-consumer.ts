import type { LoggerService } from '@nestjs/common';
import { context } from '@opentelemetry/api';
import { EventHeaders } from '@pipeline/contracts';
import { PipelineMetrics } from '@pipeline/observability';
import type { EachBatchPayload, KafkaMessage } from 'kafkajs';
import { headerValue } from '../envelope/event-envelope';
import { classifyError, isConcurrencyConflict, isUnavailable } from '../errors/classify-error';
import { messageOf } from '../errors/message-of';
import { backoffDelay, type RetryOptions } from '../retry/backoff';
import { contextFromHeaders } from '../tracing/messaging-spans';
import { describeEvent, partitionOf, type PendingEvent } from './consumed-event';
import type { ConsumerCounters } from './consumer-stats';
import type { DeadLetter, DeadLetterPublisher } from './dead-letter';
import { logDeadLetter } from './dead-letter-log';
import type { EventContracts } from './event-contracts';
import { withEventLogContext } from './event-log-context';
import { settle, type Failure, type Settlement } from './isolate';
import { KeepAlive } from './keep-alive';
import { triageRecord } from './record-triage';

export interface BatchConsumerDeps {
  readonly contracts: EventContracts;
  readonly deadLetters: DeadLetterPublisher;
  /** The service's own dead-letter topic: its records are logged at WARN, never processed. */
  readonly deadLetterTopic: string;
  readonly counters: ConsumerCounters;
  readonly logger: LoggerService;
  readonly retry: RetryOptions;
  readonly heartbeatIntervalMs: number;
  /** Upper bound of events in one transaction; a larger fetch is applied in several. */
  readonly maxEventsPerTransaction: number;
  hasHandler(type: string): boolean;
  /** One consumer transaction over the events (runBatchTransaction). */
  transact(events: readonly PendingEvent[]): Promise<void>;
  /** Stops fetching a partition for `ms`, then fetches it again from its resolved offset. */
  pausePartition(topic: string, partition: number, ms: number): void;
}

interface Submitted {
  readonly payload: EachBatchPayload;
  resolve(): void;
  reject(error: unknown): void;
}

/** What triage made of a partition's records. */
interface PartitionWork {
  readonly payload: EachBatchPayload;
  readonly events: PendingEvent[];
  readonly poison: DeadLetter[];
  readonly skipped: { readonly type: string; readonly offset: string }[];
}

/**
 * The consumer's `eachBatch`. kafkajs calls it once per partition of a fetch, all in the same
 * tick; the calls are gathered and the whole fetch is applied together: triage, one transaction
 * (or a few, when something fails: see `settle`), dead letters, then ONE offset commit for every
 * partition, each only up to what is durable. A partition whose event must wait for a retry is
 * paused and fetched again after the backoff: the fetch loop, and every other partition, goes on.
 */
export class BatchConsumer {
  private submitted: Submitted[] = [];
  /** Failed attempts so far of the events waiting for a retry, by `topic/partition@offset`. */
  private readonly attempts = new Map<string, number>();
  private unavailableStreak = 0;

  constructor(private readonly deps: BatchConsumerDeps) {}

  readonly eachBatch = (payload: EachBatchPayload): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      if (this.submitted.push({ payload, resolve, reject }) === 1) setImmediate(() => void this.flush());
    });

  private async flush(): Promise<void> {
    const submitted = this.submitted;
    this.submitted = [];
    try {
      await this.apply(submitted.map((entry) => entry.payload));
      for (const entry of submitted) entry.resolve();
    } catch (error) {
      for (const entry of submitted) entry.reject(error);
    }
  }

  private async apply(payloads: readonly EachBatchPayload[]): Promise<void> {
    const keepAlive = new KeepAlive(payloads[0]!, this.deps.heartbeatIntervalMs);
    try {
      const work = payloads.map((payload) => this.triage(payload));
      const settlement = await this.settleInChunks(work.flatMap((partition) => partition.events));
      if (settlement.transient !== undefined) return this.waitOutTransient(work, settlement.transient);
      this.unavailableStreak = 0;
      await this.finish(work, settlement);
    } finally {
      keepAlive.stop();
    }
    // A rebalance was announced during the batch: hand it to kafkajs, which rejoins the group.
    if (keepAlive.error !== undefined) throw keepAlive.error;
  }

  private triage(payload: EachBatchPayload): PartitionWork {
    const { topic, partition, messages } = payload.batch;
    const work: PartitionWork = { payload, events: [], poison: [], skipped: [] };
    for (const message of messages) {
      if (topic === this.deps.deadLetterTopic) {
        logDeadLetter(this.deps.logger, topic, partition, message);
        continue;
      }
      const triage = triageRecord(topic, message, this.deps.contracts, (type) => this.deps.hasHandler(type));
      if (triage.kind === 'poison') {
        context.with(contextFromHeaders(message.headers), () =>
          this.deps.logger.warn(`poison record ${topic}/${partition}@${message.offset}: ${triage.reason}`),
        );
        work.poison.push({ topic, partition, message, error: triage.reason, errorClass: 'fatal', attempts: 1 });
      } else if (triage.kind === 'unhandled') {
        work.skipped.push({ type: triage.type, offset: message.offset });
      } else {
        const id = `${topic}/${partition}@${message.offset}`;
        work.events.push({
          payload: triage.payload,
          metadata: triage.metadata,
          position: { topic, partition, offset: message.offset, key: message.key?.toString() ?? null },
          attempt: (this.attempts.get(id) ?? 0) + 1,
          message,
          sampled: isSampled(triage.metadata.traceparent),
        });
      }
    }
    return work;
  }

  /** `settle` over chunks of at most maxEventsPerTransaction; a partition blocked in one chunk sits out the rest. */
  private async settleInChunks(events: readonly PendingEvent[]): Promise<Settlement<PendingEvent>> {
    const { maxEventsPerTransaction: size, retry } = this.deps;
    const policy = {
      attempts: retry.attempts,
      classify: classifyError,
      isTransient: (error: unknown) => isUnavailable(error) || isConcurrencyConflict(error),
    };
    const total: Settlement<PendingEvent> = { done: [], deadLetters: [], blocked: new Map() };
    for (let start = 0; start < events.length; start += size) {
      const chunk = events
        .slice(start, start + size)
        .filter((event) => !total.blocked.has(partitionOf(event.position)));
      if (chunk.length === 0) continue;
      const result = await settle(chunk, (list) => this.run(list), policy);
      if (result.transient !== undefined) {
        // Nothing of this chunk ran: the chunks before it stand, every partition waits from here.
        if (start === 0) return result;
        for (const event of chunk) {
          if (!total.blocked.has(partitionOf(event.position)))
            total.blocked.set(partitionOf(event.position), {
              event,
              error: result.transient,
              errorClass: 'retriable',
              attempts: event.attempt - 1,
            });
        }
        continue;
      }
      total.done.push(...result.done);
      total.deadLetters.push(...result.deadLetters);
      for (const [key, failure] of result.blocked) total.blocked.set(key, failure);
    }
    return total;
  }

  private async run(events: readonly PendingEvent[]): Promise<{ ok: true } | { ok: false; error: unknown }> {
    try {
      await this.deps.transact(events);
      return { ok: true };
    } catch (error) {
      return { ok: false, error };
    }
  }

  /** Dead letters, retries to come, and one offset commit for every partition of the fetch. */
  private async finish(work: readonly PartitionWork[], settlement: Settlement<PendingEvent>): Promise<void> {
    const { counters, logger } = this.deps;
    const letters: DeadLetter[] = [];
    const offsets: { topic: string; partitions: { partition: number; offset: string }[] }[] = [];
    for (const { payload, poison, skipped } of work) {
      const { topic, partition, messages } = payload.batch;
      const blocked = settlement.blocked.get(`${topic}/${partition}`);
      const stopAt = blocked === undefined ? undefined : BigInt(blocked.event.position.offset);
      const before = (message: KafkaMessage) => stopAt === undefined || BigInt(message.offset) < stopAt;
      letters.push(...poison.filter((letter) => before(letter.message)));
      const last = messages.filter(before).at(-1);
      if (last !== undefined) {
        payload.resolveOffset(last.offset);
        offsets.push({ topic, partitions: [{ partition, offset: (BigInt(last.offset) + 1n).toString() }] });
      }
      this.countSkipped(topic, skipped.filter((record) => stopAt === undefined || BigInt(record.offset) < stopAt));
    }
    for (const failure of settlement.deadLetters) letters.push(this.letterOf(failure));
    letters.sort((a, b) => a.partition - b.partition || Number(BigInt(a.message.offset) - BigInt(b.message.offset)));
    // The dead letters are durable before any offset moves past them.
    await this.deps.deadLetters.send(letters);
    counters.deadLettered += letters.length;
    if (offsets.length > 0) await work[0]!.payload.commitOffsetsIfNecessary({ topics: offsets });

    for (const event of settlement.done) this.attempts.delete(attemptKey(event));
    for (const failure of settlement.deadLetters) this.attempts.delete(attemptKey(failure.event));
    for (const failure of settlement.blocked.values()) this.retryLater(failure);
    try {
      this.countDeadLetters(letters);
    } catch (error) {
      logger.error(`recording metrics threw: ${messageOf(error)}`);
    }
  }

  private retryLater({ event, error, errorClass, attempts }: Failure<PendingEvent>): void {
    const { retry, logger, counters } = this.deps;
    this.attempts.set(attemptKey(event), attempts);
    const delay = backoffDelay(Math.max(1, attempts), retry);
    withEventLogContext(event, () =>
      logger.warn(
        `${describeEvent(event)} failed (attempt ${attempts}/${retry.attempts}, ${errorClass}): ` +
          `${messageOf(error)}; its partition waits ${delay} ms`,
      ),
    );
    counters.retried += 1;
    PipelineMetrics.eventsRetried.inc({ topic: event.position.topic, type: event.metadata.type });
    this.deps.pausePartition(event.position.topic, event.position.partition, delay);
  }

  /**
   * The whole fetch failed for a reason that is no event's fault. A deadlock is retried after a
   * short pause. The database being down is retried with backoff a few times, then the batch fails
   * to kafkajs and the supervisor restarts the consumer (readiness reports it meanwhile).
   */
  private waitOutTransient(work: readonly PartitionWork[], error: unknown): void {
    const { retry, logger } = this.deps;
    const unavailable = isUnavailable(error);
    if (unavailable) this.unavailableStreak += 1;
    if (unavailable && this.unavailableStreak >= retry.attempts) {
      this.unavailableStreak = 0;
      throw error;
    }
    const delay = backoffDelay(unavailable ? this.unavailableStreak : 1, retry);
    logger.warn(`batch of ${work.length} partitions not applied (${messageOf(error)}); retry in ${delay} ms`);
    for (const { payload } of work) this.deps.pausePartition(payload.batch.topic, payload.batch.partition, delay);
  }

  private letterOf({ event, error, errorClass, attempts }: Failure<PendingEvent>): DeadLetter {
    withEventLogContext(event, () =>
      this.deps.logger.warn(
        `${describeEvent(event)} dead-lettered after ${attempts} attempt(s) (${errorClass}): ${messageOf(error)}`,
      ),
    );
    const { topic, partition } = event.position;
    return { topic, partition, message: event.message, error: messageOf(error), errorClass, attempts };
  }

  private countSkipped(topic: string, skipped: readonly { readonly type: string }[]): void {
    const { counters } = this.deps;
    for (const { type } of skipped) {
      counters.skippedByType[type] = (counters.skippedByType[type] ?? 0) + 1;
      PipelineMetrics.eventsSkipped.inc({ topic, type });
    }
  }

  private countDeadLetters(letters: readonly DeadLetter[]): void {
    for (const letter of letters) {
      // Only declared types become label values, so garbage cannot create series without bound.
      const type = headerValue(letter.message.headers, EventHeaders.type);
      PipelineMetrics.eventsDeadLettered.inc({
        topic: letter.topic,
        type: type !== undefined && this.deps.contracts.isDeclaredFor(letter.topic, type) ? type : 'undeclared',
        error_class: letter.errorClass,
      });
    }
  }
}

const attemptKey = (event: PendingEvent): string => `${partitionOf(event.position)}@${event.position.offset}`;

/** W3C traceparent `00-<trace>-<span>-<flags>`: bit 0 of the flags is "sampled". */
export function isSampled(traceparent: string | undefined): boolean {
  if (traceparent === undefined || traceparent.length < 55) return false;
  return (Number.parseInt(traceparent.slice(53, 55), 16) & 1) === 1;
}
