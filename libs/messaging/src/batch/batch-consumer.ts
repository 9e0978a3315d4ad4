import { PipelineMetrics } from '@pipeline/observability';
import type { EachBatchPayload, TopicPartitionOffsetAndMetadata } from 'kafkajs';
import { AdaptiveLinger } from '../batching/adaptive-linger';
import { countDeadLetters, type DeadLetter, type DeadLetterPublisher } from '../dead-letters/dead-letter';
import { messageOf } from '../errors/message-of';
import { partitionOf, type PendingEvent } from '../events/consumed-event';
import type { EventContracts } from '../events/event-contracts';
import { sleep } from '../retry/backoff';
import { runBatchTransaction, type BatchTransactionDeps } from '../transaction/batch-transaction';
import { triagePartition, type PartitionWork } from './record-triage';
import { Retries, settle, type Failure, type RetriesDeps } from './isolate';

export interface BatchConsumerDeps extends RetriesDeps {
  readonly contracts: EventContracts;
  readonly deadLetters: DeadLetterPublisher;
  /** The service's own dead-letter topic: its records are logged at WARN, never processed. */
  readonly deadLetterTopic: string;
  readonly heartbeatIntervalMs: number;
  /** Upper bound of events in one transaction; a larger fetch is applied in several. */
  readonly maxEventsPerTransaction: number;
  /**
   * The longest wait after a fetch that carried records before the next fetch, so what arrives
   * meanwhile comes as one batch (AdaptiveLinger: none after a quiet spell, doubling while
   * records keep coming). An idle consumer waits in the broker.
   */
  readonly lingerMs: number;
  /** What each consumer transaction needs (runBatchTransaction), the handler registry included. */
  readonly transaction: BatchTransactionDeps;
  /** Where offsets go once what they cover is durable (the consumer's OffsetCommits). */
  readonly commits: {
    add(offsets: readonly TopicPartitionOffsetAndMetadata[]): Promise<void>;
    flush(): Promise<void>;
  };
  /** An attempt at the partition's records finished, whatever its outcome (liveness). */
  progressed?(topic: string, partition: number): void;
}

interface Submitted {
  readonly payload: EachBatchPayload;
  resolve(): void;
  reject(error: unknown): void;
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
        payloads.map((payload) =>
          triagePartition(payload, {
            ...this.deps,
            hasHandler: (type) => this.deps.transaction.handlers.has(type),
            attemptOf: (topic, partition, offset) => this.retries.attemptOf(topic, partition, offset),
          }),
        ),
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

  /**
   * Chunk after chunk, in offset order; each chunk's outcome is committed before the next starts,
   * and a stopping consumer, a rebalance or a revoked partition stops at the next chunk boundary.
   */
  private async applyInChunks(work: readonly PartitionWork[], noRebalance: () => boolean): Promise<void> {
    const size = this.deps.maxEventsPerTransaction;
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
      const result = await settle(
        chunk,
        (list) => runBatchTransaction(this.deps.transaction, list),
        this.retries.policy,
      );
      if (result.transient !== undefined) {
        // Nothing of this chunk ran; what earlier chunks did is committed below.
        this.retries.waitOutTransient(
          work.map((partition) => partition.payload),
          result.transient,
          start === 0,
        );
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
    // A failure behind its partition's blocked event is not dead-lettered now: its offset cannot
    // move yet, so it is fetched and tried again after the blocked one, and dead-lettered then.
    const letters: DeadLetter[] = failures
      .filter(({ event: { position } }) => {
        const stop = blocked.get(partitionOf(position))?.event.position.offset;
        return stop === undefined || BigInt(position.offset) < BigInt(stop);
      })
      .map((failure) => this.retries.letterOf(failure));
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
        if (triaged.kind === 'event') this.retries.resolved(triaged.event);
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
    await this.deps.commits.add(
      resolvable.map(({ payload: { batch }, last }) => ({
        topic: batch.topic,
        partition: batch.partition,
        offset: (BigInt(last) + 1n).toString(),
      })),
    );
    for (const { payload } of work) this.deps.progressed?.(payload.batch.topic, payload.batch.partition);
    try {
      countDeadLetters(letters, this.deps.contracts);
    } catch (error) {
      this.deps.logger.error(`recording metrics threw: ${messageOf(error)}`);
    }
  }

  private countSkipped(topic: string, type: string): void {
    this.deps.counters.skippedByType[type] = (this.deps.counters.skippedByType[type] ?? 0) + 1;
    PipelineMetrics.eventsSkipped.inc({ topic, type });
  }
}
