import type { LoggerService } from '@nestjs/common';
import { context } from '@opentelemetry/api';
import { EventHeaders } from '@pipeline/contracts';
import { PipelineMetrics } from '@pipeline/observability';
import type { EachBatchPayload, KafkaMessage, Offsets, TopicPartitionOffsetAndMetadata } from 'kafkajs';
import { AdaptiveLinger } from '../batching/adaptive-linger';
import { headerValue } from '../envelope/event-envelope';
import { classifyError, isConcurrencyConflict, isUnavailable } from '../errors/classify-error';
import { messageOf } from '../errors/message-of';
import { backoffDelay, sleep, type RetryOptions } from '../retry/backoff';
import { contextFromHeaders } from '../tracing/messaging-spans';
import { isSampled } from '../tracing/sampling';
import { describeEvent, partitionOf, type PendingEvent } from './consumed-event';
import type { ConsumerCounters } from './consumer-stats';
import type { DeadLetter, DeadLetterPublisher } from './dead-letter';
import { logDeadLetter } from './dead-letter-log';
import type { EventContracts } from './event-contracts';
import { culpritOf } from './event-batch';
import { withEventLogContext } from './event-log-context';
import { settle, type Failure } from './isolate';
import { KeepAlive } from './keep-alive';
import { OffsetCommits } from './offset-commits';
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
  /**
   * The longest wait after a fetch that carried records before the next fetch, so what arrives
   * meanwhile comes as one batch (AdaptiveLinger: none after a quiet spell, doubling while
   * records keep coming). An idle consumer waits in the broker.
   */
  readonly lingerMs: number;
  hasHandler(type: string): boolean;
  /** One consumer transaction over the events (runBatchTransaction). */
  transact(events: readonly PendingEvent[]): Promise<void>;
  /** At most one OffsetCommit request per this interval (OffsetCommits). */
  readonly commitIntervalMs: number;
  /** Stops fetching a partition for `ms`, then fetches it again from its resolved offset. */
  pausePartition(topic: string, partition: number, ms: number): void;
  /** An attempt at the partition's records finished, whatever its outcome (liveness). */
  progressed?(topic: string, partition: number): void;
}

interface Submitted {
  readonly payload: EachBatchPayload;
  resolve(): void;
  reject(error: unknown): void;
}

/** A record after triage, in offset order. */
type Triaged =
  | { readonly kind: 'event'; readonly event: PendingEvent }
  | { readonly kind: 'poison'; readonly letter: DeadLetter }
  | { readonly kind: 'skipped'; readonly type: string }
  /** A record of the service's own dead-letter topic: logged, nothing else. */
  | { readonly kind: 'logged' };

/** A partition of the fetch: its records and how far they are resolved. */
interface PartitionWork {
  readonly payload: EachBatchPayload;
  readonly records: readonly { readonly offset: string; readonly triaged: Triaged }[];
  /** Index of the first record whose offset is not resolved yet. */
  next: number;
}

/**
 * The consumer's `eachBatch`. kafkajs calls it once per partition of a fetch, all in the same
 * tick; the calls are gathered and the whole fetch is applied together: triage, then per chunk of
 * at most maxEventsPerTransaction events one transaction (or a few, when something fails: see
 * `settle`), its dead letters, and the offsets of every partition, each only up to what is
 * durable, handed to OffsetCommits (one OffsetCommit request per interval). A partition whose
 * event must wait for a retry is paused and fetched again after the backoff: the fetch loop, and
 * every other partition, goes on. After a fetch that carried records it lingers (AdaptiveLinger).
 */
export class BatchConsumer {
  private submitted: Submitted[] = [];
  /** Failed attempts so far of the events waiting for a retry, by `topic/partition@offset`. */
  private readonly attempts = new Map<string, number>();
  private unavailableStreak = 0;
  /** Offsets of what is durable, committed coalesced. */
  readonly commits: OffsetCommits;
  /**
   * The latest fetch's commit function. kafkajs's `consumer.commitOffsets` does nothing once a
   * stop has begun; this one commits until the member has left its group, so the batch in hand
   * at a stop still gets its offsets committed.
   */
  private commitThroughGroup: ((offsets: Offsets) => Promise<void>) | undefined;
  private readonly linger: AdaptiveLinger;
  /** When the previous fetch's batches were handed back: the next fetch starts then. */
  private fetchedAt = performance.now();

  constructor(private readonly deps: BatchConsumerDeps) {
    this.linger = new AdaptiveLinger(deps.lingerMs);
    this.commits = new OffsetCommits(
      (offsets) => this.commitOffsets(offsets),
      deps.commitIntervalMs,
      (error) => {
        deps.logger.warn(`offset commit failed, kept for the next one: ${messageOf(error)}`);
      },
    );
  }

  readonly eachBatch = (payload: EachBatchPayload): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      this.commitThroughGroup = (offsets) => payload.commitOffsetsIfNecessary(offsets);
      if (this.submitted.push({ payload, resolve, reject }) === 1) {
        const waitedMs = performance.now() - this.fetchedAt;
        setImmediate(() => void this.flush(waitedMs));
      }
    });

  /** `waitedMs`: how long the fetch waited for these records (long: the consumer was idle). */
  private async flush(waitedMs: number): Promise<void> {
    const submitted = this.submitted;
    this.submitted = [];
    try {
      const payloads = submitted.map((entry) => entry.payload);
      await this.apply(payloads);
      const carriedRecords = payloads.some((payload) => payload.batch.messages.length > 0);
      const lingerMs = carriedRecords ? this.linger.next(waitedMs) : 0;
      if (lingerMs > 0 && payloads[0]!.isRunning()) await sleep(lingerMs);
      this.fetchedAt = performance.now();
      for (const entry of submitted) entry.resolve();
    } catch (error) {
      for (const entry of submitted) entry.reject(error);
    }
  }

  private async apply(payloads: readonly EachBatchPayload[]): Promise<void> {
    const keepAlive = new KeepAlive(payloads[0]!, this.deps.heartbeatIntervalMs);
    try {
      await this.applyInChunks(
        payloads.map((payload) => this.triage(payload)),
        () => keepAlive.error === undefined,
      );
    } finally {
      keepAlive.stop();
    }
    // A rebalance was announced during the batch: commit what is durable while this member still
    // owns its partitions, then hand the error to kafkajs, which rejoins the group.
    if (keepAlive.error !== undefined) {
      await this.commits.flush().catch(() => undefined);
      throw keepAlive.error;
    }
  }

  private triage(payload: EachBatchPayload): PartitionWork {
    const { topic, partition, messages } = payload.batch;
    const records = messages.map((message) => ({
      offset: message.offset,
      triaged: this.triageOne(topic, partition, message),
    }));
    return { payload, records, next: 0 };
  }

  private triageOne(topic: string, partition: number, message: KafkaMessage): Triaged {
    if (topic === this.deps.deadLetterTopic) {
      logDeadLetter(this.deps.logger, topic, partition, message);
      return { kind: 'logged' };
    }
    const triage = triageRecord(topic, message, this.deps.contracts, (type) => this.deps.hasHandler(type));
    if (triage.kind === 'poison') {
      context.with(contextFromHeaders(message.headers), () => {
        this.deps.logger.warn(`poison record ${topic}/${partition}@${message.offset}: ${triage.reason}`);
      });
      return {
        kind: 'poison',
        letter: { topic, partition, message, error: triage.reason, errorClass: 'fatal', attempts: 1 },
      };
    }
    if (triage.kind === 'unhandled') return { kind: 'skipped', type: triage.type };
    const id = `${topic}/${partition}@${message.offset}`;
    return {
      kind: 'event',
      event: {
        payload: triage.payload,
        metadata: triage.metadata,
        position: { topic, partition, offset: message.offset, key: message.key?.toString() ?? null },
        attempt: (this.attempts.get(id) ?? 0) + 1,
        message,
        sampled: isSampled(triage.metadata.traceparent),
      },
    };
  }

  /**
   * Chunk after chunk, in offset order; each chunk's outcome is committed before the next starts,
   * and a stopping consumer, a rebalance or a revoked partition stops at the next chunk boundary.
   */
  private async applyInChunks(work: readonly PartitionWork[], noRebalance: () => boolean): Promise<void> {
    const { maxEventsPerTransaction: size, retry } = this.deps;
    const policy = {
      attempts: retry.attempts,
      classify: classifyError,
      isTransient: (error: unknown) => isUnavailable(error) || isConcurrencyConflict(error),
      culpritOf,
    };
    const partitionOfEvent = new Map<PendingEvent, PartitionWork>();
    for (const partition of work)
      for (const { triaged } of partition.records)
        if (triaged.kind === 'event') partitionOfEvent.set(triaged.event, partition);
    const events = [...partitionOfEvent.keys()];
    const settled = new Set<PendingEvent>();
    const blocked = new Map<string, Failure<PendingEvent>>();
    for (let start = 0; start < events.length; start += size) {
      if (!work[0]!.payload.isRunning() || !noRebalance()) break;
      const chunk = events
        .slice(start, start + size)
        .filter(
          (event) =>
            !blocked.has(partitionOf(event.position)) && !partitionOfEvent.get(event)!.payload.isStale(),
        );
      if (chunk.length === 0) continue;
      const result = await settle(chunk, (list) => this.run(list), policy);
      if (result.transient !== undefined) {
        // Nothing of this chunk ran; what earlier chunks did is committed below.
        this.waitOutTransient(work, result.transient, start === 0);
        break;
      }
      this.unavailableStreak = 0;
      for (const event of result.done) settled.add(event);
      for (const failure of result.deadLetters) settled.add(failure.event);
      for (const [key, failure] of result.blocked) blocked.set(key, failure);
      await this.advance(work, settled, blocked, result.deadLetters);
      for (const failure of result.blocked.values()) this.retryLater(failure);
    }
    // Partitions with no events (poison, skipped, dead-letter log) move on here too.
    await this.advance(work, settled, blocked, []);
  }

  private async run(events: readonly PendingEvent[]): Promise<{ ok: true } | { ok: false; error: unknown }> {
    try {
      await this.deps.transact(events);
      return { ok: true };
    } catch (error) {
      return { ok: false, error };
    }
  }

  /**
   * Resolves each partition up to its first event not settled (or its blocked one): dead letters
   * first (durable before any offset moves past them), then one commit for every partition.
   */
  private async advance(
    work: readonly PartitionWork[],
    settled: ReadonlySet<PendingEvent>,
    blocked: ReadonlyMap<string, Failure<PendingEvent>>,
    failures: readonly Failure<PendingEvent>[],
  ): Promise<void> {
    const letters: DeadLetter[] = failures.map((failure) => this.letterOf(failure));
    const resolvable: { payload: EachBatchPayload; last: string }[] = [];
    for (const partition of work) {
      const { payload, records } = partition;
      const { topic } = payload.batch;
      const stopAt = blocked.get(`${topic}/${payload.batch.partition}`)?.event.position.offset;
      let last: string | undefined;
      while (partition.next < records.length) {
        const { offset, triaged } = records[partition.next]!;
        if (offset === stopAt || (triaged.kind === 'event' && !settled.has(triaged.event))) break;
        if (triaged.kind === 'poison') letters.push(triaged.letter);
        if (triaged.kind === 'skipped') this.countSkipped(topic, triaged.type);
        if (triaged.kind === 'event') this.attempts.delete(attemptKey(triaged.event));
        last = offset;
        partition.next += 1;
      }
      if (last !== undefined) resolvable.push({ payload, last });
    }
    letters.sort(
      (a, b) => a.partition - b.partition || Number(BigInt(a.message.offset) - BigInt(b.message.offset)),
    );
    await this.deps.deadLetters.send(letters);
    this.deps.counters.deadLettered += letters.length;
    // Resolved only once the dead letters are durable: kafkajs fetches again from the resolved
    // offset when a batch fails, so a failed send resolved before would skip its poison records.
    for (const { payload, last } of resolvable) payload.resolveOffset(last);
    await this.commits.add(
      resolvable.map(({ payload: { batch }, last }) => ({
        topic: batch.topic,
        partition: batch.partition,
        offset: (BigInt(last) + 1n).toString(),
      })),
    );
    for (const { payload } of work) this.deps.progressed?.(payload.batch.topic, payload.batch.partition);
    try {
      this.countDeadLetters(letters);
    } catch (error) {
      this.deps.logger.error(`recording metrics threw: ${messageOf(error)}`);
    }
  }

  private async commitOffsets(offsets: readonly TopicPartitionOffsetAndMetadata[]): Promise<void> {
    if (this.commitThroughGroup === undefined) throw new Error('no fetch to commit offsets through yet');
    const byTopic = new Map<string, { partition: number; offset: string }[]>();
    for (const { topic, partition, offset } of offsets)
      byTopic.set(topic, [...(byTopic.get(topic) ?? []), { partition, offset }]);
    await this.commitThroughGroup({
      topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })),
    });
  }

  private retryLater({ event, error, errorClass, attempts }: Failure<PendingEvent>): void {
    const { retry, logger, counters } = this.deps;
    this.attempts.set(attemptKey(event), attempts);
    const delay = backoffDelay(Math.max(1, attempts), retry);
    withEventLogContext(event, () => {
      logger.warn(
        `${describeEvent(event)} failed (attempt ${attempts}/${retry.attempts}, ${errorClass}): ` +
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
  private waitOutTransient(work: readonly PartitionWork[], error: unknown, nothingDone: boolean): void {
    const { retry, logger } = this.deps;
    const unavailable = isUnavailable(error);
    if (unavailable) this.unavailableStreak += 1;
    if (unavailable && nothingDone && this.unavailableStreak >= retry.attempts) {
      this.unavailableStreak = 0;
      throw error;
    }
    const delay = backoffDelay(unavailable ? this.unavailableStreak : 1, retry);
    logger.warn(`batch of ${work.length} partitions not applied (${messageOf(error)}); retry in ${delay} ms`);
    for (const { payload } of work)
      this.deps.pausePartition(payload.batch.topic, payload.batch.partition, delay);
  }

  private letterOf({ event, error, errorClass, attempts }: Failure<PendingEvent>): DeadLetter {
    withEventLogContext(event, () => {
      this.deps.logger.warn(
        `${describeEvent(event)} dead-lettered after ${attempts} attempt(s) (${errorClass}): ${messageOf(error)}`,
      );
    });
    const { topic, partition } = event.position;
    return { topic, partition, message: event.message, error: messageOf(error), errorClass, attempts };
  }

  private countSkipped(topic: string, type: string): void {
    this.deps.counters.skippedByType[type] = (this.deps.counters.skippedByType[type] ?? 0) + 1;
    PipelineMetrics.eventsSkipped.inc({ topic, type });
  }

  private countDeadLetters(letters: readonly DeadLetter[]): void {
    for (const letter of letters) {
      // Only declared types become label values, so garbage cannot create series without bound.
      const type = headerValue(letter.message.headers, EventHeaders.type);
      PipelineMetrics.eventsDeadLettered.inc({
        topic: letter.topic,
        type:
          type !== undefined && this.deps.contracts.isDeclaredFor(letter.topic, type) ? type : 'undeclared',
        error_class: letter.errorClass,
      });
    }
  }
}

const attemptKey = (event: PendingEvent): string => `${partitionOf(event.position)}@${event.position.offset}`;
