import type { ServiceName } from '@pipeline/contracts';
import { parseMetrics, series, sum, type Sample } from '@pipeline/observability';
import { z } from 'zod';

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
  /** Times its consumer was restarted after the Kafka client gave up on it (a crash loop grows it). */
  readonly consumerRestarts: number | undefined;
}

/** One instance's answer to `GET /health/live`. */
export interface InstanceLiveness {
  readonly url: string;
  /** `live` (200), `not-live` (503, with the reason), `unknown` (no answer in time, or another status). */
  readonly state: 'live' | 'not-live' | 'unknown';
  /** The failing checks' messages (503), or why there was no answer (unknown). */
  readonly message: string | undefined;
  /** Crashes of the crash loop that failed it, if that is what failed it. */
  readonly crashes: number | undefined;
  /** The partitions it named as having lag and no progress (`topic/partition`). */
  readonly stalledPartitions: readonly string[];
}

const SCRAPE_TIMEOUT_MS = 2_000;
/** The liveness probe's own timeout: the service reads its lag from the broker for up to 2 s first. */
const LIVENESS_TIMEOUT_MS = 3_000;

/** Nest Terminus's 503 body, as much of it as the picture uses; anything else in it is ignored. */
const LivenessFailure = z.object({
  error: z
    .record(
      z.string(),
      z.looseObject({
        status: z.string().optional(),
        message: z.string().optional(),
        crashLoop: z.looseObject({ crashes: z.number() }).optional().catch(undefined),
        stalled: z
          .array(z.looseObject({ topic: z.string(), partition: z.number() }))
          .optional()
          .catch(undefined),
      }),
    )
    .optional()
    .catch(undefined),
});

const reasonOf = (error: unknown) =>
  error instanceof Error
    ? error.cause instanceof Error
      ? error.cause.message
      : error.message
    : String(error);

/** The reason a 503 of `/health/live` gives: every failing check's message, its crash loop and stalled partitions. */
export function livenessFailureOf(body: string): Omit<InstanceLiveness, 'url' | 'state'> {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  const failing = Object.values(LivenessFailure.safeParse(json).data?.error ?? {}).filter(
    (check) => check.status !== 'up',
  );
  const messages = failing.flatMap((check) => (check.message === undefined ? [] : [check.message]));
  const crashes = failing.flatMap((check) =>
    check.crashLoop === undefined ? [] : [check.crashLoop.crashes],
  );
  return {
    message: messages.length === 0 ? 'answered 503 without a reason' : messages.join('; '),
    crashes: crashes.length === 0 ? undefined : Math.max(...crashes),
    stalledPartitions: failing.flatMap((check) =>
      (check.stalled ?? []).map(({ topic, partition }) => `${topic}/${partition}`),
    ),
  };
}

/**
 * Reads every instance's `GET /metrics`, as Prometheus would, and turns the counters into rates
 * against the previous scrape of the same instance.
 */
export class ServiceMetrics {
  private readonly previous = new Map<string, { at: number; processed: number }>();

  constructor(
    private readonly services: Readonly<Record<ServiceName, readonly string[]>>,
    private readonly livenessTimeoutMs = LIVENESS_TIMEOUT_MS,
  ) {}

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
      return {
        service,
        url,
        up: false,
        error: reasonOf(error),
        eventsPerSecond: undefined,
        lag: [],
        outboxBacklog: undefined,
        deadLetterDepth: undefined,
        cpuSeconds: undefined,
        rssBytes: undefined,
        transactionEventsSum: undefined,
        transactionEventsCount: undefined,
        consumerRestarts: undefined,
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
      consumerRestarts: optional('pipeline_consumer_restarts_total'),
    };
  }

  /**
   * One instance's `GET /health/live`. It costs the service a few Kafka admin requests (it reads
   * its lag from the broker), so the sampler asks only while a group looks stalled or crashing.
   */
  async liveness(url: string): Promise<InstanceLiveness> {
    const unknown = (message: string): InstanceLiveness => ({
      url,
      state: 'unknown',
      message,
      crashes: undefined,
      stalledPartitions: [],
    });
    try {
      const response = await fetch(`${url}/health/live`, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(this.livenessTimeoutMs),
      });
      const body = await response.text();
      if (response.ok)
        return { url, state: 'live', message: undefined, crashes: undefined, stalledPartitions: [] };
      if (response.status !== 503) return unknown(`answered ${response.status}`);
      return { url, state: 'not-live', ...livenessFailureOf(body) };
    } catch (error) {
      return unknown(reasonOf(error));
    }
  }
}
