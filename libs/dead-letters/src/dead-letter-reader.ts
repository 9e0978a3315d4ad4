import { randomUUID } from 'node:crypto';
import type { Admin, Kafka } from 'kafkajs';
import { toDeadLetterRecord, type DeadLetterRecord } from './dead-letter-record';

export interface ReadDeadLettersOptions {
  readonly topic: string;
  /** Called every `progressIntervalMs` while reading, so a long read is never silent. */
  readonly onProgress?: (read: number, expected: number) => void;
  readonly progressIntervalMs?: number;
  /** Fails the read when the consumer makes no progress for this long. */
  readonly stallTimeoutMs?: number;
}

export interface PartitionRange {
  readonly partition: number;
  /** The snapshot covers offsets `[low, high)`. */
  readonly low: string;
  readonly high: string;
}

export interface DeadLetterSnapshot {
  readonly topic: string;
  readonly partitions: readonly PartitionRange[];
  /** Ordered by partition, then offset. */
  readonly records: readonly DeadLetterRecord[];
}

export class DeadLetterTopicNotFoundError extends Error {
  constructor(readonly topic: string) {
    super(`topic ${topic} does not exist`);
  }
}

/**
 * Reads a dead-letter topic from the beginning up to the end offsets taken at the start: records
 * that arrive meanwhile are left for the next run, so the read always ends. It commits nothing: a
 * throwaway consumer group (kafkajs cannot consume without one) is deleted afterwards.
 */
export async function readDeadLetters(
  kafka: Kafka,
  options: ReadDeadLettersOptions,
): Promise<DeadLetterSnapshot> {
  const { topic } = options;
  const admin = kafka.admin();
  await admin.connect();
  try {
    // listTopics first: kafkajs retries offsets of an unknown topic for a long time before failing.
    if (!(await admin.listTopics()).includes(topic)) throw new DeadLetterTopicNotFoundError(topic);
    const partitions = (await admin.fetchTopicOffsets(topic))
      .map(({ partition, low, high }) => ({ partition, low, high }))
      .sort((a, b) => a.partition - b.partition);
    const ends = new Map(
      partitions
        .filter((range) => BigInt(range.high) > BigInt(range.low))
        .map((range) => [range.partition, BigInt(range.high)]),
    );
    const expected = partitions.reduce(
      (sum, range) => sum + Number(BigInt(range.high) - BigInt(range.low)),
      0,
    );
    const records = expected === 0 ? [] : await consumeUpTo(kafka, admin, options, ends, expected);
    return { topic, partitions, records: records.sort(byPosition) };
  } finally {
    await admin.disconnect();
  }
}

const byPosition = (a: DeadLetterRecord, b: DeadLetterRecord): number =>
  a.partition - b.partition || Number(BigInt(a.offset) - BigInt(b.offset));

async function consumeUpTo(
  kafka: Kafka,
  admin: Admin,
  { topic, onProgress, progressIntervalMs = 1_000, stallTimeoutMs = 30_000 }: ReadDeadLettersOptions,
  ends: ReadonlyMap<number, bigint>,
  expected: number,
): Promise<DeadLetterRecord[]> {
  const pending = new Set(ends.keys());
  // Keyed by position: a rebalance without committed offsets would deliver records again.
  const records = new Map<string, DeadLetterRecord>();
  const groupId = `dlt-reader-${randomUUID()}`;
  const consumer = kafka.consumer({ groupId, allowAutoTopicCreation: false });
  let lastProgressAt = Date.now();
  const timers: NodeJS.Timeout[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      lastProgressAt = Date.now();
      // Batch events, not eachBatch, mark the end: a batch holding only transaction markers
      // never reaches eachBatch but still moves the partition's position.
      consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
        lastProgressAt = Date.now();
        const high = ends.get(payload.partition);
        if (payload.topic === topic && high !== undefined && BigInt(payload.lastOffset) + 1n >= high) {
          pending.delete(payload.partition);
        }
        if (pending.size === 0) resolve();
      });
      consumer.on(consumer.events.GROUP_JOIN, () => (lastProgressAt = Date.now()));
      consumer.on(consumer.events.CRASH, ({ payload }) => {
        if (!payload.restart) reject(payload.error);
      });
      timers.push(
        setInterval(() => {
          if (Date.now() - lastProgressAt > stallTimeoutMs) {
            reject(new Error(`reading ${topic} made no progress for ${stallTimeoutMs / 1000} s`));
          }
        }, 250),
      );
      if (onProgress) timers.push(setInterval(() => onProgress(records.size, expected), progressIntervalMs));
      consumer
        .run({
          autoCommit: false,
          eachBatch: async ({ batch }) => {
            const high = ends.get(batch.partition) ?? 0n;
            for (const message of batch.messages) {
              if (BigInt(message.offset) >= high) break;
              records.set(
                `${batch.partition}/${message.offset}`,
                toDeadLetterRecord(topic, batch.partition, message),
              );
            }
            return Promise.resolve();
          },
        })
        .catch(reject);
    });
  } finally {
    timers.forEach(clearInterval);
    await consumer.disconnect();
    // Best effort: an empty group without offsets is harmless and expires on its own.
    await admin.deleteGroups([groupId]).catch(() => undefined);
  }
  return [...records.values()];
}
