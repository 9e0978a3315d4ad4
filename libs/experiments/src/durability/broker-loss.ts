import type { Kafka, Producer } from 'kafkajs';
import type { ExperimentContext } from '../experiment';
import type { LabResources } from '../support/lab-resources';
import { waitFor } from '../support/abortable';
import { clusterNode, liveBrokers } from './cluster';

export interface BrokerLossResult {
  readonly topic: string;
  readonly killedNode: number;
  readonly brokersWhileDown: readonly number[];
  readonly acknowledged: number;
  /** Sends that failed: their records are not acknowledged, so they may or may not be in the log. */
  readonly unacknowledged: number;
  readonly acknowledgedWhileDown: number;
  readonly read: number;
  /** Acknowledged and not read back: must be none. */
  readonly missing: readonly string[];
  /** `send` resolved for them but no broker acknowledged their partition (a kafkajs gap); how many of them are in the log. */
  readonly resolvedUnanswered: number;
  readonly resolvedUnansweredInLog: number;
  readonly duplicates: number;
  readonly isrRestored: boolean;
  readonly log: readonly string[];
}

const BATCH = 20;
const PARTITIONS = 3;

/**
 * acks=all on a replication-factor-3, min.insync.replicas=2 topic while the leader of partition 0
 * is killed (kill -9) and then started again: every record the broker acknowledged is on at least
 * two replicas, so the loss of one loses none of them. Read back and compared record by record.
 */
export async function runBrokerLoss(
  context: ExperimentContext,
  cluster: Kafka,
  lab: LabResources,
  kafkaSh: string,
): Promise<BrokerLossResult> {
  const { signal } = context;
  const log: string[] = [];
  const [topic] = await lab.createTopics([
    {
      name: 'durable',
      partitions: PARTITIONS,
      replicationFactor: 3,
      configEntries: [{ name: 'min.insync.replicas', value: '2' }],
    },
  ]);
  if (topic === undefined) throw new Error('topic not created');
  const admin = await lab.connectedAdmin();
  const [metadata] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;
  const leader = metadata?.partitions.find((p) => p.partitionId === 0)?.leader ?? 1;
  context.step(
    `Created ${topic} on the cluster: 3 partitions, replication factor 3, min.insync.replicas 2; node ${leader} leads partition 0.`,
  );

  const producer = cluster.producer({
    allowAutoTopicCreation: false,
    retry: { retries: 12, initialRetryTime: 200, maxRetryTime: 2_000 },
  });
  await producer.connect();
  lab.onCleanup(() => producer.disconnect());
  const sender = new AckedSender(producer, topic);
  await sender.batches(10, signal);
  context.step(`${sender.acked.size} records acknowledged (acks=all) by the three brokers.`);

  let killed = false;
  // The kill lands while batches are in flight: the sender keeps going until told to stop.
  sender.start(signal);
  try {
    const ackedAtKill = sender.acked.size;
    log.push(await clusterNode(kafkaSh, 'cluster-kill', leader));
    killed = true;
    context.step(`Killed node ${leader} (kill -9) while batches were being sent.`);
    const brokersWhileDown = await waitFor(
      `node ${leader} to be gone from the cluster's metadata`,
      async () => {
        const live = await liveBrokers(cluster);
        return live !== undefined && !live.includes(leader) ? live : undefined;
      },
      { signal, timeoutMs: 30_000, intervalMs: 500 },
    );
    context.step(`The cluster fenced node ${leader}; brokers still up: ${brokersWhileDown.join(', ')}.`);
    const atFenced = sender.acked.size;
    await waitFor(
      '200 records acknowledged by the remaining brokers',
      () => (sender.acked.size >= atFenced + 200 ? true : undefined),
      { signal, timeoutMs: 30_000 },
    );
    await sender.stop();
    const acknowledgedWhileDown = sender.acked.size - ackedAtKill;
    context.step(
      `${acknowledgedWhileDown} records acknowledged since the kill, by the two remaining brokers ` +
        `(${sender.failed} in failed sends; ${sender.resolvedUnanswered.size} for which send() resolved ` +
        `without an acknowledgement of their partition).`,
    );

    log.push(await clusterNode(kafkaSh, 'cluster-start-node', leader));
    killed = false;
    const isrRestored = await waitFor(
      'every partition back to 3 in-sync replicas',
      async () => {
        const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
        return topics[0]?.partitions.every((p) => p.isr.length === 3) ? true : undefined;
      },
      { signal, timeoutMs: 60_000, intervalMs: 500 },
    ).catch(() => false);
    context.step(
      `Started node ${leader} again; ${isrRestored ? 'every partition is back to 3 in-sync replicas' : 'the ISR is not full yet'}.`,
    );
    await sender.batches(5, signal);

    const values = await readAll(cluster, lab, topic, signal);
    const readSet = new Set(values);
    const missing = [...sender.acked].filter((value) => !readSet.has(value));
    return {
      topic,
      killedNode: leader,
      brokersWhileDown,
      acknowledged: sender.acked.size,
      unacknowledged: sender.failed,
      acknowledgedWhileDown,
      read: values.length,
      missing,
      resolvedUnanswered: sender.resolvedUnanswered.size,
      resolvedUnansweredInLog: [...sender.resolvedUnanswered].filter((value) => readSet.has(value)).length,
      duplicates: values.length - readSet.size,
      isrRestored,
      log,
    };
  } finally {
    await sender.stop();
    // Never leave the cluster a node short, whatever happened (a stop included).
    if (killed)
      log.push(await clusterNode(kafkaSh, 'cluster-start-node', leader).catch((e: unknown) => String(e)));
  }
}

/** Sends numbered records in batches of 20 and remembers which ones the broker acknowledged. */
class AckedSender {
  readonly acked = new Set<string>();
  /** `send` resolved, but no broker answered for these records' partition. */
  readonly resolvedUnanswered = new Set<string>();
  failed = 0;
  private next = 0;
  private running: Promise<void> | undefined;
  private stopping = false;

  constructor(
    private readonly producer: Producer,
    private readonly topic: string,
  ) {}

  async batches(count: number, signal: AbortSignal): Promise<void> {
    for (let i = 0; i < count; i++) {
      signal.throwIfAborted();
      await this.batch();
    }
  }

  /** Sends batch after batch in the background until `stop()`. */
  start(signal: AbortSignal): void {
    this.stopping = false;
    this.running = (async () => {
      while (!this.stopping && !signal.aborted) await this.batch();
    })();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
    this.running = undefined;
  }

  /**
   * A record counts as acknowledged when the broker's answer covers its partition, not merely when
   * `send` resolves: unpatched, kafkajs 2.2.4 keyed a send's answers by broker and, on a retry after
   * a leader died, dropped the dead leader's partitions when their new leader had already answered
   * for others (producer/sendMessages.js). patches/kafkajs+2.2.4.patch fixes that; this check would
   * show it coming back.
   */
  private async batch(): Promise<void> {
    const messages = Array.from({ length: BATCH }, () => {
      const n = this.next++;
      return { key: `record-${n}`, value: `record-${n}`, partition: n % PARTITIONS };
    });
    try {
      const answers = await this.producer.send({ topic: this.topic, acks: -1, messages });
      const answered = new Set(answers.filter((a) => a.errorCode === 0).map((a) => a.partition));
      for (const { value, partition } of messages)
        (answered.has(partition) ? this.acked : this.resolvedUnanswered).add(value);
    } catch {
      this.failed += messages.length;
    }
  }
}

/** Every record of the topic, from the beginning to the end offsets taken now. */
async function readAll(
  kafka: Kafka,
  lab: LabResources,
  topic: string,
  signal: AbortSignal,
): Promise<string[]> {
  const admin = await lab.connectedAdmin();
  const ends = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, BigInt(p.high)]));
  const positions = new Map<number, bigint>();
  const values: string[] = [];
  const consumer = kafka.consumer({ groupId: lab.name('reader'), maxWaitTimeInMs: 200 });
  lab.onCleanup(() => consumer.disconnect());
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: ({ partition, message }) => {
      values.push(message.value?.toString() ?? '');
      positions.set(partition, BigInt(message.offset) + 1n);
      return Promise.resolve();
    },
  });
  await waitFor(
    'every record read back',
    () => ([...ends].every(([p, end]) => end === 0n || (positions.get(p) ?? 0n) >= end) ? true : undefined),
    { signal, timeoutMs: 60_000 },
  );
  await consumer.disconnect();
  return values;
}
