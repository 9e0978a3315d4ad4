import { context } from '@opentelemetry/api';
import { PipelineMetrics, contextFromHeaders, isSampled, messageOf } from '@pipeline/observability';
import type { EachBatchPayload, KafkaMessage, TopicPartitionOffsetAndMetadata } from 'kafkajs';
import { countDeadLetters, type DeadLetter, type DeadLetterPublisher } from '../dead-letters/dead-letter';
import { logDeadLetter } from '../dead-letters/dead-letter-log';
import type { PendingEvent } from '../handlers/event-batch';
import { countSkipped } from '../events/consumer-stats';
import { triageRecord, type EventContracts } from '@pipeline/contracts';
import { describeUndecodable, type FetchedMessage } from '@pipeline/kafka-codecs';
import { Retries, settle, type Failure, type RetriesDeps, type Settlement } from './isolate';
import type { UndecodableBatchPolicy } from '../nest/kafka-event-server.options';
import { UndecodableBatchError } from '../errors/pipeline-error';

export interface BatchConsumerDeps extends Omit<RetriesDeps, 'block'> {
  readonly contracts: EventContracts;
  readonly deadLetters: DeadLetterPublisher;
  /** The service's own dead-letter topic: its records are logged at WARN, never processed. */
  readonly deadLetterTopic: string;
  /**
   * After a transaction that held the events of more than one record key (the service is
   * behind), wait this long before the next one, so it carries more. Never after a transaction of
   * one key's events; records only skipped do not count.
   */
  readonly busyLingerMs?: number;
  /** Upper bound of events in one transaction; what waits beyond it goes in the next one. */
  readonly maxEventsPerTransaction: number;
  // run, hasHandler and progressed are called per record as they are given (no wrapper here), so
  // the path of a record enters the files that define them only (docs/messaging.md).
  /** One transaction over the events (runBatchTransaction); rejects when it rolled back. */
  readonly run: (events: readonly PendingEvent[]) => Promise<void>;
  /** Whether a handler takes events of this type (others are skipped and committed). */
  readonly hasHandler: (type: string) => boolean;
  /** Where offsets go once what they cover is durable (the consumer's OffsetCommits). */
  readonly commits: { add(offsets: readonly TopicPartitionOffsetAndMetadata[]): Promise<void> };
  /** What to do with a record batch that cannot be decoded (KafkaEventServerOptions). */
  readonly undecodableBatches: UndecodableBatchPolicy;
  /** kafkajs stops fetching a partition, or fetches it again (SupervisedConsumer). */
  pause(topic: string, partition: number): void;
  resume(topic: string, partition: number): void;
  /** The consumer cannot go on (the database stays down, a dead letter cannot be written). */
  crash(error: Error): void;
  /** An attempt at the partition's records finished, whatever its outcome (liveness). */
  readonly progressed?: (topic: string, partition: number) => void;
}

/** A record after triage. */
type Triaged =
  /** `event` is renewed with its attempt number each time a transaction takes it. */
  | { readonly kind: 'event'; event: PendingEvent }
  | { readonly kind: 'poison'; readonly letter: DeadLetter }
  /** Declared for the topic, but this service has no handler for it: skipped and committed. */
  | { readonly kind: 'unhandled'; readonly type: string }
  /** A record of the service's own dead-letter topic: logged at WARN, nothing else. */
  | { readonly kind: 'logged' };

type Queued = { readonly offset: string; triaged: Triaged };

/** One assigned partition: what kafkajs handed over and no transaction has taken yet. */
interface PartitionQueue {
  readonly topic: string;
  readonly partition: number;
  /** Triaged records in offset order. */
  records: Queued[];
  /** The offset after the last one kafkajs handed over (records it filtered out included). */
  end: bigint | undefined;
  /** Records of it are in the transaction in flight. */
  inFlight: boolean;
  /** A failed event waits for its backoff until then (`performance.now()`); 0: not blocked. */
  blockedUntil: number;
  /** Paused in kafkajs by us: blocked, or at its high-water mark. */
  paused: boolean;
}

/** What one transaction takes: each partition's records from its head, in offset order. */
interface Chunk {
  readonly generation: number;
  readonly parts: { readonly queue: PartitionQueue; readonly records: Queued[] }[];
}

/**
 * The consumer's path from kafkajs's hand-off to the offset commit, in the order a record takes it.
 *
 * 1. `eachBatch`: kafkajs hands over a partition's records. They are triaged (envelope, contract,
 *    schema: poison set aside) and queued, and kafkajs is told to fetch on from after them: the
 *    next fetch is in flight while a transaction runs. Offsets are committed only later, once
 *    durable. A partition holding `maxEventsPerTransaction` records is paused until it drains.
 * 2. `drain`: one transaction in flight for the whole service. The next one takes what arrived
 *    while the previous was applied, from every partition, up to `maxEventsPerTransaction` events:
 *    batches form by themselves and grow with the load, with no timer on the path.
 * 3. `apply`: `settle` runs the transaction (bisecting around a failure, isolate.ts), then every
 *    partition is resolved up to what is durable: dead letters first, then the offsets. An event
 *    that waits for a retry blocks its partition from that record on, kept here, and kafkajs
 *    pauses fetching it until the backoff is over; every other partition goes on.
 *
 * A new assignment or a crash starts a new generation: kafkajs fetches again from the committed
 * offsets, so what was queued is dropped and what the transaction in flight resolves is not
 * committed (the inbox drops the records fetched again).
 */
export class BatchConsumer {
  private readonly retries: Retries;
  private readonly queues = new Map<string, PartitionQueue>();
  private generation = 0;
  private draining: Promise<void> | undefined;
  private stopped = false;
  private unblockTimer: NodeJS.Timeout | undefined;
  /** Where the next transaction starts taking, so no partition waits behind the others. */
  private rotation = 0;

  constructor(private readonly deps: BatchConsumerDeps) {
    this.retries = new Retries({ ...deps, block: (failure, ms) => this.block(failure, ms) });
  }

  /** kafkajs's `eachBatch`: triage, queue, fetch on. Rejects only when triage says stop. */
  readonly eachBatch = (payload: EachBatchPayload): Promise<void> => {
    try {
      this.handOver(payload);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  };

  private handOver(payload: EachBatchPayload): void {
    if (this.stopped) return;
    const { batch } = payload;
    const queue = this.queueOf(batch.topic, batch.partition);
    const from = queue.end;
    for (const message of batch.messages) {
      // Already queued (kafkajs hands a partition's records over once; this is a guard).
      if (from !== undefined && BigInt(message.offset) < from) continue;
      queue.records.push({
        offset: message.offset,
        triaged: this.triage(batch.topic, batch.partition, message),
      });
    }
    queue.end = BigInt(batch.lastOffset()) + 1n;
    // kafkajs fetches from here on; what the group commits is decided by `apply`.
    payload.resolveOffset(batch.lastOffset());
    if (queue.records.length >= this.deps.maxEventsPerTransaction) this.pauseQueue(queue);
    this.wake();
  }

  /** Resolves once nothing is queued that could be taken now (tests, and `stop`). */
  async idle(): Promise<void> {
    while (this.draining !== undefined) await this.draining;
  }

  /**
   * kafkajs moved past records it never hands over (a transaction's commit marker, aborted
   * records): committed with the partition's next resolution, or now if nothing of it waits.
   */
  skipped(topic: string, partition: number, lastOffset: string): void {
    const queue = this.queueOf(topic, partition);
    queue.end = BigInt(lastOffset) + 1n;
    if (queue.records.length === 0 && !queue.inFlight) void this.commit([{ queue, next: queue.end }]);
  }

  /**
   * The member joined its group again (`owned`: its new assignment) or its consumer crashed
   * (nothing owned until it rejoins). kafkajs fetches from the committed offsets again.
   */
  reset(owned: (topic: string, partition: number) => boolean): void {
    this.generation += 1;
    for (const [key, queue] of this.queues) {
      queue.records = [];
      queue.end = undefined;
      const keep = owned(queue.topic, queue.partition);
      if (!keep) this.queues.delete(key);
      // A blocked partition stays paused until its backoff is over; kafkajs keeps its pauses.
      if (queue.paused && (!keep || queue.blockedUntil === 0)) this.resumeQueue(queue);
    }
  }

  /** Stops taking records; resolves once the transaction in flight and its offsets are done. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.unblockTimer);
    await this.idle();
  }

  private queueOf(topic: string, partition: number): PartitionQueue {
    const key = `${topic}/${partition}`;
    let queue = this.queues.get(key);
    if (queue === undefined) {
      queue = {
        topic,
        partition,
        records: [],
        end: undefined,
        inFlight: false,
        blockedUntil: 0,
        paused: false,
      };
      this.queues.set(key, queue);
    }
    return queue;
  }

  private triage(topic: string, partition: number, message: KafkaMessage): Triaged {
    const { contracts, deadLetterTopic, logger } = this.deps;
    if (topic === deadLetterTopic) {
      logDeadLetter(logger, topic, partition, message);
      return { kind: 'logged' };
    }
    const batch = (message as FetchedMessage).undecodable;
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
    const triage = triageRecord(topic, message, contracts, this.deps.hasHandler);
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
    const sampled = isSampled(metadata.traceparent);
    return {
      kind: 'event',
      event: { payload: triage.payload, metadata, position, attempt: 1, message, sampled },
    };
  }

  /**
   * Starts the transaction loop unless it runs already. After the current event-loop turn:
   * kafkajs hands over every partition of a fetch in one turn, and they go in one transaction.
   */
  private wake(): void {
    if (this.draining !== undefined || this.stopped) return;
    this.draining = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.drain())
      .catch((error: unknown) => this.deps.crash(error instanceof Error ? error : new Error(String(error))))
      .finally(() => (this.draining = undefined));
  }

  /** One transaction after the other, each over what arrived meanwhile, until nothing waits. */
  private async drain(): Promise<void> {
    for (let chunk = this.take(); chunk !== undefined && !this.stopped; chunk = this.take()) {
      await this.apply(chunk);
      // Only while the service is behind (the transaction took the events of several keys, so
      // more orders came in while the one before it ran): a short wait lets the next one carry
      // more per commit. One order's events together (order-service's payment.authorized and
      // stock.reserved) are not a backlog, and records only skipped cost no transaction.
      const busyLingerMs = this.deps.busyLingerMs ?? 0;
      if (busyLingerMs > 0 && keysIn(chunk) > 1)
        await new Promise((resolve) => setTimeout(resolve, busyLingerMs));
    }
    this.scheduleUnblock();
  }

  /** Up to `maxEventsPerTransaction` events, from the head of every partition not blocked. */
  private take(): Chunk | undefined {
    const now = performance.now();
    const queues = [...this.queues.values()];
    const start = this.rotation++ % Math.max(1, queues.length);
    const parts: Chunk['parts'] = [];
    let events = 0;
    for (let i = 0; i < queues.length && events < this.deps.maxEventsPerTransaction; i += 1) {
      const queue = queues[(start + i) % queues.length]!;
      if (queue.blockedUntil > now) continue;
      queue.blockedUntil = 0;
      if (queue.records.length === 0) {
        if (queue.paused) this.resumeQueue(queue);
        continue;
      }
      let count = 0;
      while (count < queue.records.length && events < this.deps.maxEventsPerTransaction) {
        const { triaged } = queue.records[count]!;
        if (triaged.kind === 'event') {
          // The attempt this delivery is: one more than the record's failures so far.
          const { topic, partition, offset } = triaged.event.position;
          triaged.event = { ...triaged.event, attempt: this.retries.attemptOf(topic, partition, offset) };
          events += 1;
        }
        count += 1;
      }
      parts.push({ queue, records: queue.records.splice(0, count) });
      queue.inFlight = true;
    }
    return parts.length === 0 ? undefined : { generation: this.generation, parts };
  }

  /** One transaction (or a few, when something fails: `settle`), its dead letters, its offsets. */
  private async apply(chunk: Chunk): Promise<void> {
    const events = chunk.parts.flatMap(({ records }) => records.flatMap(eventOf));
    let result: Settlement<PendingEvent>;
    try {
      result =
        events.length === 0
          ? { done: [], deadLetters: [], blocked: new Map() }
          : await settle(events, this.deps.run, this.retries.policy);
    } finally {
      for (const { queue } of chunk.parts) queue.inFlight = false;
    }
    const current = chunk.generation === this.generation;
    if (result.transient !== undefined) {
      // Nothing ran: every record goes back, and its partitions wait (or the consumer restarts).
      if (current) for (const { queue, records } of chunk.parts) queue.records.unshift(...records);
      const delay = this.retries.waitOutTransient(chunk.parts.length, result.transient);
      if (current) for (const { queue } of chunk.parts) this.blockQueue(queue, delay);
      return;
    }
    const settled = new Set<PendingEvent>([
      ...result.done,
      ...result.deadLetters.map((failure) => failure.event),
    ]);
    const letters = result.deadLetters.map((failure) => this.retries.letterOf(failure));
    const resolved: { queue: PartitionQueue; next: bigint }[] = [];
    const resolvedEvents: PendingEvent[] = [];
    for (const { queue, records } of chunk.parts) {
      const stopAt = result.blocked.get(`${queue.topic}/${queue.partition}`)?.event.position.offset;
      let index = 0;
      for (; index < records.length; index += 1) {
        const { offset, triaged } = records[index]!;
        if (offset === stopAt || (triaged.kind === 'event' && !settled.has(triaged.event))) break;
        if (triaged.kind === 'poison') letters.push(triaged.letter);
        if (triaged.kind === 'unhandled') countSkipped(this.deps.counters, queue.topic, triaged.type);
        if (triaged.kind === 'event') resolvedEvents.push(triaged.event);
      }
      if (current && index < records.length) queue.records.unshift(...records.slice(index));
      if (index === 0) continue;
      const next = BigInt(records[index - 1]!.offset) + 1n;
      // All of it resolved: commit past what kafkajs filtered out behind the last record too.
      const drained = queue.records.length === 0 && queue.end !== undefined && queue.end > next;
      resolved.push({ queue, next: drained ? queue.end! : next });
    }
    this.retries.applied(resolvedEvents);
    // Durable before any offset moves past them; a failure here restarts the consumer.
    letters.sort(
      (a, b) => a.partition - b.partition || Number(BigInt(a.message.offset) - BigInt(b.message.offset)),
    );
    if (letters.length > 0) {
      await this.deps.deadLetters.send(letters);
      countDeadLetters(letters, this.deps);
    }
    if (!current) return;
    await this.commit(resolved);
    for (const failure of result.blocked.values()) this.retries.later(failure);
    for (const { queue } of chunk.parts) {
      this.deps.progressed?.(queue.topic, queue.partition);
      if (
        queue.paused &&
        queue.blockedUntil === 0 &&
        queue.records.length < this.deps.maxEventsPerTransaction
      )
        this.resumeQueue(queue);
    }
  }

  /** A commit that fails is kept for the next one (OffsetCommits); kafkajs finds a rebalance itself. */
  private commit(resolved: readonly { queue: PartitionQueue; next: bigint }[]): Promise<void> {
    const offsets = resolved.map(({ queue, next }) => ({
      topic: queue.topic,
      partition: queue.partition,
      offset: next.toString(),
    }));
    return this.deps.commits.add(offsets).catch((error: unknown) => {
      this.deps.logger.warn(`offset commit failed, kept for the next one: ${messageOf(error)}`);
    });
  }

  /** Its event waits for a retry: the partition is taken from again after `ms`. */
  private block(failure: Failure<PendingEvent>, ms: number): void {
    const { topic, partition } = failure.event.position;
    this.blockQueue(this.queueOf(topic, partition), ms);
  }

  private blockQueue(queue: PartitionQueue, ms: number): void {
    queue.blockedUntil = performance.now() + ms;
    this.pauseQueue(queue);
    this.scheduleUnblock();
  }

  /** Wakes the loop when the earliest backoff is over. */
  private scheduleUnblock(): void {
    clearTimeout(this.unblockTimer);
    this.unblockTimer = undefined;
    const until = Math.min(...[...this.queues.values()].map((queue) => queue.blockedUntil || Infinity));
    if (!Number.isFinite(until) || this.stopped) return;
    this.unblockTimer = setTimeout(() => this.wake(), Math.max(0, until - performance.now()));
  }

  private pauseQueue(queue: PartitionQueue): void {
    if (queue.paused) return;
    queue.paused = true;
    this.deps.pause(queue.topic, queue.partition);
  }

  private resumeQueue(queue: PartitionQueue): void {
    queue.paused = false;
    this.deps.resume(queue.topic, queue.partition);
  }
}

const eventOf = ({ triaged }: Queued): PendingEvent[] => (triaged.kind === 'event' ? [triaged.event] : []);

/** The record keys (orders, on the saga's topics) whose events a transaction took; no key counts alone. */
const keysIn = (chunk: Chunk): number => {
  const keys = new Set<unknown>();
  for (const { records } of chunk.parts)
    for (const { triaged } of records)
      if (triaged.kind === 'event') keys.add(triaged.event.position.key ?? triaged.event);
  return keys.size;
};
