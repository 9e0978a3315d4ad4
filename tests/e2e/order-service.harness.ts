import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Kafka, KafkaMessage, Producer } from 'kafkajs';
import { encodeHeaders, headerValue, metadataOf, readHeaders, type RecordHeaders } from '@pipeline/messaging';
import { createTestDatabase, type TestDatabase } from '../support/db';
import { KAFKA_BROKERS, readTopic, testKafka, uniqueName } from '../support/kafka';
import { eventually, freePort, REPO_ROOT, type RunningProcess, startNode } from '../support/processes';

export interface HttpAnswer<T = unknown> {
  readonly status: number;
  readonly body: T;
}

export interface ReadRecord {
  readonly key: string | undefined;
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

  static async start(label: string): Promise<OrderServiceUnderTest> {
    const prefix = `${uniqueName(label)}.`;
    const kafka = testKafka();
    const database = await createTestDatabase(label);
    execFileSync(
      process.execPath,
      ['scripts/db/migrate.mjs', 'deploy', '--service', 'order', '--url', database.url],
      {
        cwd: REPO_ROOT,
        stdio: 'pipe',
      },
    );
    const port = await freePort();
    const service = startNode(join(REPO_ROOT, 'dist/apps/order-service/src/main.js'), {
      PORT: String(port),
      DATABASE_URL: database.url,
      KAFKA_BROKERS: KAFKA_BROKERS.join(','),
      KAFKA_TOPIC_PREFIX: prefix,
      KAFKA_TOPIC_PARTITIONS: '2',
      KAFKA_CONSUMER_GROUP: uniqueName(`${label}.group`),
      CONSUMER_RETRY_INITIAL_BACKOFF_MS: '50',
      LOG_FORMAT: 'json',
    });
    const baseUrl = `http://127.0.0.1:${port}`;
    await eventually(
      async () => {
        const exited = await Promise.race([service.exited, Promise.resolve(undefined)]);
        if (exited !== undefined) throw new Error(`order-service exited with ${exited}: ${service.output()}`);
        return (await fetch(`${baseUrl}/health/ready`)).ok ? true : undefined;
      },
      { timeoutMs: 60_000, what: 'order-service ready' },
    );
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const admin = kafka.admin();
    await admin.connect();
    const cleanUp = async () => {
      await producer.disconnect();
      service.child.kill('SIGTERM');
      await service.exited;
      // The service provisioned the whole topic catalogue under the prefix: remove it.
      const mine = (await admin.listTopics()).filter((topic) => topic.startsWith(prefix));
      await admin.deleteTopics({ topics: mine });
      await admin.disconnect();
      await database.drop();
    };
    return new OrderServiceUnderTest(prefix, baseUrl, kafka, database, service, producer, cleanUp);
  }

  stop(): Promise<void> {
    return this.cleanUp();
  }

  async request<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<HttpAnswer<T>> {
    const response = await fetch(this.baseUrl + path, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as T };
  }

  /** Produces a saga event to the prefixed topic with CloudEvents headers; returns its ce_id. */
  async send(event: SentEvent): Promise<string> {
    const metadata = metadataOf(
      {
        topic: event.topic,
        key: event.orderId,
        type: event.type,
        payload: event.payload,
        correlationId: event.orderId,
        ...(event.id === undefined ? {} : { id: event.id }),
      },
      'test-producer',
    );
    await this.producer.send({
      topic: this.prefix + event.topic,
      acks: -1,
      messages: [
        { key: event.orderId, value: JSON.stringify(event.payload), headers: encodeHeaders(metadata) },
      ],
    });
    return metadata.id;
  }

  /** Every record on the prefixed `topic` (contract name) with this key. */
  async records(topic: string, key: string): Promise<ReadRecord[]> {
    const records = await readTopic(this.kafka, this.prefix + topic);
    return records
      .filter((record) => record.key?.toString() === key)
      .map((record) => ({
        key: record.key?.toString(),
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
