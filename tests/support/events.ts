// Producing CloudEvents records the way a service would, and waiting until a consumer group has
// processed them: the two things every e2e test does on the Kafka side.
import type { Admin, IHeaders, Kafka, KafkaMessage, Producer } from 'kafkajs';
import { eventually } from './processes';
import { encodeHeaders, metadataOf } from '@pipeline/contracts';

export interface TestEvent {
  /** The topic as produced to: already prefixed. */
  readonly topic: string;
  readonly key: string;
  readonly type: string;
  readonly payload: unknown;
  readonly correlationId: string;
  /** Reuse an earlier id to redeliver the same event (same ce_id). */
  readonly id?: string;
  /** The event time (`ce_time`); defaults to now. */
  readonly time?: Date;
}

/** Where a record landed, and what it was: enough to resend it or to wait for its processing. */
export interface ProducedRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: string;
  readonly id: string;
  readonly headers: Record<string, string>;
  readonly value: string;
}

/**
 * The tests' producer: idempotent, so a send kafkajs retries on a busy broker (a request that timed
 * out after the broker had appended it) never writes a record twice; a test that counts records,
 * dead letters or lag would see the copy. Its sends must use acks=-1, kafkajs's default.
 */
export const testProducer = (kafka: Kafka): Producer =>
  kafka.producer({ idempotent: true, allowAutoTopicCreation: false });

/** Accepts a connected producer, or a Kafka client (then connects a producer for this one send). */
async function withProducer<T>(
  target: Kafka | Producer,
  send: (producer: Producer) => Promise<T>,
): Promise<T> {
  if (!('producer' in target)) return send(target);
  const producer = testProducer(target);
  await producer.connect();
  try {
    return await send(producer);
  } finally {
    await producer.disconnect();
  }
}

/** Produces one event with CloudEvents headers from `test-producer` (acks from all replicas). */
export async function produceEvent(target: Kafka | Producer, event: TestEvent): Promise<ProducedRecord> {
  const { topic, key, type, payload, correlationId, id, time } = event;
  const metadata = metadataOf(
    {
      topic,
      key,
      type,
      payload,
      correlationId,
      ...(id === undefined ? {} : { id }),
      ...(time === undefined ? {} : { time }),
    },
    'test-producer',
  );
  const headers = encodeHeaders(metadata);
  const value = JSON.stringify(payload);
  const [sent] = await withProducer(target, (producer) =>
    producer.send({ topic, acks: -1, messages: [{ key, value, headers }] }),
  );
  return {
    topic,
    partition: sent!.partition,
    offset: sent!.baseOffset!,
    key,
    id: metadata.id,
    headers,
    value,
  };
}

/** Produces a record read from a topic again, unchanged: key, value and headers (so the same ce_id). */
export async function reproduce(
  target: Kafka | Producer,
  topic: string,
  record: Pick<KafkaMessage, 'key' | 'value' | 'headers'>,
): Promise<{ topic: string; partition: number; offset: string }> {
  const headers: IHeaders = record.headers ?? {};
  const [sent] = await withProducer(target, (producer) =>
    producer.send({ topic, acks: -1, messages: [{ key: record.key, value: record.value, headers }] }),
  );
  return { topic, partition: sent!.partition, offset: sent!.baseOffset! };
}

/**
 * Waits until `group` has committed past every given record: it processed them (or skipped them
 * as duplicates). Kafka commits per partition, so this covers everything before them too.
 */
export async function committedPast(
  admin: Admin,
  group: string,
  records: readonly { topic: string; partition: number; offset: string }[],
  timeoutMs = 30_000,
): Promise<void> {
  const topics = [...new Set(records.map((record) => record.topic))];
  if (topics.length === 0) return;
  await eventually(
    async () => {
      const committed = await admin.fetchOffsets({ groupId: group, topics });
      const offsetOf = (topic: string, partition: number): bigint =>
        BigInt(
          committed.find((t) => t.topic === topic)?.partitions.find((p) => p.partition === partition)
            ?.offset ?? '-1',
        );
      return records.every((r) => offsetOf(r.topic, r.partition) > BigInt(r.offset)) ? true : undefined;
    },
    { timeoutMs, intervalMs: 100, what: `group ${group} committed past ${records.length} record(s)` },
  );
}

/** Waits until `group` has processed everything produced to `topics` (prefixed) so far. */
export async function caughtUp(admin: Admin, group: string, topics: readonly string[]): Promise<void> {
  const ends = await Promise.all(
    topics.map(async (topic) =>
      (await admin.fetchTopicOffsets(topic))
        .filter((p) => BigInt(p.high) > BigInt(p.low))
        .map((p) => ({ topic, partition: p.partition, offset: String(BigInt(p.high) - 1n) })),
    ),
  );
  await committedPast(admin, group, ends.flat());
}
