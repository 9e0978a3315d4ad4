/**
 * Proves that kafkajs 2.2.4 works against the real Apache Kafka 4.x broker (KRaft) that
 * `infra/bin/kafka.sh start` runs: admin, idempotent producer with acks=-1, a consumer group
 * with manual offset commits, and a second member of the group that resumes from the commits.
 *
 * Needs a broker at KAFKA_BROKERS (default 127.0.0.1:9092), e.g. `bash infra/bin/kafka.sh start`.
 * Against the three-node cluster: KAFKA_BROKERS=127.0.0.1:19092,127.0.0.1:19093,127.0.0.1:19094.
 */
import { randomUUID } from 'node:crypto';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { waitUntilServed } from '@pipeline/messaging';
import {
  Kafka,
  logLevel,
  type Admin,
  type Consumer,
  type EachMessagePayload,
  type Message,
  type Producer,
} from 'kafkajs';

const BROKERS = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092')
  .split(',')
  .map((broker) => broker.trim())
  .filter((broker) => broker.length > 0);

const RUN = randomUUID().slice(0, 8);
const TOPIC = `infra.kafkajs-probe.${RUN}`;
const GROUP_ID = `infra-kafkajs-probe-${RUN}`;
const PARTITIONS = 3;
const KEYS = ['order-1', 'order-2', 'order-3', 'order-4', 'order-5', 'order-6', 'order-7'];
const PER_KEY = 25;
const TOTAL = KEYS.length * PER_KEY;

interface Received {
  readonly key: string;
  readonly seq: number;
  readonly partition: number;
  readonly offset: string;
}

/**
 * Polls `condition` every few milliseconds until it holds (running `refresh` before each check,
 * if given); fails after `timeoutMs`.
 */
async function waitFor(
  condition: () => boolean,
  timeoutMs: number,
  what: string,
  refresh?: () => Promise<void>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await refresh?.();
    if (condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise<void>((resolve) => setTimeout(resolve, 25));
  }
}

function decode(payload: EachMessagePayload): Received {
  const key = payload.message.key?.toString('utf8');
  const value = payload.message.value?.toString('utf8');
  if (key === undefined || value === undefined) throw new Error('message without key or value');
  const parsed = JSON.parse(value) as { key: string; seq: number };
  expect(parsed.key).toBe(key);
  return { key, seq: parsed.seq, partition: payload.partition, offset: payload.message.offset };
}

/**
 * Fails the waiting test immediately instead of at its timeout if a consumer crashes for good.
 * Crashes that kafkajs restarts from by itself (e.g. the group coordinator not being available
 * yet while a fresh cluster creates __consumer_offsets) are only recorded.
 */
function watchCrashes(consumer: Consumer, fatal: Error[], restarted: Error[]): void {
  consumer.on(consumer.events.CRASH, (event) => {
    (event.payload.restart ? restarted : fatal).push(event.payload.error);
  });
}

describe('kafkajs 2.2.4 against the real Kafka broker', () => {
  const kafka = new Kafka({
    clientId: `kafkajs-probe-${RUN}`,
    brokers: BROKERS,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 5_000,
    retry: { retries: 8, initialRetryTime: 100 },
  });
  let admin: Admin;
  let producer: Producer | undefined;
  let topicsSeen: string[] = [TOPIC];
  const consumers: Consumer[] = [];
  const crashes: Error[] = [];
  const restartedAfter: Error[] = [];

  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
  }, 60_000);

  afterAll(async () => {
    for (const consumer of consumers) await consumer.disconnect().catch(() => undefined);
    await producer?.disconnect().catch(() => undefined);
    if (admin !== undefined) {
      await admin.deleteGroups([GROUP_ID]).catch(() => undefined);
      await admin.deleteTopics({ topics: [TOPIC], timeout: 15_000 });
      // Any broker may answer listTopics; wait until the deletion has reached its metadata.
      await waitFor(
        () => !topicsSeen.includes(TOPIC),
        15_000,
        `deletion of ${TOPIC}`,
        async () => {
          topicsSeen = await admin.listTopics();
        },
      );
      await admin.disconnect();
    }
    if (restartedAfter.length > 0) {
      console.info(`kafkajs restarted a consumer after: ${restartedAfter.map((e) => e.message).join('; ')}`);
    }
  }, 60_000);

  it('creates a topic with 3 partitions and describes it', async () => {
    const cluster = await admin.describeCluster();
    expect(cluster.brokers.length).toBeGreaterThanOrEqual(1);
    expect(cluster.clusterId).toMatch(/^[\w-]{22}$/);

    const created = await admin.createTopics({
      topics: [{ topic: TOPIC, numPartitions: PARTITIONS }], // replication factor: broker default
      // Not waitForLeaders: kafkajs gives up on UNKNOWN_TOPIC_OR_PARTITION while the broker is busy.
      waitForLeaders: false,
      timeout: 15_000,
    });
    expect(created).toBe(true);
    await waitUntilServed(admin, [TOPIC]);

    const { topics } = await admin.fetchTopicMetadata({ topics: [TOPIC] });
    expect(topics).toHaveLength(1);
    const [metadata] = topics;
    expect(metadata?.name).toBe(TOPIC);
    expect(metadata?.partitions.map((p) => p.partitionId).sort()).toEqual([0, 1, 2]);
    for (const partition of metadata?.partitions ?? []) {
      expect(partition.leader).toBeGreaterThanOrEqual(0);
      expect(partition.replicas.length).toBeGreaterThanOrEqual(1);
      expect(partition.isr).toEqual(expect.arrayContaining([partition.leader]));
    }
    expect(await admin.listTopics()).toContain(TOPIC);
  });

  it('produces keyed messages with the idempotent producer and acks=-1', async () => {
    producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    await producer.connect();
    // Interleave the keys, in a few batches, so that per-key order is a real property to check.
    for (let seq = 0; seq < PER_KEY; seq += 5) {
      const messages: Message[] = [];
      for (let s = seq; s < Math.min(seq + 5, PER_KEY); s += 1) {
        for (const key of KEYS) messages.push({ key, value: JSON.stringify({ key, seq: s }) });
      }
      const metadata = await producer.send({ topic: TOPIC, acks: -1, messages });
      expect(metadata.every((m) => m.errorCode === 0)).toBe(true);
    }
    const offsets = await admin.fetchTopicOffsets(TOPIC);
    const total = offsets.reduce((sum, p) => sum + (Number(p.high) - Number(p.low)), 0);
    expect(total).toBe(TOTAL);
  });

  it('consumes everything in a group, in per-key order, and commits offsets explicitly', async () => {
    const consumer = kafka.consumer({
      groupId: GROUP_ID,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: 250,
    });
    consumers.push(consumer);
    watchCrashes(consumer, crashes, restartedAfter);
    const received: Received[] = [];
    await consumer.connect();
    await consumer.subscribe({ topics: [TOPIC], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: (payload) => {
        received.push(decode(payload));
        return Promise.resolve();
      },
    });
    await waitFor(() => received.length >= TOTAL || crashes.length > 0, 45_000, `${TOTAL} messages`);
    expect(crashes).toEqual([]);
    expect(received).toHaveLength(TOTAL);

    // Every message arrived exactly once.
    const ids = new Set(received.map((r) => `${r.key}#${r.seq}`));
    expect(ids.size).toBe(TOTAL);

    // One key, one partition; within a key the sequence numbers arrive in order.
    for (const key of KEYS) {
      const ofKey = received.filter((r) => r.key === key);
      expect(new Set(ofKey.map((r) => r.partition)).size).toBe(1);
      expect(ofKey.map((r) => r.seq)).toEqual([...Array(PER_KEY).keys()]);
    }

    // Commit "next offset to read" = last seen + 1, per partition.
    const next = new Map<number, bigint>();
    for (const r of received) {
      const candidate = BigInt(r.offset) + 1n;
      if ((next.get(r.partition) ?? -1n) < candidate) next.set(r.partition, candidate);
    }
    await consumer.commitOffsets(
      [...next].map(([partition, offset]) => ({ topic: TOPIC, partition, offset: offset.toString() })),
    );

    const committed = await admin.fetchOffsets({ groupId: GROUP_ID, topics: [TOPIC] });
    const ends = await admin.fetchTopicOffsets(TOPIC);
    const committedByPartition = Object.fromEntries(
      (committed[0]?.partitions ?? []).map((p) => [p.partition, p.offset]),
    );
    const endByPartition = Object.fromEntries(ends.map((p) => [p.partition, p.high]));
    expect(Object.keys(endByPartition)).toHaveLength(PARTITIONS);
    expect(committedByPartition).toEqual(endByPartition);

    await consumer.disconnect();
  });

  it('a second member of the group resumes from the commits and receives nothing already committed', async () => {
    const consumer = kafka.consumer({
      groupId: GROUP_ID,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: 250,
    });
    consumers.push(consumer);
    watchCrashes(consumer, crashes, restartedAfter);
    const received: Received[] = [];
    let assigned: number[] = [];
    consumer.on(consumer.events.GROUP_JOIN, (event) => {
      assigned = event.payload.memberAssignment[TOPIC] ?? [];
    });
    await consumer.connect();
    // fromBeginning only applies where the group has no committed offset.
    await consumer.subscribe({ topics: [TOPIC], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: (payload) => {
        received.push(decode(payload));
        return Promise.resolve();
      },
    });
    await waitFor(() => assigned.length === PARTITIONS || crashes.length > 0, 30_000, 'group join');

    // One fresh message per partition. Fetches are ordered per partition, so had the consumer
    // ignored the commits, older messages would arrive before these.
    if (producer === undefined) throw new Error('producer missing');
    await producer.send({
      topic: TOPIC,
      acks: -1,
      messages: [0, 1, 2].map((partition) => ({
        partition,
        key: `after-commit-${partition}`,
        value: JSON.stringify({ key: `after-commit-${partition}`, seq: 0 }),
      })),
    });
    await waitFor(() => received.length >= PARTITIONS || crashes.length > 0, 30_000, 'post-commit messages');
    expect(crashes).toEqual([]);
    expect(received.map((r) => r.key).sort()).toEqual(['after-commit-0', 'after-commit-1', 'after-commit-2']);
    await consumer.disconnect();
  });
});
