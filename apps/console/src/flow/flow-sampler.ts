import { ServiceNames, type ServiceName } from '@pipeline/contracts';
import type { Admin } from 'kafkajs';
import { consumerHealth, percentile, ratePerSecond, stallVerdict } from './flow-math';
import type { FlowSample, GroupSample, ServiceSample, TopicSample } from './flow-sample';
import { FLOW_TOPICS } from './order-feed';
import { consumedTopics } from './flow-topology';
import type { OrderFlowCounter } from './order-flow-counter';
import { RingBuffer } from './ring-buffer';
import type { InstanceMetrics, ServiceMetrics } from './service-metrics';

export interface FlowSamplerOptions {
  readonly prefix: string;
  /** Each service's consumer group id. */
  readonly groups: Readonly<Record<ServiceName, string>>;
  readonly intervalMs: number;
  /** The ring buffer's capacity: history points kept for the charts. */
  readonly historyPoints: number;
}

type Offsets = Map<number, { low: number; high: number }>;
interface Previous {
  readonly at: number;
  readonly highs: ReadonlyMap<string, number>;
  /** `<service> <topic>` -> sum of committed offsets. */
  readonly committed: ReadonlyMap<string, number>;
  readonly instances: ReadonlyMap<string, InstanceMetrics>;
}

const sumOf = (values: readonly (number | null)[]) =>
  values.some((v) => v === null) ? null : values.reduce<number>((total, v) => total + v!, 0);

/**
 * The console's one background reader of the pipeline: every `intervalMs`, one batch of admin
 * calls (end offsets of the saga topics, committed offsets of each service's group) and one
 * scrape of every instance's /metrics, turned into one FlowSample in a capped ring buffer. The
 * picture, the services table and the charts all read these samples: one scrape serves them all,
 * however many pages are open. Only while a group looks stalled or its consumer restarts does it
 * also ask that service's `/health/live` why.
 */
export class FlowSampler {
  readonly history: RingBuffer<FlowSample>;
  private previous: Previous | undefined;
  private instances: readonly InstanceMetrics[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly admin: Pick<Admin, 'listTopics' | 'fetchTopicOffsets' | 'fetchOffsets'>,
    private readonly metrics: Pick<ServiceMetrics, 'scrapeAll' | 'liveness'>,
    private readonly counter: Pick<OrderFlowCounter, 'take'>,
    private readonly options: FlowSamplerOptions,
    private readonly onError: (error: unknown) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.history = new RingBuffer(options.historyPoints);
  }

  /** The first sample at once, then one every interval (never two at a time). */
  start(): void {
    const tick = () => {
      this.running = this.sample()
        .catch(this.onError)
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, this.options.intervalMs);
        });
    };
    tick();
  }

  /**
   * Waits for a sample in progress up to `waitMs`: with the broker away, kafkajs retries an admin
   * call for tens of seconds, and a console asked to stop should not wait for a reading it drops.
   */
  async stop(waitMs = 2_000): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.running, new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
  }

  latest(): FlowSample | undefined {
    return this.history.latest();
  }

  /** Every instance as last scraped (the services table). */
  latestInstances(): readonly InstanceMetrics[] {
    return this.instances;
  }

  async sample(): Promise<FlowSample> {
    const { prefix } = this.options;
    // A topic not created yet is read as unknown at once: kafkajs would retry it for seconds.
    const existing = new Set(await this.admin.listTopics().catch(() => []));
    const [offsets, committed, instances] = await Promise.all([
      Promise.all(
        FLOW_TOPICS.map((topic) =>
          existing.has(prefix + topic) ? this.topicOffsets(prefix + topic) : Promise.resolve(undefined),
        ),
      ),
      Promise.all(ServiceNames.map((service) => this.groupOffsets(service))),
      this.metrics.scrapeAll(),
    ]);
    const at = this.now();
    const previous = this.previous;
    const elapsed = previous === undefined ? 0 : at - previous.at;
    const ends = new Map(FLOW_TOPICS.map((topic, i) => [topic as string, offsets[i]]));
    const highs = new Map<string, number>();
    const topics: Record<string, TopicSample> = {};
    for (const [topic, partitions] of ends) {
      const high = partitions === undefined ? null : [...partitions.values()].reduce((t, p) => t + p.high, 0);
      if (high !== null) highs.set(topic, high);
      topics[topic] = { high, perSecond: ratePerSecond(previous?.highs.get(topic), high, elapsed) };
    }
    const committedNow = new Map<string, number>();
    const groups = await this.explainStalls(
      Object.fromEntries(
        ServiceNames.map((service, i) => [
          service,
          this.groupSample(service, committed[i], ends, committedNow, elapsed),
        ]),
      ) as Record<ServiceName, GroupSample>,
      instances,
      previous,
    );
    const flow = this.counter.take();
    const seconds = elapsed > 0 ? elapsed / 1000 : null;
    const sample: FlowSample = {
      at,
      placedPerSecond: seconds === null ? null : flow.placed / seconds,
      terminalPerSecond: seconds === null ? null : flow.terminal / seconds,
      e2eP50Ms: percentile(flow.e2eMs, 50),
      e2eP99Ms: percentile(flow.e2eMs, 99),
      topics,
      groups,
      services: this.serviceSamples(instances, previous, elapsed),
    };
    this.previous = {
      at,
      highs,
      committed: committedNow,
      instances: new Map(instances.map((m) => [m.url, m])),
    };
    this.instances = instances;
    this.history.push(sample);
    return sample;
  }

  private groupSample(
    service: ServiceName,
    committed: Map<string, Map<number, number>> | undefined,
    ends: ReadonlyMap<string, Offsets | undefined>,
    committedNow: Map<string, number>,
    elapsed: number,
  ): GroupSample {
    const group = this.options.groups[service];
    const byTopic: Record<string, { lag: number | null; perSecond: number | null }> = {};
    const lags: (number | null)[] = [];
    const positions: (number | null)[] = [];
    for (const topic of consumedTopics(service)) {
      const end = ends.get(topic);
      const offsets = committed?.get(this.options.prefix + topic);
      if (end === undefined || committed === undefined) {
        byTopic[topic] = { lag: null, perSecond: null };
        lags.push(null);
        positions.push(null);
        continue;
      }
      let lag = 0;
      let position = 0;
      for (const [partition, { low, high }] of end) {
        // A partition the group never committed counts from the log's start, as a new member would.
        const at = Math.max(low, offsets?.get(partition) ?? -1);
        lag += Math.max(0, high - at);
        position += at;
      }
      const key = `${service} ${topic}`;
      committedNow.set(key, position);
      byTopic[topic] = {
        lag,
        perSecond: ratePerSecond(this.previous?.committed.get(key), position, elapsed),
      };
      lags.push(lag);
      positions.push(position);
    }
    const reading = { lag: sumOf(lags), committed: sumOf(positions) };
    const earlier = this.history.last(3).map((s) => s.groups[service]);
    return {
      group,
      ...reading,
      byTopic,
      ...consumerHealth([...earlier, reading]),
      stalledReason: null,
      stalledSummary: null,
    };
  }

  /**
   * Asks the up instances of each service whose group looks stalled, or whose consumer restarted
   * since the previous sample, for `/health/live`, and carries the reason into its group. Only
   * then: each answer costs the service a few Kafka admin requests.
   */
  private async explainStalls(
    groups: Readonly<Record<ServiceName, GroupSample>>,
    instances: readonly InstanceMetrics[],
    previous: Previous | undefined,
  ): Promise<Record<ServiceName, GroupSample>> {
    const restarted = (m: InstanceMetrics) => {
      const before = previous?.instances.get(m.url)?.consumerRestarts;
      return before !== undefined && m.consumerRestarts !== undefined && m.consumerRestarts > before;
    };
    const explained = await Promise.all(
      ServiceNames.map(async (service) => {
        const own = instances.filter((m) => m.service === service);
        const { stalled } = groups[service];
        const probes =
          stalled || own.some(restarted)
            ? await Promise.all(own.filter((m) => m.up).map((m) => this.metrics.liveness(m.url)))
            : undefined;
        return [service, { ...groups[service], ...stallVerdict(stalled, probes) }] as const;
      }),
    );
    return Object.fromEntries(explained) as Record<ServiceName, GroupSample>;
  }

  private serviceSamples(
    instances: readonly InstanceMetrics[],
    previous: Previous | undefined,
    elapsed: number,
  ): Record<ServiceName, ServiceSample> {
    const out = {} as Record<ServiceName, ServiceSample>;
    for (const service of ServiceNames) {
      const own = instances.filter((m) => m.service === service && m.up);
      const total = (pick: (m: InstanceMetrics) => number | undefined) =>
        own.length === 0 || own.some((m) => pick(m) === undefined)
          ? null
          : own.reduce((t, m) => t + pick(m)!, 0);
      const delta = (pick: (m: InstanceMetrics) => number | undefined) =>
        total((m) => {
          const before = previous?.instances.get(m.url);
          const [a, b] = [before === undefined ? undefined : pick(before), pick(m)];
          return a === undefined || b === undefined || b < a ? undefined : b - a;
        });
      const cpu = delta((m) => m.cpuSeconds);
      const txSum = delta((m) => m.transactionEventsSum);
      const txCount = delta((m) => m.transactionEventsCount);
      out[service] = {
        instances: instances.filter((m) => m.service === service).length,
        up: own.length,
        outboxBacklog: total((m) => m.outboxBacklog),
        deadLetters: total((m) => m.deadLetterDepth),
        cpuPercent: cpu === null || elapsed <= 0 ? null : (cpu * 100_000) / elapsed,
        rssBytes: total((m) => m.rssBytes),
        eventsPerTransaction: txSum === null || txCount === null || txCount === 0 ? null : txSum / txCount,
      };
    }
    return out;
  }

  private async topicOffsets(topic: string): Promise<Offsets | undefined> {
    try {
      const partitions = await this.admin.fetchTopicOffsets(topic);
      return new Map(partitions.map((p) => [p.partition, { low: Number(p.low), high: Number(p.high) }]));
    } catch (error) {
      this.onError(error);
      return undefined;
    }
  }

  /** Committed offsets by prefixed topic and partition; undefined when they could not be read. */
  private async groupOffsets(service: ServiceName): Promise<Map<string, Map<number, number>> | undefined> {
    try {
      const topics = consumedTopics(service).map((topic) => this.options.prefix + topic);
      const answer = await this.admin.fetchOffsets({ groupId: this.options.groups[service], topics });
      return new Map(
        answer.map(({ topic, partitions }) => [
          topic,
          new Map(partitions.map((p) => [p.partition, Number(p.offset)])),
        ]),
      );
    } catch (error) {
      this.onError(error);
      return undefined;
    }
  }
}
