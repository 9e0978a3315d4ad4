import { Topics, decodeEnvelope } from '@pipeline/contracts';
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage, Logger } from 'kafkajs';
import type { FeedEvent, OrderStore } from './order-store';

/** The saga topics the live flow follows, by their contract names. */
export const FLOW_TOPICS = [Topics.orders, Topics.payments, Topics.inventory] as const;

export interface OrderFeedOptions {
  readonly prefix: string;
  readonly group: string;
  /** On start, the feed reads back this far: "the orders of the last minutes". */
  readonly historyMs: number;
}

/**
 * The console's own consumer group on the saga topics: a reader like any other, which the
 * producers do not know about (Kafka is a log). Every event goes to the in-memory store that the
 * live list and the journeys read. It keeps no state across restarts, so each start seeks back
 * `historyMs` by timestamp instead of resuming from its committed offsets.
 */
export class OrderFeed {
  private consumer: Consumer | undefined;

  constructor(
    private readonly kafka: Kafka,
    private readonly store: OrderStore,
    private readonly options: OrderFeedOptions,
    private readonly log: Pick<Logger, 'warn' | 'info'>,
  ) {}

  /**
   * Starts consuming once the saga topics exist (the services provision them at start-up, so the
   * console may come first): checks every `retryMs` until then, logging what it waits for.
   */
  async startWhenReady(retryMs = 2_000): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const missing = await this.missingTopics();
      if (missing.length === 0) return this.start();
      this.log.warn(`live flow waits for topics: ${missing.join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  }

  private stopped = false;

  private async missingTopics(): Promise<string[]> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const existing = new Set(await admin.listTopics());
      return FLOW_TOPICS.map((topic) => this.options.prefix + topic).filter((topic) => !existing.has(topic));
    } finally {
      await admin.disconnect();
    }
  }

  private async start(): Promise<void> {
    const { prefix, group, historyMs } = this.options;
    const topics = FLOW_TOPICS.map((topic) => prefix + topic);
    // A live view for people: the broker holds each fetch until 64 KiB have arrived or 500 ms have
    // passed, so under load the console takes its events in a few large fetches a second instead
    // of one small fetch after another, and when idle it asks twice a second.
    const consumer = this.kafka.consumer({
      groupId: group,
      minBytes: 64 * 1024,
      maxWaitTimeInMs: 500,
      allowAutoTopicCreation: false,
    });
    this.consumer = consumer;
    const starts = await this.startOffsets(topics, Date.now() - historyMs);
    await consumer.connect();
    await consumer.subscribe({ topics, fromBeginning: false });
    await consumer.run({ eachBatchAutoResolve: true, eachBatch: (payload) => this.apply(payload) });
    for (const start of starts) consumer.seek(start);
    this.log.info(
      `live flow follows ${topics.join(', ')} from ${new Date(Date.now() - historyMs).toISOString()}`,
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.consumer?.disconnect();
  }

  private async startOffsets(topics: readonly string[], since: number) {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const offsets = await Promise.all(
        topics.map(async (topic) =>
          (await admin.fetchTopicOffsetsByTimestamp(topic, since)).map(({ partition, offset }) => ({
            topic,
            partition,
            offset,
          })),
        ),
      );
      return offsets.flat();
    } finally {
      await admin.disconnect();
    }
  }

  private async apply({ batch, heartbeat }: Pick<EachBatchPayload, 'batch' | 'heartbeat'>): Promise<void> {
    const topic = batch.topic.slice(this.options.prefix.length);
    for (const message of batch.messages) {
      const event = feedEventOf(topic, batch.partition, message);
      if (event !== undefined) this.store.add(event);
    }
    await heartbeat();
  }
}

/**
 * A saga record as the live flow shows it, or `undefined` for one that is not an event of ours.
 * Any client may write to the saga topics: whatever the headers (null or empty values, repeated
 * names, bytes that are not UTF-8, a thousand of them), this never throws, since a throw here
 * would fail the whole fetch and the feed would stop at that record.
 */
export function feedEventOf(topic: string, partition: number, message: KafkaMessage): FeedEvent | undefined {
  const decoded = decodeEnvelope(message.value, message.headers);
  if (!decoded.ok) return undefined; // Poison is the services' business (their dead-letter topics).
  const { metadata, payload } = decoded;
  return {
    topic,
    partition,
    offset: message.offset,
    id: metadata.id,
    type: metadata.type,
    source: metadata.source,
    time: metadata.time,
    correlationId: metadata.correlationId,
    causationId: metadata.causationId,
    traceparent: metadata.traceparent,
    payload,
  };
}
