import { Kafka, logLevel, type KafkaConfig } from 'kafkajs';
import { nestLogCreator } from './kafka-logger';

export interface KafkaConnectionOptions {
  /** `host:port` pairs. */
  readonly brokers: readonly string[];
  readonly clientId: string;
}

/** One place that decides how every service talks to the brokers. */
export function createKafka(options: KafkaConnectionOptions, overrides: Partial<KafkaConfig> = {}): Kafka {
  return new Kafka({
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

export function parseBrokerList(value: string): string[] {
  return value
    .split(',')
    .map((broker) => broker.trim())
    .filter((broker) => broker.length > 0);
}
