import type { Kafka, KafkaMessage, Producer } from 'kafkajs';
import type { TestDatabase } from '../support/db';
import { produceEvent, type ProducedRecord, testProducer } from '../support/events';
import { readEvents, testKafka, uniqueName } from '../support/kafka';
import { eventually, type RunningProcess } from '../support/processes';
import { deletePrefixedTopics, httpJson, startService, type HttpAnswer } from '../support/service-harness';
import { headerValue, readHeaders, type RecordHeaders } from '@pipeline/contracts';

export interface ReadRecord {
  readonly key: string | undefined;
  readonly partition: number;
  readonly headers: RecordHeaders;
  readonly payload: unknown;
  readonly message: KafkaMessage;
}

export interface SentEvent {
  readonly topic: 'payments' | 'inventory';
  readonly type: string;
  readonly orderId: string;
  readonly payload: unknown;
  /** Reuse an id to redeliver the same event. */
  readonly id?: string;
  /** The event time (`ce_time`); defaults to now. */
  readonly time?: Date;
}

/**
 * order-service as a child process from dist/, against its own test database and its own
 * prefixed topics and consumer group, so test files run in parallel with each other and the stack.
 */
export class OrderServiceUnderTest {
  private constructor(
    readonly prefix: string,
    readonly baseUrl: string,
    readonly kafka: Kafka,
    readonly database: TestDatabase,
    readonly service: RunningProcess,
    private readonly producer: Producer,
    private readonly cleanUp: () => Promise<void>,
  ) {}

  /** `env` adds to or overrides the service's environment, e.g. `{ ORDER_GROUP_COMMIT_MAX_ORDERS: '10' }`. */
  static async start(label: string, env: Record<string, string> = {}): Promise<OrderServiceUnderTest> {
    const prefix = `${uniqueName(label)}.`;
    const kafka = testKafka();
    const started = await startService('order', {
      prefix,
      label,
      env: { KAFKA_TOPIC_PARTITIONS: '2', ...env },
    });
    const producer = testProducer(kafka);
    await producer.connect();
    const cleanUp = async () => {
      await producer.disconnect();
      await started.stop();
      // The service provisioned the whole topic catalogue under the prefix: remove it.
      await deletePrefixedTopics(kafka, prefix);
    };
    return new OrderServiceUnderTest(
      prefix,
      started.baseUrl,
      kafka,
      started.database,
      started.process,
      producer,
      cleanUp,
    );
  }

  stop(): Promise<void> {
    return this.cleanUp();
  }

  request<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<HttpAnswer<T>> {
    return httpJson<T>(method, this.baseUrl + path, body, headers);
  }

  /** Produces a saga event to the prefixed topic with CloudEvents headers; returns its ce_id. */
  async send(event: SentEvent): Promise<string> {
    return (await this.produce(event)).id;
  }

  /** As `send`, returning where the record landed (its topic with the prefix). */
  produce(event: SentEvent): Promise<ProducedRecord> {
    return produceEvent(this.producer, {
      topic: this.prefix + event.topic,
      key: event.orderId,
      type: event.type,
      payload: event.payload,
      correlationId: event.orderId,
      ...(event.id === undefined ? {} : { id: event.id }),
      ...(event.time === undefined ? {} : { time: event.time }),
    });
  }

  /** Every event on the prefixed `topic` (contract name) with this key, one record per event id. */
  async records(topic: string, key: string): Promise<ReadRecord[]> {
    const records = await readEvents(this.kafka, this.prefix + topic);
    return records
      .filter((record) => record.key?.toString() === key)
      .map((record) => ({
        key: record.key?.toString(),
        partition: record.partition,
        headers: readHeaders(record.headers),
        payload: record.value === null ? null : (JSON.parse(record.value.toString()) as unknown),
        message: record,
      }));
  }

  /** Waits until the relay has published everything committed so far. */
  async outboxDrained(): Promise<void> {
    await eventually(
      () =>
        this.database.withClient(async (client) => {
          const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM outbox');
          return rows[0]?.n === '0' ? true : undefined;
        }),
      { timeoutMs: 20_000, what: 'the outbox drained' },
    );
  }

  async sql<Row extends Record<string, unknown>>(text: string, values: unknown[] = []): Promise<Row[]> {
    return this.database.withClient(async (client) => (await client.query<Row>(text, values)).rows);
  }
}

export const header = (record: ReadRecord, name: string): string | undefined =>
  headerValue(record.message.headers, name);
