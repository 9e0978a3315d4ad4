import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * One Prometheus registry per process (one service per process). Every metric of the pipeline is
 * defined here, so the names the dashboard queries live in one file; `GET /metrics` renders it.
 * Label values are bounded: topics, event types, outcomes, routes; never ids.
 */
export const metricsRegistry = new Registry();

const registers = [metricsRegistry];

/** Seconds buckets from 1 ms to 10 s: a hop is milliseconds, a stalled one seconds. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const PipelineMetrics = {
  eventsProcessed: new Counter({
    name: 'pipeline_events_processed_total',
    help: 'Events whose handler ran and whose transaction committed.',
    labelNames: ['topic', 'type'] as const,
    registers,
  }),
  eventsRetried: new Counter({
    name: 'pipeline_events_retried_total',
    help: 'Handler attempts that failed and were tried again.',
    labelNames: ['topic', 'type'] as const,
    registers,
  }),
  eventsDeadLettered: new Counter({
    name: 'pipeline_events_dead_lettered_total',
    help: 'Records sent to the dead-letter topic, by error class (fatal, retriable) and stage (consumer, relay).',
    labelNames: ['topic', 'type', 'error_class', 'stage'] as const,
    registers,
  }),
  eventsDeduplicated: new Counter({
    name: 'pipeline_events_deduplicated_total',
    help: 'Events already in the inbox: delivered again and skipped without effects.',
    labelNames: ['topic', 'type'] as const,
    registers,
  }),
  eventsSkipped: new Counter({
    name: 'pipeline_events_skipped_total',
    help: 'Declared events this service has no handler for, committed without effects.',
    labelNames: ['topic', 'type'] as const,
    registers,
  }),
  handlerDuration: new Histogram({
    name: 'pipeline_event_handler_duration_seconds',
    help: 'Time spent in one handler call (one event, or a batch of them), inside its transaction.',
    labelNames: ['topic', 'type'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  }),
  transactionSize: new Histogram({
    name: 'pipeline_consumer_transaction_events',
    help: 'Events committed per consumer transaction.',
    buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000],
    registers,
  }),
  consumerLag: new Gauge({
    name: 'pipeline_consumer_lag',
    help: "Records between the group's committed offset and the partition's end, read from the broker at scrape time.",
    labelNames: ['topic', 'partition', 'group'] as const,
    registers,
  }),
  inboxPruned: new Counter({
    name: 'pipeline_inbox_pruned_total',
    help: 'Inbox rows deleted because they outlived the retention of the topics they guard.',
    registers,
  }),
  undecodableBatches: new Counter({
    name: 'pipeline_consumer_undecodable_batches_total',
    help: 'Record batches the consumer could not decode (a codec it lacks, corrupt bytes): dead-lettered by offset range and skipped.',
    labelNames: ['topic'] as const,
    registers,
  }),
  consumerRestarts: new Counter({
    name: 'pipeline_consumer_restarts_total',
    help: 'Times the consumer was restarted after the Kafka client gave up on it.',
    registers,
  }),
  outboxBacklog: new Gauge({
    name: 'pipeline_outbox_backlog_events',
    help: 'Rows waiting in the outbox.',
    registers,
  }),
  outboxOldestAge: new Gauge({
    name: 'pipeline_outbox_oldest_event_age_seconds',
    help: 'Age of the oldest row waiting in the outbox (0 when empty).',
    registers,
  }),
  relayBatchSize: new Histogram({
    name: 'pipeline_outbox_relay_batch_events',
    help: 'Events per batch the outbox relay sends.',
    buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000],
    registers,
  }),
  relayPublishDuration: new Histogram({
    name: 'pipeline_outbox_relay_publish_duration_seconds',
    help: 'Time from sending a relay batch to the broker acknowledging it (acks from all in-sync replicas).',
    buckets: LATENCY_BUCKETS,
    registers,
  }),
  relayPublished: new Counter({
    name: 'pipeline_outbox_relay_published_total',
    help: 'Events the outbox relay published and deleted from the outbox.',
    labelNames: ['topic'] as const,
    registers,
  }),
  deadLetterDepth: new Gauge({
    name: 'pipeline_dead_letter_topic_records',
    help: "Records retained in this service's dead-letter topic.",
    labelNames: ['topic'] as const,
    registers,
  }),
  httpRequests: new Counter({
    name: 'http_server_requests_total',
    help: 'HTTP requests served, by method, route template and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers,
  }),
  httpDuration: new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'HTTP request duration, by method, route template and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  }),
  kafkaRequests: new Counter({
    name: 'pipeline_kafka_requests_total',
    help: 'Requests this process sent to the Kafka brokers (every client: consumer, producers, admin), by API (Produce, Fetch, OffsetCommit, Heartbeat, Metadata, ...).',
    labelNames: ['api'] as const,
    registers,
  }),
  kafkaResponseBytes: new Counter({
    name: 'pipeline_kafka_response_bytes_total',
    help: "Bytes of the Kafka brokers' responses to this process, by API: for Fetch, the record batches as the producers compressed them (KAFKA_COMPRESSION).",
    labelNames: ['api'] as const,
    registers,
  }),
  dbStatements: new Counter({
    name: 'pipeline_db_statements_total',
    help: "Statements this process sent to its database over the service's pool and the outbox relay's session (BEGIN and COMMIT included).",
    registers,
  }),
  ordersCompleted: new Counter({
    name: 'orders_completed_total',
    help: 'Orders that reached a terminal state, by outcome (confirmed, cancelled) and reason.',
    labelNames: ['outcome', 'reason'] as const,
    registers,
  }),
  orderDuration: new Histogram({
    name: 'order_end_to_end_duration_seconds',
    help: 'From the order being placed to its terminal state, by outcome.',
    labelNames: ['outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  }),
} as const;

let defaultsCollected = false;

/** Labels every series with the service and adds Node's process metrics (memory, CPU, event loop). */
export function initMetrics(service: string): void {
  metricsRegistry.setDefaultLabels({ service });
  if (defaultsCollected) return;
  defaultsCollected = true;
  // The event-loop delay histogram samples on a timer: prom-client's default of every 10 ms woke
  // an idle service 100 times a second, most of its idle CPU. 100 ms still takes ten samples a
  // second, and a stall that long or longer is always seen.
  collectDefaultMetrics({ register: metricsRegistry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
}

const EVENT_LOOP_SAMPLE_MS = 100;

export interface ScrapeHookOptions {
  /** Read at most once per this interval; scrapes in between reuse the last values. Default 0. */
  readonly minIntervalMs?: number;
}

/** A scrape never waits longer than this for a gauge that reads the database or the broker. */
const SCRAPE_HOOK_TIMEOUT_MS = 1_000;

/**
 * One refresher of gauges read from outside the process. At most one read is in flight: scrapes
 * during an outage never pile up queries or metadata requests behind a hung one.
 */
class ScrapeHook {
  private running: Promise<void> | undefined;
  private startedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly read: () => Promise<void>,
    private readonly minIntervalMs: number,
  ) {}

  /** Never rejects; waits for the read at most `timeoutMs`. */
  run(timeoutMs: number): Promise<void> {
    if (this.running === undefined && Date.now() - this.startedAt >= this.minIntervalMs) {
      this.startedAt = Date.now();
      this.running = this.read()
        .catch(() => undefined)
        .finally(() => {
          this.running = undefined;
        });
    }
    return this.running === undefined ? Promise.resolve() : waitAtMost(this.running, timeoutMs);
  }
}

const scrapeHooks = new Set<ScrapeHook>();

/**
 * Registers a function that refreshes gauges read from outside the process (outbox backlog,
 * consumer lag, dead-letter depth) before a scrape. Returns the function that unregisters it. A
 * read that fails or is slow leaves its gauges at their last values: a scrape never fails for it
 * (readiness is what reports an outage).
 */
export function beforeScrape(read: () => Promise<void>, options: ScrapeHookOptions = {}): () => void {
  const hook = new ScrapeHook(read, options.minIntervalMs ?? 0);
  scrapeHooks.add(hook);
  return () => void scrapeHooks.delete(hook);
}

/** The Prometheus text exposition of every metric, after the scrape hooks ran. */
export async function renderMetrics(): Promise<string> {
  await Promise.all([...scrapeHooks].map((hook) => hook.run(SCRAPE_HOOK_TIMEOUT_MS)));
  return metricsRegistry.metrics();
}

function waitAtMost(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
