import { registerCompressionCodecs } from '@pipeline/kafka-codecs';
import { PipelineMetrics } from '@pipeline/observability';
import {
  Kafka,
  logLevel,
  type Admin,
  type AdminConfig,
  type Consumer,
  type ConsumerConfig,
  type ITopicConfig,
  type KafkaConfig,
  type Producer,
  type ProducerConfig,
  type RequestEvent,
} from 'kafkajs';
import { sleep } from '../retry/backoff';
import { nestLogCreator } from './kafka-logger';

export interface KafkaConnectionOptions {
  /** `host:port` pairs. */
  readonly brokers: readonly string[];
  readonly clientId: string;
}

/**
 * One place that decides how every service and tool talks to the brokers: every codec a producer
 * may have used (registerCompressionCodecs), the logger, timeouts and retries.
 */
export function createKafka(options: KafkaConnectionOptions, overrides: Partial<KafkaConfig> = {}): Kafka {
  registerCompressionCodecs();
  return new CountedKafka({
    clientId: options.clientId,
    brokers: [...options.brokers],
    logLevel: logLevel.WARN,
    logCreator: nestLogCreator,
    connectionTimeout: 3_000,
    requestTimeout: 30_000,
    retry: { initialRetryTime: 300, retries: 8 },
    ...overrides,
  });
}

/**
 * Every client it creates counts its requests by API in `pipeline_kafka_requests_total`, and the
 * bytes of their responses in `pipeline_kafka_response_bytes_total` (kafkajs reports the response's
 * size, not the request's): what a batch costs the broker is a number of requests and bytes,
 * whatever the machine's speed (BENCHMARKS.md).
 */
class CountedKafka extends Kafka {
  override consumer(config: ConsumerConfig): Consumer {
    const consumer = super.consumer(config);
    consumer.on(consumer.events.REQUEST, countRequest);
    return consumer;
  }

  override producer(config?: ProducerConfig): Producer {
    const producer = super.producer(config);
    producer.on(producer.events.REQUEST, countRequest);
    return producer;
  }

  override admin(config?: AdminConfig): Admin {
    const admin = super.admin(config);
    admin.on(admin.events.REQUEST, countRequest);
    return admin;
  }
}

const countRequest = ({ payload: { apiName, size } }: RequestEvent): void => {
  PipelineMetrics.kafkaRequests.inc({ api: apiName });
  PipelineMetrics.kafkaResponseBytes.inc({ api: apiName }, size);
};

export function parseBrokerList(value: string): string[] {
  return value
    .split(',')
    .map((broker) => broker.trim())
    .filter((broker) => broker.length > 0);
}

/**
 * Creates topics and waits until they are served. Not kafkajs's `waitForLeaders`: it gives up
 * with UNKNOWN_TOPIC_OR_PARTITION when the answering broker's metadata lags the creation, which a
 * busy broker does now and then.
 */
export async function createServedTopics(admin: Admin, topics: ITopicConfig[]): Promise<void> {
  await admin.createTopics({ waitForLeaders: false, topics });
  await waitUntilServed(
    admin,
    topics.map((topic) => topic.topic),
  );
}

/**
 * A topic that was just created can still be unknown to the broker that answers the next
 * metadata request ("This server does not host this topic-partition"); producers and consumers
 * started right after provisioning would fail. Wait until every partition has a leader.
 */
export async function waitUntilServed(admin: Admin, topics: string[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const { topics: metadata } = await admin.fetchTopicMetadata({ topics });
      if (
        metadata.every((topic) => topic.partitions.length > 0 && topic.partitions.every((p) => p.leader >= 0))
      ) {
        return;
      }
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline)
      throw new Error(`topics not served within ${timeoutMs} ms: ${topics.join(', ')}`);
    await sleep(100);
  }
}
