import { ServiceNames, type ServiceName } from '@pipeline/contracts';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConsoleConfig } from '../config';
import { FlowSampler } from '../flow/flow-sampler';
import type { InstanceLiveness, InstanceMetrics } from '../flow/service-metrics';
import { registerFlowPicture } from './flow-picture.page';

const CRASH_LOOP =
  'consumer group payment-service crash-looping: 12 crashes in 64000 ms without progress, last: boom';

const payment: InstanceMetrics = {
  service: 'payment',
  url: 'http://payment',
  up: true,
  error: undefined,
  eventsPerSecond: undefined,
  lag: [],
  outboxBacklog: 0,
  deadLetterDepth: 0,
  cpuSeconds: 1,
  rssBytes: 1,
  transactionEventsSum: undefined,
  transactionEventsCount: undefined,
  consumerRestarts: 4,
};

// The sampler behind the routes, on a broker whose payment group has lag and does not move, and
// a payment-service whose /health/live answers 503 for its crash loop.
describe('the flow picture’s routes', () => {
  let app: FastifyInstance;
  const asked: string[] = [];

  beforeAll(async () => {
    let high = 10;
    const sampler = new FlowSampler(
      {
        listTopics: () => Promise.resolve(['orders', 'payments', 'inventory']),
        fetchTopicOffsets: (topic) =>
          Promise.resolve([
            { partition: 0, offset: '0', low: '0', high: String(topic === 'orders' ? high : 0) },
          ]),
        fetchOffsets: ({ topics }) =>
          Promise.resolve(
            (topics ?? []).map((topic) => ({
              topic,
              partitions: [{ partition: 0, offset: '2', metadata: null }],
            })),
          ),
      },
      {
        scrapeAll: () => Promise.resolve([payment]),
        liveness: (url): Promise<InstanceLiveness> => {
          asked.push(url);
          return Promise.resolve({
            url,
            state: 'not-live',
            message: CRASH_LOOP,
            crashes: 12,
            stalledPartitions: [],
          });
        },
      },
      { take: () => ({ placed: 0, terminal: 0, e2eMs: [] }) },
      {
        prefix: '',
        groups: Object.fromEntries(ServiceNames.map((s) => [s, `${s}-service`])) as Record<
          ServiceName,
          string
        >,
        intervalMs: 5_000,
        historyPoints: 10,
      },
    );
    await sampler.sample();
    high = 20;
    await sampler.sample();
    app = Fastify();
    registerFlowPicture(app, { config: loadConsoleConfig({}), sampler });
    await app.ready();
  });
  afterAll(() => app.close());

  it('serves the stall’s reason in the series JSON, beside the charts’ columns', async () => {
    expect(asked).toEqual(['http://payment']);
    const response = await app.inject({ method: 'GET', url: '/flow/series' });
    const body = response.json<{
      points: number;
      picture: { services: Record<string, { states: string[]; stalledReason: string | null }> };
    }>();
    expect(body.points).toBe(2);
    expect(body.picture.services.payment).toEqual({ states: ['stalled'], stalledReason: CRASH_LOOP });
    expect(body.picture.services.order).toEqual({ states: [], stalledReason: null });
  });

  it('draws it in the picture', async () => {
    const svg = (await app.inject({ method: 'GET', url: '/flow/diagram' })).body;
    expect(svg).toContain(`data-stalled-reason="${CRASH_LOOP}"`);
    expect(svg).toContain('crash loop: 12 crashes');
  });
});
