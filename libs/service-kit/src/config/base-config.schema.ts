import { z } from 'zod';
import { COMPRESSION_NAMES, type CompressionName } from '@pipeline/kafka-codecs';
import { LogLevels } from '@pipeline/observability';
import { OLDEST_EVENT_RECORD_MS } from '@pipeline/contracts';
import { CONSUMER_DEFAULTS, DEFAULT_RETRY } from '@pipeline/messaging';

/**
 * What the relay and the dead letters compress with unless KAFKA_COMPRESSION says otherwise: lz4
 * took a fifth to two fifths off the bytes every consumer fetches at no CPU cost the bench could
 * tell from noise; zstd took more off and cost a fifth to a third more CPU (BENCHMARKS.md#compression).
 */
const DEFAULT_COMPRESSION: CompressionName = 'lz4';

const postgresUrl = z
  .string()
  .min(1)
  .refine((value) => /^postgres(ql)?:\/\/[^/]+\/[^/?]+/.test(value), {
    message: 'must be a postgresql://user@host:port/database URL',
  });

const brokerList = z
  .string()
  .min(1)
  .transform((value) =>
    value
      .split(',')
      .map((broker) => broker.trim())
      .filter(Boolean),
  )
  .refine((brokers) => brokers.length > 0 && brokers.every((broker) => /^[^\s:]+:\d+$/.test(broker)), {
    message: 'must be a comma-separated list of host:port',
  });

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** The environment every service needs. Services extend it with their own variables. */
export interface BaseConfigDefaults {
  readonly port: number;
  /**
   * A consumer off the order's critical path (email, analytics) lets the broker hold its fetch
   * until this much is there (or KAFKA_FETCH_MAX_WAIT_MS): one fetch per wait at everyday rates.
   */
  readonly fetchMinBytes?: number;
  /**
   * How long the broker may hold such a fetch. email-service's is a quarter second: its batch at
   * everyday rates is what arrived in 250 ms, a few emails, where 2 s of them were a burst of CPU
   * and database work that the orders in flight then waited behind (BENCHMARKS.md).
   */
  readonly fetchMaxWaitMs?: number;
}

export const baseConfigSchema = (defaults: BaseConfigDefaults) =>
  z.object({
    PORT: z.coerce.number().int().min(1).max(65_535).default(defaults.port),
    DATABASE_URL: postgresUrl,
    /** Connections of the service's pool, shared by HTTP requests and consumer transactions. */
    DATABASE_POOL_SIZE: positiveInt(10),
    /**
     * The longest wait for a connection: opening one, or a free one of the pool. Past it the
     * query fails as "database unavailable" (HTTP 503, the consumer waits out the outage).
     */
    DATABASE_CONNECT_TIMEOUT_MS: positiveInt(10_000),
    /**
     * Postgres cancels a statement (a lock wait included) that runs longer; the client gives up on
     * one twice as old, when the server cannot even answer (a dead network path). Far above any
     * statement of the services (consumer batches, inbox prune batches, group commits: ms).
     */
    DATABASE_STATEMENT_TIMEOUT_MS: positiveInt(30_000),
    KAFKA_BROKERS: brokerList,
    KAFKA_CLIENT_ID: z.string().min(1).optional(),
    /** Prepended to every topic at the Kafka edge (test isolation); empty in real deployments. */
    KAFKA_TOPIC_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9._-]*$/, { message: 'may contain only letters, digits, ".", "_" and "-"' })
      .default(''),
    /** Consumer group (and inbox consumer name); defaults to `<service>-service`. */
    KAFKA_CONSUMER_GROUP: z.string().min(1).optional(),
    /**
     * Create the contracts' topics at start-up (idempotent). `false` where something else owns
     * them, e.g. Strimzi's KafkaTopic resources on Kubernetes (infra/k8s/).
     */
    KAFKA_PROVISION_TOPICS: z
      .enum(['true', 'false'], { message: 'must be true or false' })
      .default('true')
      .transform((value) => value === 'true'),
    KAFKA_TOPIC_PARTITIONS: positiveInt(6),
    KAFKA_REPLICATION_FACTOR: positiveInt(1),
    KAFKA_MIN_INSYNC_REPLICAS: positiveInt(1),
    /**
     * A consumer fetch returns once this many bytes are there, or after KAFKA_FETCH_MAX_WAIT_MS:
     * an idle consumer waits in the broker (a fetch every 2 s). 1 (the saga's consumers): a
     * record is fetched the moment it arrives, and batches form while a transaction runs. 64 KiB
     * (email, analytics): the broker batches, for up to 250 ms (email) or 2 s (analytics); see
     * BENCHMARKS.md for the figures.
     */
    KAFKA_FETCH_MIN_BYTES: positiveInt(defaults.fetchMinBytes ?? CONSUMER_DEFAULTS.fetchMinBytes),
    KAFKA_FETCH_MAX_WAIT_MS: positiveInt(defaults.fetchMaxWaitMs ?? CONSUMER_DEFAULTS.fetchMaxWaitMs),
    /**
     * Upper bound of events one consumer transaction applies (what waits beyond it goes in the
     * next), and of the records a partition holds queued before its fetching pauses.
     */
    CONSUMER_MAX_EVENTS_PER_TRANSACTION: positiveInt(CONSUMER_DEFAULTS.maxEventsPerTransaction),
    /**
     * After a transaction that held the events of more than one record key (the service is
     * behind), the consumer waits this long before the next one, so it carries more; never after
     * one of a single key's events (records it only skips do not count), so an order at everyday
     * rates never waits on it. 0: never.
     */
    CONSUMER_BUSY_LINGER_MS: z.coerce.number().int().min(0).default(CONSUMER_DEFAULTS.busyLingerMs),
    /**
     * At most one offset commit per this interval; a timer commits the last one. After a crash up
     * to this much is fetched again and dropped by the inbox. 0 commits after every transaction.
     */
    CONSUMER_COMMIT_INTERVAL_MS: z.coerce.number().int().min(0).default(CONSUMER_DEFAULTS.commitIntervalMs),
    /**
     * A record batch the consumer cannot decode (a codec it lacks, corrupt bytes): `dead-letter`
     * records its offset range in the service's dead-letter topic and moves past it (a metric and
     * a WARN say so); `stop` halts the group there, crash-looping with backoff, until a person acts
     * (liveness fails after HEALTH_STALL_TIMEOUT_MS). docs/messaging.md#undecodable-batches.
     */
    CONSUMER_UNDECODABLE_BATCH: z.enum(['dead-letter', 'stop']).default('dead-letter'),
    /**
     * The codec of the record batches this service produces (relay and dead letters): none, gzip,
     * snappy, lz4 or zstd. Every consumer of the project reads them all; so does any Kafka client
     * of the last years. The default and its figures: BENCHMARKS.md (compression).
     */
    KAFKA_COMPRESSION: z.enum(COMPRESSION_NAMES).default(DEFAULT_COMPRESSION),
    OUTBOX_BATCH_SIZE: positiveInt(500),
    /**
     * Upper bound of one relay send in record bytes: a batch heavier than that goes in several
     * sends, under the topics' `max.message.bytes` (1 MiB by default). A row heavier on its own
     * goes to the service's dead-letter topic.
     */
    OUTBOX_MAX_BATCH_BYTES: positiveInt(512 * 1024),
    OUTBOX_POLL_INTERVAL_MS: positiveInt(1000),
    /**
     * Acknowledgement the relay waits for before deleting rows: `all` (the in-sync replicas; with
     * min.insync.replicas 2 an acknowledged event survives the loss of a broker) or `1` (the
     * leader only: faster, and an event is lost if the leader dies before a follower copied it).
     * `1` exists to demonstrate that dependency (tests/faults); keep `all`.
     */
    OUTBOX_ACKS: z.enum(['all', '1']).default('all'),
    /**
     * How long an inbox row guards against a redelivery of its event: as long as the consumed
     * topics can hold a record (7 days of `retention.ms` + 1 day of `segment.ms` + 5 minutes of
     * the broker's retention check). At least a minute, so a value meant in seconds or days
     * cannot empty the inbox under the consumers' feet.
     */
    INBOX_RETENTION_MS: z.coerce.number().int().min(60_000).default(OLDEST_EVENT_RECORD_MS),
    /** From the end of one inbox prune pass to the next. */
    INBOX_PRUNE_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(1_000)
      .default(10 * 60 * 1000),
    CONSUMER_RETRY_ATTEMPTS: positiveInt(DEFAULT_RETRY.attempts),
    CONSUMER_RETRY_INITIAL_BACKOFF_MS: positiveInt(DEFAULT_RETRY.initialBackoffMs),
    CONSUMER_RETRY_MAX_BACKOFF_MS: positiveInt(DEFAULT_RETRY.maxBackoffMs),
    /** How long an event whose dependency (SMTP) is down waits before it is dead-lettered. */
    CONSUMER_RETRY_OUTAGE_WINDOW_MS: z.coerce.number().int().min(0).default(DEFAULT_RETRY.outageWindowMs),
    /**
     * /health/live fails when an assigned partition has had lag and no progress (no attempt at
     * its records finished) for this long: the process is wedged. Far above the longest gap
     * between two attempts of a live consumer (a backoff, a restart, the retry window of an
     * outage), so only a hang restarts the pod.
     */
    HEALTH_STALL_TIMEOUT_MS: positiveInt(5 * 60 * 1000),
    LOG_LEVEL: z.enum(LogLevels).default('log'),
    LOG_FORMAT: z.enum(['json', 'pretty']).default('json'),
  });

export type BaseConfig = z.output<ReturnType<typeof baseConfigSchema>>;
