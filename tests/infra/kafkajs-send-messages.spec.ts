/**
 * Guards the producer part of patches/kafkajs+2.2.4.patch. kafkajs 2.2.4's sendMessages kept one
 * answer per broker across retries: when a partition's leader died and its partitions moved to a
 * broker that had already answered for its own, the retry sent nothing to it, and `send()`
 * resolved without the moved partitions (kafkajs #1303; seen by the durability experiment on the
 * three-node cluster: records whose send had resolved were not in the log). The outbox relay
 * deletes the rows of a resolved `sendBatch`, so that was a lost event. The patched sendMessages
 * keeps acknowledgements per partition and retries every partition not yet acknowledged.
 *
 * Drives kafkajs's internal sendMessages with a fake cluster of two brokers: no broker needed.
 */
import { createRequire } from 'node:module';
import { KafkaJSConnectionError } from 'kafkajs';
import { describe, expect, it } from 'vitest';

interface ProduceRequest {
  readonly topicData: readonly {
    readonly topic: string;
    readonly partitions: readonly { readonly partition: number; readonly messages: readonly unknown[] }[];
  }[];
}
interface Acknowledged {
  readonly topicName: string;
  readonly partition: number;
  readonly baseOffset: string;
}
type SendMessages = (
  options: Record<string, unknown>,
) => (request: {
  acks: number;
  timeout?: number;
  topicMessages: readonly { topic: string; messages: readonly { key: string; value: string }[] }[];
}) => Promise<Acknowledged[]>;

const require = createRequire(__filename);
// Not part of kafkajs's public API: the patch changes exactly this module.
const createSendMessages = require('kafkajs/src/producer/sendMessages') as SendMessages;
const createRetry = require('kafkajs/src/retry') as (options: Record<string, number>) => unknown;

const TOPIC = 'orders';
const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/**
 * A broker that records what it was asked to write, fails its first `failures` requests, and
 * answers the others after `answerAfter` (a promise the test settles, default at once).
 */
function fakeBroker(
  nodeId: number,
  failures = 0,
  answerAfter: () => Promise<void> = () => Promise.resolve(),
) {
  const requests: ProduceRequest[] = [];
  let failuresLeft = failures;
  return {
    nodeId,
    requests,
    produce: async (request: ProduceRequest) => {
      requests.push(request);
      if (failuresLeft-- > 0) throw new KafkaJSConnectionError('Connection error: ECONNREFUSED');
      await answerAfter();
      return {
        topics: request.topicData.map(({ topic, partitions }) => ({
          topicName: topic,
          partitions: partitions.map(({ partition }) => ({ partition, errorCode: 0, baseOffset: '0' })),
        })),
      };
    },
  };
}

/** Partition 0 led by broker 1 and partition 1 by broker 2; a metadata refresh moves 0 to 2. */
function twoBrokerCluster(broker1: ReturnType<typeof fakeBroker>, broker2: ReturnType<typeof fakeBroker>) {
  let leaders: Record<number, number> = { 0: 1, 1: 2 };
  const brokers = new Map([
    [1, broker1],
    [2, broker2],
  ]);
  return {
    targetTopics: new Set([TOPIC]),
    refreshMetadataIfNecessary: async () => {},
    refreshMetadata: () => {
      leaders = { 0: 2, 1: 2 };
      return Promise.resolve();
    },
    addMultipleTargetTopics: async () => {},
    isConnected: () => true,
    connect: async () => {},
    removeBroker: () => {},
    findTopicPartitionMetadata: () =>
      Object.entries(leaders).map(([partitionId, leader]) => ({ partitionId: Number(partitionId), leader })),
    findLeaderForPartitions: (_topic: string, partitions: readonly string[]) => {
      const perLeader: Record<string, number[]> = {};
      for (const partition of partitions)
        (perLeader[String(leaders[Number(partition)])] ??= []).push(Number(partition));
      return perLeader;
    },
    findBroker: ({ nodeId }: { nodeId: string }) => Promise.resolve(brokers.get(Number(nodeId))!),
  };
}

const plainProducer = {
  isTransactional: () => false,
  acquireBrokerLock: async () => {},
  releaseBrokerLock: async () => {},
  getSequence: () => 0,
  updateSequence: () => {},
  getProducerId: () => -1,
  getProducerEpoch: () => 0,
  getTransactionalId: () => undefined,
};

/** Each record names its partition in its key. */
const byKey = ({ message }: { message: { key: string } }) => Number(message.key);

/** As the default partitioner does for keyless records: the next partition on every call. */
function roundRobin() {
  let next = 0;
  return () => next++ % 2;
}

function sendTo(cluster: ReturnType<typeof twoBrokerCluster>, partitioner: (input: never) => number = byKey) {
  return createSendMessages({
    logger: silent,
    cluster,
    partitioner,
    eosManager: plainProducer,
    retrier: createRetry({ initialRetryTime: 1, maxRetryTime: 5, retries: 3 }),
  });
}

/** acks=all, one record for each of the two partitions (the key names the partition). */
const ONE_RECORD_PER_PARTITION = {
  acks: -1,
  topicMessages: [
    {
      topic: TOPIC,
      messages: [
        { key: '0', value: 'a' },
        { key: '1', value: 'b' },
      ],
    },
  ],
};

const partitionsOf = (request: ProduceRequest | undefined): number[] =>
  (request?.topicData ?? []).flatMap(({ partitions }) => partitions.map(({ partition }) => partition));

describe('kafkajs producer (patched): a leader lost during a send', () => {
  it('sends the dead leader’s partition again to its new leader, even one that already answered for its own', async () => {
    const broker1 = fakeBroker(1, Number.POSITIVE_INFINITY); // killed: every request fails
    const broker2 = fakeBroker(2);
    const send = sendTo(twoBrokerCluster(broker1, broker2));

    const acknowledged = await send(ONE_RECORD_PER_PARTITION);

    // Unpatched, broker 2 was asked once (partition 1 only) and `send` resolved without partition 0.
    expect(broker2.requests.map(partitionsOf)).toEqual([[1], [0]]);
    expect(acknowledged.map((entry) => entry.partition).sort()).toEqual([0, 1]);
  });

  it('does not send a partition again once it was acknowledged', async () => {
    const broker1 = fakeBroker(1, 1); // fails once, then its partition has moved to broker 2
    const broker2 = fakeBroker(2);
    const send = sendTo(twoBrokerCluster(broker1, broker2));

    await send(ONE_RECORD_PER_PARTITION);

    expect(broker1.requests.map(partitionsOf)).toEqual([[0]]);
    const sentToBroker2 = broker2.requests.flatMap(partitionsOf);
    expect(sentToBroker2.filter((partition) => partition === 1)).toHaveLength(1);
    expect(sentToBroker2).toContain(0);
  });

  it('keeps each keyless record on the partition it was first given: none dropped, none sent twice', async () => {
    const broker1 = fakeBroker(1, 1);
    const broker2 = fakeBroker(2);
    const send = sendTo(twoBrokerCluster(broker1, broker2), roundRobin());

    await send({
      acks: -1,
      topicMessages: [{ topic: TOPIC, messages: ['a', 'b', 'c'].map((value) => ({ key: '', value })) }],
    });

    // a and c went to partition 0 (broker 1, failed), b to partition 1 (acknowledged). Choosing
    // again on the retry put a and c on the acknowledged partition 1 (dropped) and b on 0 (twice).
    const valuesSentTo = (broker: ReturnType<typeof fakeBroker>, partition: number) =>
      broker.requests.flatMap((request) =>
        request.topicData.flatMap((topic) =>
          topic.partitions
            .filter((entry) => entry.partition === partition)
            .flatMap((entry) => entry.messages.map((message) => (message as { value: string }).value)),
        ),
      );
    expect(valuesSentTo(broker2, 1)).toEqual(['b']);
    expect(valuesSentTo(broker2, 0)).toEqual(['a', 'c']);
  });

  it('records every answer before it retries: a slow broker’s partition is not sent again', async () => {
    let answer!: () => void;
    let asked!: () => void;
    const broker2Asked = new Promise<void>((resolve) => (asked = resolve));
    const slow = new Promise<void>((resolve) => (answer = resolve));
    const broker1 = fakeBroker(1, 1); // fails at once
    const broker2 = fakeBroker(2, 0, () => {
      asked();
      return slow;
    });
    const send = sendTo(twoBrokerCluster(broker1, broker2));

    const sending = send(ONE_RECORD_PER_PARTITION);
    await broker2Asked;
    // Ten times the longest retry delay: unpatched, the retry re-sent partition 1 meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(broker2.requests.map(partitionsOf)).toEqual([[1]]);
    answer();
    await sending;
    expect(broker2.requests.map(partitionsOf)).toEqual([[1], [0]]);
  });

  it('with acks=0 sends each partition once and resolves with no answers', async () => {
    const broker1 = fakeBroker(1);
    const broker2 = fakeBroker(2);
    const send = sendTo(twoBrokerCluster(broker1, broker2));

    await expect(send({ ...ONE_RECORD_PER_PARTITION, acks: 0 })).resolves.toEqual([]);
    expect([...broker1.requests, ...broker2.requests].flatMap(partitionsOf).sort()).toEqual([0, 1]);
  });
});
