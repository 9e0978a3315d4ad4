import { deadLetterTopic, ServiceNames, Topics } from './topic-names';

export type CleanupPolicy = 'delete' | 'compact';

export interface TopicSpec {
  readonly name: string;
  /** What the record key is: ordering holds only within a partition, i.e. per key. */
  readonly key: string;
  readonly cleanupPolicy: CleanupPolicy;
  /** `undefined` keeps the broker's default retention. */
  readonly retentionMs?: number;
  /** `max.message.bytes`; `undefined` keeps the broker's default (1 MiB). */
  readonly maxMessageBytes?: number;
  readonly description: string;
}

/** The partitions and replicas topics get by default (KAFKA_TOPIC_PARTITIONS, KAFKA_REPLICATION_FACTOR). */
export const DEFAULT_TOPIC_PARTITIONS = 6;
export const DEFAULT_TOPIC_REPLICAS = 1;

const SEVEN_DAYS_MS = 7 * 24 * 60 * 60 * 1000;
const THIRTY_DAYS_MS = 30 * 24 * 60 * 60 * 1000;
/**
 * A dead letter is the original record plus about 1.5 KB of diagnostic headers: twice the
 * broker's default limit leaves room for any record a source topic accepted.
 */
const DEAD_LETTER_MAX_MESSAGE_BYTES = 2 * 1024 * 1024;

/** Every topic the contracts declare, with the settings provisioning applies. */
export const TopicCatalogue: readonly TopicSpec[] = [
  {
    name: Topics.orders,
    key: 'order id',
    cleanupPolicy: 'delete',
    retentionMs: SEVEN_DAYS_MS,
    description: 'Order lifecycle events produced by order-service.',
  },
  {
    name: Topics.payments,
    key: 'order id',
    cleanupPolicy: 'delete',
    retentionMs: SEVEN_DAYS_MS,
    description: 'Payment outcomes produced by payment-service.',
  },
  {
    name: Topics.inventory,
    key: 'order id',
    cleanupPolicy: 'delete',
    retentionMs: SEVEN_DAYS_MS,
    description: 'Stock reservation outcomes produced by inventory-service.',
  },
  {
    name: Topics.inventoryStock,
    key: 'SKU',
    cleanupPolicy: 'compact',
    description: 'Compacted changelog of stock levels; a deleted SKU is a tombstone.',
  },
  {
    name: Topics.ordersCount,
    key: 'customer id + window start',
    cleanupPolicy: 'compact',
    description: 'Compacted per-customer order counts in 5-minute windows (analytics-service).',
  },
  ...ServiceNames.map((service): TopicSpec => ({
    name: deadLetterTopic(service),
    key: 'the original record key',
    cleanupPolicy: 'delete',
    retentionMs: THIRTY_DAYS_MS,
    maxMessageBytes: DEAD_LETTER_MAX_MESSAGE_BYTES,
    description: `Records ${service}-service could not process, with diagnostic headers.`,
  })),
];
