import { ServiceNames, type ServiceName } from '@pipeline/contracts';
import type { Admin } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { FlowSampler } from './flow-sampler';
import type { OrderFlowInterval } from './order-flow-counter';
import type { InstanceLiveness, InstanceMetrics } from './service-metrics';

// Every service of the contracts (a generated one too): `g-<service>`.
const GROUPS = Object.fromEntries(ServiceNames.map((service) => [service, `g-${service}`])) as Record<
  ServiceName,
  string
>;

/** A broker of two partitions per topic whose offsets the test moves. */
function fakeAdmin(state: { highs: Record<string, number>; committed: Record<string, number> }) {
  const admin: Pick<Admin, 'listTopics' | 'fetchTopicOffsets' | 'fetchOffsets'> = {
    listTopics: () =>
      Promise.resolve(['t.orders', 't.payments', 't.inventory', 'orders', 'payments', 'inventory']),
    fetchTopicOffsets: (topic: string) =>
      Promise.resolve(
        [0, 1].map((partition) => ({
          partition,
          offset: String(state.highs[topic] ?? 0),
          high: String(state.highs[topic] ?? 0),
          low: '0',
        })),
      ),
    fetchOffsets: ({ groupId, topics }: { groupId: string; topics?: string[] }) =>
      Promise.resolve(
        (topics ?? []).map((topic) => ({
          topic,
          partitions: [0, 1].map((partition) => ({
            partition,
            offset: String(state.committed[`${groupId} ${topic}`] ?? -1),
            metadata: null,
          })),
        })),
      ),
  };
  return admin;
}

const instance = (over: Partial<InstanceMetrics>): InstanceMetrics => ({
  service: 'payment',
  url: 'http://payment',
  up: true,
  error: undefined,
  eventsPerSecond: undefined,
  lag: [],
  outboxBacklog: 3,
  deadLetterDepth: 1,
  cpuSeconds: 10,
  rssBytes: 50 * 2 ** 20,
  transactionEventsSum: 100,
  transactionEventsCount: 10,
  consumerRestarts: 0,
  ...over,
});

const live = (url: string): Promise<InstanceLiveness> =>
  Promise.resolve({ url, state: 'live', message: undefined, crashes: undefined, stalledPartitions: [] });

describe('FlowSampler', () => {
  it('turns offsets and /metrics into rates, lag per group and a stall once a group stops moving', async () => {
    const state = {
      highs: { 't.orders': 10 },
      committed: { 'g-payment t.orders': 10 } as Record<string, number>,
    };
    let scraped: InstanceMetrics[] = [instance({})];
    let now = 0;
    const intervals: OrderFlowInterval[] = [
      { placed: 0, terminal: 0, e2eMs: [] },
      { placed: 20, terminal: 10, e2eMs: [100, 200, 900] },
    ];
    const sampler = new FlowSampler(
      fakeAdmin(state),
      { scrapeAll: () => Promise.resolve(scraped), liveness: live },
      { take: () => intervals.shift() ?? { placed: 0, terminal: 0, e2eMs: [] } },
      { prefix: 't.', groups: GROUPS, intervalMs: 5_000, historyPoints: 3 },
      undefined,
      () => now,
    );
    const first = await sampler.sample();
    expect(first.topics.orders).toEqual({ high: 20, perSecond: null });
    expect(first.groups.payment).toMatchObject({ group: 'g-payment', lag: 0, stalled: false });
    // email has never committed: its lag counts from the log's start.
    expect(first.groups.email.lag).toBe(20);

    now = 5_000;
    state.highs['t.orders'] = 35; // 50 more records over two partitions
    state.committed['g-payment t.orders'] = 20; // payment read 20 of them
    scraped = [instance({ cpuSeconds: 11, transactionEventsSum: 160, transactionEventsCount: 14 })];
    const second = await sampler.sample();
    expect(second.topics.orders?.perSecond).toBe(10);
    expect(second.groups.payment.byTopic.orders).toEqual({ lag: 30, perSecond: 4 });
    expect(second.placedPerSecond).toBe(4);
    expect(second.terminalPerSecond).toBe(2);
    expect(second.e2eP50Ms).toBe(200);
    expect(second.e2eP99Ms).toBe(900);
    expect(second.services.payment).toMatchObject({
      instances: 1,
      up: 1,
      outboxBacklog: 3,
      deadLetters: 1,
      cpuPercent: 20,
      rssBytes: 50 * 2 ** 20,
      eventsPerTransaction: 15,
    });
    expect(second.groups.payment).toMatchObject({ stalled: false, growing: false }); // one rise only

    now = 10_000;
    state.highs['t.orders'] = 45;
    scraped = [instance({ up: false, cpuSeconds: undefined })];
    const third = await sampler.sample();
    expect(third.groups.payment).toMatchObject({
      lag: 50,
      stalled: true,
      growing: true,
      stalledReason: 'lag and no committed progress; no instance is up to ask /health/live',
    });
    expect(third.services.payment).toMatchObject({ instances: 1, up: 0, cpuPercent: null });

    now = 15_000;
    state.highs['t.orders'] = 60;
    expect((await sampler.sample()).groups.payment).toMatchObject({ lag: 80, stalled: true, growing: true });
    expect(sampler.history.size).toBe(3); // capped
  });

  it('samples once at start and then every interval, until stopped', async () => {
    let samples = 0;
    const sampler = new FlowSampler(
      fakeAdmin({ highs: {}, committed: {} }),
      { scrapeAll: () => Promise.resolve([]), liveness: live },
      { take: () => ({ placed: samples++, terminal: 0, e2eMs: [] }) },
      { prefix: '', groups: GROUPS, intervalMs: 1_000, historyPoints: 10 },
    );
    sampler.start();
    await sampler.stop();
    expect(samples).toBe(1);
    expect(sampler.latest()).toBeDefined();
  });
});

describe('FlowSampler asking /health/live why', () => {
  it('asks only while a group is stalled or its consumer restarts, only the up instances, and keeps the reason', async () => {
    const state = {
      highs: { 't.orders': 10 },
      committed: { 'g-payment t.orders': 10 } as Record<string, number>,
    };
    const up = instance({ url: 'http://payment-1' });
    const down = instance({ url: 'http://payment-2', up: false, consumerRestarts: undefined });
    let scraped = [up, down];
    const asked: string[] = [];
    let answer: Omit<InstanceLiveness, 'url'> = {
      state: 'live',
      message: undefined,
      crashes: undefined,
      stalledPartitions: [],
    };
    let now = 0;
    const sampler = new FlowSampler(
      fakeAdmin(state),
      {
        scrapeAll: () => Promise.resolve(scraped),
        liveness: (url) => {
          asked.push(url);
          return Promise.resolve({ url, ...answer });
        },
      },
      { take: () => ({ placed: 0, terminal: 0, e2eMs: [] }) },
      { prefix: 't.', groups: GROUPS, intervalMs: 5_000, historyPoints: 10 },
      undefined,
      () => now,
    );
    const quiet = await sampler.sample();
    expect(quiet.groups.payment).toMatchObject({ stalled: false, stalledReason: null });
    expect(asked).toEqual([]);

    // Its consumer restarted while the offsets move: asked, and it passes, so no stall.
    now = 5_000;
    state.highs['t.orders'] = 35;
    state.committed['g-payment t.orders'] = 20;
    scraped = [{ ...up, consumerRestarts: 2 }, down];
    const restarted = await sampler.sample();
    expect(asked).toEqual(['http://payment-1']);
    expect(restarted.groups.payment).toMatchObject({ stalled: false, stalledReason: null });

    // Lag and no committed progress: asked again, and its 503 says why.
    now = 10_000;
    state.highs['t.orders'] = 45;
    answer = {
      state: 'not-live',
      message: 'consumer group g-payment crash-looping: 5 crashes in 6000 ms without progress, last: boom',
      crashes: 5,
      stalledPartitions: [],
    };
    const stalled = await sampler.sample();
    expect(asked).toEqual(['http://payment-1', 'http://payment-1']);
    expect(stalled.groups.payment).toMatchObject({
      stalled: true,
      stalledReason: answer.message,
      stalledSummary: 'crash loop: 5 crashes',
    });

    // It moves again and stops restarting: nobody is asked.
    now = 15_000;
    state.committed['g-payment t.orders'] = 45;
    const recovered = await sampler.sample();
    expect(asked).toHaveLength(2);
    expect(recovered.groups.payment).toMatchObject({ stalled: false, stalledReason: null });
  });
});

describe('FlowSampler against a pipeline not there yet', () => {
  it('reads a topic that does not exist as unknown without asking for its offsets', async () => {
    const asked: string[] = [];
    const sampler = new FlowSampler(
      {
        listTopics: () => Promise.resolve(['orders']),
        fetchTopicOffsets: (topic: string) => {
          asked.push(topic);
          return Promise.resolve([{ partition: 0, offset: '4', high: '4', low: '0' }]);
        },
        fetchOffsets: () => Promise.resolve([]),
      },
      { scrapeAll: () => Promise.resolve([]), liveness: live },
      { take: () => ({ placed: 0, terminal: 0, e2eMs: [] }) },
      { prefix: '', groups: GROUPS, intervalMs: 1_000, historyPoints: 10 },
    );
    const sample = await sampler.sample();
    expect(asked).toEqual(['orders']);
    expect(sample.topics.orders?.high).toBe(4);
    expect(sample.topics.payments?.high).toBeNull();
  });

  it('stops without waiting for a sample that hangs (a broker away)', async () => {
    const sampler = new FlowSampler(
      {
        listTopics: () => new Promise<string[]>(() => undefined),
        fetchTopicOffsets: () => Promise.resolve([]),
        fetchOffsets: () => Promise.resolve([]),
      },
      { scrapeAll: () => Promise.resolve([]), liveness: live },
      { take: () => ({ placed: 0, terminal: 0, e2eMs: [] }) },
      { prefix: '', groups: GROUPS, intervalMs: 1_000, historyPoints: 10 },
    );
    sampler.start();
    await expect(sampler.stop(50)).resolves.toBeUndefined();
  });
});
