import { deadLetterTopic, ServiceNames, Topics } from './topic-names';

export type CleanupPolicy = 'delete' | 'compact';

export interface TopicSpec {
  readonly name: string;
  /** What the record key is: ordering holds only within a partition, i.e. per key. */
  readonly key: string;
  readonly cleanupPolicy: CleanupPolicy;
  /** `undefined` keeps the broker's default retention. */
  readonly retentionMs?: number;
  /**
   * `segment.ms`: the longest a segment stays open. Kafka deletes whole segments, once their
   * newest record is past `retentionMs`, so a record can live up to retention + segment.ms.
   */
  readonly segmentMs?: number;
  /** `max.message.bytes`; `undefined` keeps the broker's default (1 MiB). */
  readonly maxMessageBytes?: number;
  readonly description: string;
}

/** The partitions and replicas topics get by default (KAFKA_TOPIC_PARTITIONS, KAFKA_REPLICATION_FACTOR). */
export const DEFAULT_TOPIC_PARTITIONS = 6;
export const DEFAULT_TOPIC_REPLICAS = 1;

const DAY_MS = 24 * 60 * 60 * 1000;
const SEVEN_DAYS_MS = 7 * DAY_MS;
const THIRTY_DAYS_MS = 30 * DAY_MS;
/** Kafka's `log.retention.check.interval.ms` default: how often the broker looks for old segments. */
const RETENTION_CHECK_INTERVAL_MS = 5 * 60 * 1000;

/** `retention.ms` and `segment.ms` of the saga topics (orders, payments, inventory). */
export const EVENT_TOPIC_RETENTION_MS = SEVEN_DAYS_MS;
export const EVENT_TOPIC_SEGMENT_MS = DAY_MS;
/**
 * The age of the oldest record a saga topic can still hold: its retention, plus the segment it
 * shares with newer records, plus the broker's retention check. Inbox rows are kept this long
 * (INBOX_RETENTION_MS), so no record the log still holds can find its inbox row gone.
 */
export const OLDEST_EVENT_RECORD_MS =
  EVENT_TOPIC_RETENTION_MS + EVENT_TOPIC_SEGMENT_MS + RETENTION_CHECK_INTERVAL_MS;
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
    retentionMs: EVENT_TOPIC_RETENTION_MS,
    segmentMs: EVENT_TOPIC_SEGMENT_MS,
    description: 'Order lifecycle events produced by order-service.',
  },
  {
    name: Topics.payments,
    key: 'order id',
    cleanupPolicy: 'delete',
    retentionMs: EVENT_TOPIC_RETENTION_MS,
    segmentMs: EVENT_TOPIC_SEGMENT_MS,
    description: 'Payment outcomes produced by payment-service.',
  },
  {
    name: Topics.inventory,
    key: 'order id',
    cleanupPolicy: 'delete',
    retentionMs: EVENT_TOPIC_RETENTION_MS,
    segmentMs: EVENT_TOPIC_SEGMENT_MS,
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
    segmentMs: DAY_MS,
    maxMessageBytes: DEAD_LETTER_MAX_MESSAGE_BYTES,
    description: `Records ${service}-service could not process, with diagnostic headers.`,
  })),
];
