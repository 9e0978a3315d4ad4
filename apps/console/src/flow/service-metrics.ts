import type { ServiceName } from '@pipeline/contracts';
import { parseMetrics, series, sum, type Sample } from '@pipeline/observability';

export interface InstanceMetrics {
  readonly service: ServiceName;
  readonly url: string;
  readonly up: boolean;
  /** Why it could not be read, when it could not. */
  readonly error: string | undefined;
  /** Events processed per second since the previous scrape; undefined on the first one. */
  readonly eventsPerSecond: number | undefined;
  readonly lag: readonly { readonly topic: string; readonly partition: string; readonly lag: number }[];
  readonly outboxBacklog: number | undefined;
  readonly deadLetterDepth: number | undefined;
  /** Cumulative counters, for rates over the sampler's interval (undefined when not exposed). */
  readonly cpuSeconds: number | undefined;
  readonly rssBytes: number | undefined;
  readonly transactionEventsSum: number | undefined;
  readonly transactionEventsCount: number | undefined;
}

const SCRAPE_TIMEOUT_MS = 2_000;

/**
 * Reads every instance's `GET /metrics`, as Prometheus would, and turns the counters into rates
 * against the previous scrape of the same instance.
 */
export class ServiceMetrics {
  private readonly previous = new Map<string, { at: number; processed: number }>();

  constructor(private readonly services: Readonly<Record<ServiceName, readonly string[]>>) {}

  async scrapeAll(): Promise<InstanceMetrics[]> {
    const targets = Object.entries(this.services).flatMap(([service, urls]) =>
      urls.map((url) => ({ service: service as ServiceName, url })),
    );
    return Promise.all(targets.map(({ service, url }) => this.scrape(service, url)));
  }

  private async scrape(service: ServiceName, url: string): Promise<InstanceMetrics> {
    let samples: Sample[];
    try {
      const response = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS) });
      if (!response.ok) throw new Error(`answered ${response.status}`);
      samples = parseMetrics(await response.text());
    } catch (error) {
      this.previous.delete(url);
      const reason =
        error instanceof Error
          ? error.cause instanceof Error
            ? error.cause.message
            : error.message
          : String(error);
      return {
        service,
        url,
        up: false,
        error: reason,
        eventsPerSecond: undefined,
        lag: [],
        outboxBacklog: undefined,
        deadLetterDepth: undefined,
        cpuSeconds: undefined,
        rssBytes: undefined,
        transactionEventsSum: undefined,
        transactionEventsCount: undefined,
      };
    }
    const now = Date.now();
    const processed = sum(samples, 'pipeline_events_processed_total');
    const before = this.previous.get(url);
    this.previous.set(url, { at: now, processed });
    const elapsed = before === undefined ? 0 : (now - before.at) / 1000;
    // A restarted instance starts its counters at 0: no rate for that interval.
    const eventsPerSecond =
      before === undefined || elapsed <= 0 || processed < before.processed
        ? undefined
        : (processed - before.processed) / elapsed;
    const present = (name: string) => samples.some((s) => s.name === name);
    const optional = (name: string) => (present(name) ? sum(samples, name) : undefined);
    return {
      service,
      url,
      up: true,
      error: undefined,
      eventsPerSecond,
      lag: series(samples, 'pipeline_consumer_lag')
        .map((s) => ({ topic: s.labels.topic ?? '?', partition: s.labels.partition ?? '?', lag: s.value }))
        .sort((a, b) => a.topic.localeCompare(b.topic) || Number(a.partition) - Number(b.partition)),
      outboxBacklog: optional('pipeline_outbox_backlog_events'),
      deadLetterDepth: optional('pipeline_dead_letter_topic_records'),
      // prom-client's default process metrics, and the consumer's transaction-size histogram.
      cpuSeconds: optional('process_cpu_seconds_total'),
      rssBytes: optional('process_resident_memory_bytes'),
      transactionEventsSum: optional('pipeline_consumer_transaction_events_sum'),
      transactionEventsCount: optional('pipeline_consumer_transaction_events_count'),
    };
  }
}
