import { toDeadLetterRecord } from '@pipeline/dead-letters';
import { recordBytes } from '@pipeline/messaging';
import type { Consumer, Kafka } from 'kafkajs';
import type { OffsetRange, ReadRecord, Watermark } from './dead-letter-page';

export interface DeadLetterReaderOptions {
  /** The one consumer group every read uses, deleted after each. */
  readonly groupId: string;
  /** Reads waiting for their turn at most; one more is refused with 503. */
  readonly maxWaiting?: number;
  /** A read that makes no progress for this long fails. */
  readonly stallTimeoutMs?: number;
  readonly warn: (message: string) => void;
}

export interface RangeHandlers {
  /** Each record of a range, in offset order; a read waits for what it returns. */
  readonly onRecord: (read: ReadRecord) => void | Promise<void>;
  /** A range is complete (the reader goes through the ranges one after another). */
  readonly onRangeEnd?: (range: OffsetRange) => void;
}

/**
 * Reads chosen offsets of a dead-letter topic, never the whole of it: each range is reached with
 * a seek, its partition alone is fetched, and the read ends at the range's end. kafkajs cannot
 * consume without a consumer group, so every read uses the same one, one read at a time, and
 * deletes it afterwards: none is left behind per view, and none commits.
 */
export class DeadLetterReader {
  private turn: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  constructor(
    private readonly kafka: Kafka,
    private readonly options: DeadLetterReaderOptions,
  ) {}

  /** The topic's offsets, or `undefined` when it does not exist (yet). */
  async watermarks(topic: string): Promise<Watermark[] | undefined> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      // listTopics first: kafkajs retries offsets of an unknown topic for a long time before failing.
      if (!(await admin.listTopics()).includes(topic)) return undefined;
      return (await admin.fetchTopicOffsets(topic))
        .map(({ partition, low, high }) => ({ partition, low: BigInt(low), high: BigInt(high) }))
        .sort((a, b) => a.partition - b.partition);
    } finally {
      await admin.disconnect();
    }
  }

  /** Reads `ranges` one after another (in the order given), in turn with every other read. */
  async read(topic: string, ranges: readonly OffsetRange[], handlers: RangeHandlers): Promise<void> {
    if (ranges.length === 0) return;
    const { maxWaiting = 8 } = this.options;
    if (this.waiting >= maxWaiting)
      throw Object.assign(new Error(`${maxWaiting} dead-letter reads are already waiting: try again`), {
        statusCode: 503,
      });
    this.waiting += 1;
    const mine = this.turn.then(() => this.consume(topic, ranges, handlers));
    this.turn = mine.catch(() => undefined);
    try {
      await mine;
    } finally {
      this.waiting -= 1;
    }
  }

  private async consume(topic: string, ranges: readonly OffsetRange[], handlers: RangeHandlers) {
    const { groupId, stallTimeoutMs = 15_000 } = this.options;
    // Small fetches: one partition at a time, a response of at most 1 MiB (or one larger record).
    const consumer = this.kafka.consumer({
      groupId,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: 100,
      maxBytes: 1024 * 1024,
    });
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      await follow(consumer, topic, ranges, handlers, stallTimeoutMs);
    } finally {
      await consumer.disconnect();
      const admin = this.kafka.admin();
      await admin.connect();
      await admin
        .deleteGroups([groupId])
        .catch((error: Error) => this.options.warn(`could not delete group ${groupId}: ${error.message}`))
        .finally(() => admin.disconnect());
    }
  }
}

/** Runs `consumer` through the ranges: only the current range's partition is ever fetched. */
function follow(
  consumer: Consumer,
  topic: string,
  ranges: readonly OffsetRange[],
  handlers: RangeHandlers,
  stallTimeoutMs: number,
): Promise<void> {
  let index = 0;
  let position = ranges[0]!.from;
  let lastProgressAt = Date.now();
  let handling = false;
  let done = false;
  return new Promise<void>((resolve, reject) => {
    const fail = (error: unknown) => {
      done = true;
      clearInterval(stall);
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    // A handler at work (a redrive sending its records) is progress; a silent broker is not.
    const stall = setInterval(() => {
      if (!handling && Date.now() - lastProgressAt > stallTimeoutMs)
        fail(new Error(`reading ${topic} made no progress for ${stallTimeoutMs / 1000} s`));
    }, 250);
    const start = () => {
      const { partition } = ranges[index]!;
      consumer.seek({ topic, partition, offset: String(position) });
      consumer.resume([{ topic, partitions: [partition] }]);
    };
    const finish = () => {
      lastProgressAt = Date.now();
      const range = ranges[index]!;
      consumer.pause([{ topic, partitions: [range.partition] }]);
      handlers.onRangeEnd?.(range);
      index += 1;
      if (index === ranges.length) {
        done = true;
        clearInterval(stall);
        resolve();
        return;
      }
      position = ranges[index]!.from;
      start();
    };
    // On every (re)join: nothing is fetched but the current range, from where it stands.
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      lastProgressAt = Date.now();
      consumer.pause([{ topic, partitions: payload.memberAssignment[topic] ?? [] }]);
      if (index < ranges.length) start();
    });
    // Batch events, not eachBatch, end a range: a batch of only control records never reaches
    // eachBatch but still moves the partition's position.
    consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
      const range = ranges[index];
      if (done || range === undefined || payload.topic !== topic || payload.partition !== range.partition)
        return;
      const last = BigInt(payload.lastOffset);
      if (payload.batchSize === 0 && last >= position) {
        // Only control records: kafkajs moved past them itself.
        position = last + 1n;
        lastProgressAt = Date.now();
      }
      if (last + 1n >= range.to || position >= range.to) finish();
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (!payload.restart) fail(payload.error);
    });
    consumer
      .run({
        autoCommit: false,
        // Only what was taken is resolved: a stale batch can never move the position past a record.
        eachBatchAutoResolve: false,
        eachBatch: async (payload) => {
          const { batch } = payload;
          const range = ranges[index];
          if (done || range === undefined || batch.partition !== range.partition) return;
          for (const message of batch.messages) {
            const offset = BigInt(message.offset);
            if (offset < position) continue;
            if (offset >= range.to) break;
            try {
              handling = true;
              await handlers.onRecord({
                record: toDeadLetterRecord(topic, batch.partition, message),
                timestampMs: Number(message.timestamp),
                bytes: recordBytes(message),
              });
            } catch (error) {
              fail(error);
              return;
            } finally {
              handling = false;
              lastProgressAt = Date.now();
            }
            position = offset + 1n;
            payload.resolveOffset(message.offset);
          }
        },
      })
      .catch(fail);
  });
}
