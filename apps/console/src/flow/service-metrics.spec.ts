import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceNames, type ServiceName } from '@pipeline/contracts';
import { livenessFailureOf, ServiceMetrics } from './service-metrics';

/** Every service of the contracts (a fork adds its own) with no instance to scrape. */
const noInstances = () =>
  Object.fromEntries(ServiceNames.map((service) => [service, []])) as unknown as Record<
    ServiceName,
    string[]
  >;

/** Nest Terminus's 503 for a crash loop, as libs/service-kit's ConsumerHealthIndicator writes it. */
const CRASH_LOOP = {
  status: 'error',
  info: {},
  error: {
    progress: {
      status: 'down',
      message:
        'consumer group payment-service crash-looping: 12 crashes in 64000 ms without progress, last: undecodable record batch orders/0@0-2 (zstd)',
      stalled: [],
      crashLoop: {
        crashes: 12,
        loopingMs: 64_000,
        lastError: 'undecodable record batch orders/0@0-2 (zstd)',
      },
      assignment: { orders: [0] },
      stallTimeoutMs: 60_000,
    },
  },
  details: {},
};

// A stand-in service per path: the instance's answer is chosen by the first path segment.
describe('ServiceMetrics against a stand-in service', () => {
  let server: Server;
  let base = '';
  const hanging: ServerResponse[] = [];
  const answer = (request: IncomingMessage, response: ServerResponse) => {
    const [, instance, endpoint] = (request.url ?? '').split('/');
    if (endpoint === 'metrics') {
      response.end(
        [
          '# TYPE pipeline_consumer_restarts_total counter',
          'pipeline_consumer_restarts_total 3',
          'pipeline_events_processed_total 10',
        ].join('\n'),
      );
    } else if (instance === 'crashing') {
      response.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify(CRASH_LOOP));
    } else if (instance === 'live') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    } else if (instance === 'broken') {
      response.writeHead(500).end('oops');
    } else hanging.push(response);
  };

  beforeAll(async () => {
    server = createServer(answer);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const response of hanging) response.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('reads the consumer restarts from /metrics', async () => {
    const metrics = new ServiceMetrics({ ...noInstances(), payment: [`${base}/a`] });
    const [instance] = await metrics.scrapeAll();
    expect(instance).toMatchObject({ up: true, consumerRestarts: 3 });
  });

  it('reads /health/live: the 503’s reason, a pass, and no answer in time', async () => {
    const metrics = new ServiceMetrics(noInstances(), 100);
    await expect(metrics.liveness(`${base}/crashing`)).resolves.toEqual({
      url: `${base}/crashing`,
      state: 'not-live',
      message: CRASH_LOOP.error.progress.message,
      crashes: 12,
      stalledPartitions: [],
    });
    await expect(metrics.liveness(`${base}/live`)).resolves.toMatchObject({ state: 'live' });
    await expect(metrics.liveness(`${base}/broken`)).resolves.toMatchObject({
      state: 'unknown',
      message: 'answered 500',
    });
    const slow = await metrics.liveness(`${base}/hanging`);
    expect(slow.state).toBe('unknown');
    expect(slow.message).toMatch(/timeout|aborted/i);
  });
});

describe('livenessFailureOf', () => {
  it('names the stalled partitions and joins every failing check', () => {
    const body = {
      status: 'error',
      error: {
        progress: {
          status: 'down',
          message: 'no progress with lag on orders/1 (lag 7, 61000 ms)',
          stalled: [{ topic: 'orders', partition: 1, lag: 7, stalledMs: 61_000 }],
        },
        other: { status: 'down', message: 'second reason' },
        fine: { status: 'up', message: 'not a reason' },
      },
    };
    expect(livenessFailureOf(JSON.stringify(body))).toEqual({
      message: 'no progress with lag on orders/1 (lag 7, 61000 ms); second reason',
      crashes: undefined,
      stalledPartitions: ['orders/1'],
    });
  });

  it('says when a 503 gives no reason it can read', () => {
    for (const body of ['not json', '{}', '{"error":{"progress":{"message":42}}}'])
      expect(livenessFailureOf(body)).toEqual({
        message: 'answered 503 without a reason',
        crashes: undefined,
        stalledPartitions: [],
      });
  });
});
