import { context } from '@opentelemetry/api';
import { PipelineMetrics, contextFromHeaders, isSampled } from '@pipeline/observability';
import type { EachBatchPayload, KafkaMessage, TopicPartitionOffsetAndMetadata } from 'kafkajs';
import { AdaptiveLinger } from '../batching/adaptive-linger';
import { countDeadLetters, type DeadLetter, type DeadLetterPublisher } from '../dead-letters/dead-letter';
import { logDeadLetter } from '../dead-letters/dead-letter-log';
import { partitionOf, type PendingEvent } from '../events/consumed-event';
import { countSkipped } from '../events/consumer-stats';
import { triageRecord, type EventContracts } from '@pipeline/contracts';
import { describeUndecodable, undecodableBatchOf } from '@pipeline/kafka-codecs';
import { sleep } from '../retry/backoff';
import { runBatchTransaction, type BatchTransactionDeps } from '../transaction/batch-transaction';
import { Retries, settle, type Failure, type RetriesDeps } from './isolate';
import type { UndecodableBatchPolicy } from '../nest/kafka-event-server.options';
import { UndecodableBatchError } from '../errors/pipeline-error';

export interface BatchConsumerDeps extends RetriesDeps {
  readonly contracts: EventContracts;
  readonly deadLetters: DeadLetterPublisher;
  /** The service's own dead-letter topic: its records are logged at WARN, never processed. */
  readonly deadLetterTopic: string;
  readonly heartbeatIntervalMs: number;
  /** Upper bound of events in one transaction; a larger fetch is applied in several. */
  readonly maxEventsPerTransaction: number;
  /** The longest linger after a fetch that carried records (AdaptiveLinger). */
  readonly lingerMs: number;
  readonly transaction: BatchTransactionDeps;
  /** Where offsets go once what they cover is durable (the consumer's OffsetCommits). */
  readonly commits: {
    add(offsets: readonly TopicPartitionOffsetAndMetadata[]): Promise<void>;
    flush(): Promise<void>;
  };
  /** What to do with a record batch that cannot be decoded (KafkaEventServerOptions). */
  readonly undecodableBatches: UndecodableBatchPolicy;
  /** An attempt at the partition's records finished, whatever its outcome (liveness). */
  progressed?(topic: string, partition: number): void;
}

/** A record after triage, in offset order. */
type Triaged =
  | { readonly kind: 'event'; readonly event: PendingEvent }
  | { readonly kind: 'poison'; readonly letter: DeadLetter }
  /** Declared for the topic, but this service has no handler for it: skipped and committed. */
  | { readonly kind: 'unhandled'; readonly type: string }
  /** A record of the service's own dead-letter topic: logged at WARN, nothing else. */
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
 * at most maxEventsPerTransaction events one transaction (or a few when something fails: `settle`),
 * its dead letters, and every partition's offset up to what is durable. A partition whose event
 * waits for a retry is paused and fetched again after the backoff; the fetch loop and every other
 * partition go on. After a fetch that carried records the consumer lingers (AdaptiveLinger: none
 * after a quiet spell, doubling while records keep coming), so what arrives meanwhile is one batch.
 */
export class BatchConsumer {
  private submitted: { payload: EachBatchPayload; resolve(): void; reject(error: unknown): void }[] = [];
  private readonly retries: Retries;
  private readonly linger: AdaptiveLinger;
  /** When the previous fetch's batches were handed back: the next fetch starts then. */
  private fetchedAt = performance.now();

  constructor(private readonly deps: BatchConsumerDeps) {
    this.linger = new AdaptiveLinger(deps.lingerMs);
    this.retries = new Retries(deps);
  }

  readonly eachBatch = (payload: EachBatchPayload): Promise<void> =>
    new Promise<void>((resolve, reject) => {
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
    // Heartbeats while the fetch is applied, so a slow transaction does not get the member evicted
    // (kafkajs heartbeats only between fetches, and throttles these calls to its interval). One
    // that fails means a rebalance started: remembered, and handed to kafkajs below.
    let rebalance: Error | undefined;
    const beat = () =>
      payloads[0]!.heartbeat().catch((error: unknown) => {
        rebalance ??= error instanceof Error ? error : new Error(String(error));
      });
    const heartbeats = setInterval(() => void beat(), this.deps.heartbeatIntervalMs);
    try {
      await this.applyInChunks(
        payloads.map((payload) => this.triage(payload)),
        () => rebalance === undefined,
      );
    } finally {
      clearInterval(heartbeats);
    }
    // A rebalance was announced during the batch: commit what is durable while this member still
    // owns its partitions, then hand the error to kafkajs, which rejoins the group.
    if (rebalance !== undefined) {
      await this.deps.commits.flush().catch(() => undefined);
      throw rebalance;
    }
  }

  /** Every record of one partition of the fetch, triaged before any transaction. */
  private triage(payload: EachBatchPayload): PartitionWork {
    const { topic, partition, messages } = payload.batch;
    const { contracts, deadLetterTopic, logger, transaction } = this.deps;
    const triageOne = (message: KafkaMessage): Triaged => {
      if (topic === deadLetterTopic) {
        logDeadLetter(logger, topic, partition, message);
        return { kind: 'logged' };
      }
      const batch = undecodableBatchOf(message);
      if (batch !== undefined) {
        const where = describeUndecodable(topic, partition, batch);
        if (this.deps.undecodableBatches === 'stop') {
          PipelineMetrics.undecodableBatches.inc({ topic });
          throw new UndecodableBatchError(
            `undecodable record batch ${where}: stopped here (undecodable batches: stop)`,
          );
        }
        logger.warn(`undecodable record batch ${where}: dead-lettered by its offsets and skipped`);
        const letter: DeadLetter = {
          topic,
          partition,
          message,
          error: batch.error,
          errorClass: 'fatal',
          attempts: 1,
          batch,
        };
        return { kind: 'poison', letter };
      }
      const triage = triageRecord(topic, message, contracts, (type) => transaction.handlers.has(type));
      if (triage.kind === 'unhandled') return triage;
      const { offset } = message;
      if (triage.kind === 'poison') {
        context.with(contextFromHeaders(message.headers), () => {
          logger.warn(`poison record ${topic}/${partition}@${offset}: ${triage.reason}`);
        });
        const letter: DeadLetter = {
          topic,
          partition,
          message,
          error: triage.reason,
          errorClass: 'fatal',
          attempts: 1,
        };
        return { kind: 'poison', letter };
      }
      const { metadata } = triage;
      const position = { topic, partition, offset, key: message.key?.toString() ?? null };
      const attempt = this.retries.attemptOf(topic, partition, offset);
      const sampled = isSampled(metadata.traceparent);
      const event = { payload: triage.payload, metadata, position, attempt, message, sampled };
      return { kind: 'event', event };
    };
    const records = messages.map((message) => ({ offset: message.offset, triaged: triageOne(message) }));
    return { payload, records, next: 0 };
  }

  private readonly transact = (events: readonly PendingEvent[]) =>
    runBatchTransaction(this.deps.transaction, events);

  /**
   * Chunk after chunk, in offset order; each chunk's outcome is committed before the next starts,
   * and a stopping consumer, a rebalance or a revoked partition stops at the next chunk boundary.
   */
  private async applyInChunks(work: readonly PartitionWork[], noRebalance: () => boolean): Promise<void> {
    const size = this.deps.maxEventsPerTransaction;
    const payloads = work.map((partition) => partition.payload);
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
      const result = await settle(chunk, this.transact, this.retries.policy);
      if (result.transient !== undefined) {
        // Nothing of this chunk ran; what earlier chunks did is committed below.
        this.retries.waitOutTransient(payloads, result.transient, start === 0);
        break;
      }
      this.retries.applied();
      for (const event of result.done) settled.add(event);
      for (const failure of result.deadLetters) settled.add(failure.event);
      for (const [key, failure] of result.blocked) blocked.set(key, failure);
      await this.advance(work, settled, blocked, result.deadLetters);
      for (const failure of result.blocked.values()) this.retries.later(failure);
    }
    // Partitions with no events (poison, skipped, dead-letter log) move on here too.
    await this.advance(work, settled, blocked, []);
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
    const letters = failures.map((failure) => this.retries.letterOf(failure));
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
        if (triaged.kind === 'unhandled') countSkipped(this.deps.counters, topic, triaged.type);
        if (triaged.kind === 'event') this.retries.resolved(triaged.event);
        last = offset;
        partition.next += 1;
      }
      // Every record handed over is resolved: commit past what kafkajs filtered out behind them
      // too (a transaction's commit marker, aborted records), or the offset would stay there.
      if (last !== undefined && partition.next === records.length) last = payload.batch.lastOffset();
      if (last !== undefined) resolvable.push({ payload, last });
    }
    letters.sort(
      (a, b) => a.partition - b.partition || Number(BigInt(a.message.offset) - BigInt(b.message.offset)),
    );
    await this.deps.deadLetters.send(letters);
    // Resolved only once the dead letters are durable: kafkajs fetches again from the resolved
    // offset when a batch fails, so a failed send resolved before would skip its poison records.
    for (const { payload, last } of resolvable) payload.resolveOffset(last);
    await this.deps.commits.add(
      resolvable.map(({ payload: { batch }, last }) => ({
        topic: batch.topic,
        partition: batch.partition,
        offset: (BigInt(last) + 1n).toString(),
      })),
    );
    for (const { payload } of work) this.deps.progressed?.(payload.batch.topic, payload.batch.partition);
    countDeadLetters(letters, this.deps);
  }
}
