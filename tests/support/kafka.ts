import { randomBytes } from 'node:crypto';
import { type Admin, type Kafka, type KafkaMessage } from 'kafkajs';
import { EventHeaders, headerValue } from '@pipeline/contracts';
import { createKafka, createServedTopics, parseBrokerList } from '@pipeline/messaging';

export const KAFKA_BROKERS = parseBrokerList(process.env.KAFKA_BROKERS ?? '127.0.0.1:9092');

/** A name no other test (or test run) uses: tests never share topics or group ids. */
export const uniqueName = (prefix: string): string => `test.${prefix}.${randomBytes(4).toString('hex')}`;

export function testKafka(clientId = uniqueName('client')): Kafka {
  return createKafka({ brokers: KAFKA_BROKERS, clientId });
}

/** Creates topics (auto-creation is off on our brokers) and returns a cleanup that deletes them. */
export async function createTestTopics(
  kafka: Kafka,
  topics: readonly { name: string; partitions?: number; configEntries?: { name: string; value: string }[] }[],
): Promise<{ admin: Admin; deleteTopics: () => Promise<void> }> {
  const admin = kafka.admin();
  await admin.connect();
  await createServedTopics(
    admin,
    topics.map((topic) => ({
      topic: topic.name,
      numPartitions: topic.partitions ?? 1,
      replicationFactor: 1,
      configEntries: topic.configEntries ?? [],
    })),
  );
  return {
    admin,
    deleteTopics: async () => {
      await admin.deleteTopics({ topics: topics.map((topic) => topic.name) });
      await admin.disconnect();
    },
  };
}

/**
 * The records of a topic, one per event: the first record of each CloudEvents id (records without
 * one are all kept). A service's relay writes at least once: a send it repeats after the broker
 * timed out but had written the batch leaves a copy with the same id, which consumers' inboxes
 * drop. A second event with the same effect (a second payment, a second outcome) has its own id,
 * so it still shows.
 */
export async function readEvents(
  kafka: Kafka,
  topic: string,
): Promise<(KafkaMessage & { partition: number })[]> {
  const seen = new Set<string>();
  return (await readTopic(kafka, topic)).filter((record) => {
    const id = headerValue(record.headers, EventHeaders.id);
    if (id === undefined) return true;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** Reads every record of a topic from the beginning up to its current end offsets. */
export async function readTopic(
  kafka: Kafka,
  topic: string,
  timeoutMs = 20_000,
): Promise<(KafkaMessage & { partition: number })[]> {
  const admin = kafka.admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  const remaining = new Map(
    ends.filter((end) => Number(end.high) > Number(end.low)).map((end) => [end.partition, Number(end.high)]),
  );
  const records: (KafkaMessage & { partition: number })[] = [];
  if (remaining.size === 0) return records;
  const consumer = kafka.consumer({ groupId: uniqueName('reader') });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`reading ${topic} timed out`)), timeoutMs);
      void consumer.run({
        eachMessage: async ({ partition, message }) => {
          records.push({ ...message, partition });
          if (Number(message.offset) + 1 >= (remaining.get(partition) ?? 0)) remaining.delete(partition);
          if (remaining.size === 0) {
            clearTimeout(timer);
            resolve();
          }
          return Promise.resolve();
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
  return records;
}

/**
 * kcat's producer arguments for `partition` of `topic`, as a test that writes several records
 * needs them: idempotent, so a send librdkafka retries (a topic just created may not have its
 * leader yet) can neither reorder nor repeat them (its defaults may do both), and lingering 100 ms,
 * far longer than kcat takes to read a few lines from its input, so they go out in one batch.
 */
export const kcatProducerArgs = (topic: string, partition: number): string[] => [
  ...['-b', KAFKA_BROKERS.join(','), '-P', '-t', topic, '-p', String(partition)],
  ...['-X', 'enable.idempotence=true', '-X', 'linger.ms=100'],
];
