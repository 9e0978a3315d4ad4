import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DefaultGroups, type LoadConfig } from '../load-config';
import { LoadRun } from './load-run';
import { systemClock } from './scheduler';

// A stand-in order-service that accepts the first orders and never answers the rest: what a stop
// finds when the pipeline is slow.
describe('LoadRun stopped by its signal', () => {
  const held: ServerResponse[] = [];
  let answered = 0;
  const server = createServer((request, response) => {
    request.resume();
    if (answered < 3) {
      answered++;
      response.writeHead(202, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ orderId: `order-${answered}` }));
    } else held.push(response);
  });
  let baseUrl = '';

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('stops sending, cuts off the requests left unanswered and counts them as errors', async () => {
    const config: LoadConfig = {
      model: { kind: 'open', rate: 50, durationSeconds: 3600 },
      maxInFlight: 100,
      connections: 4,
      baseUrl,
      mix: { confirmed: 1, declined: 0, 'out-of-stock': 0 },
      customers: 10,
      seed: 1,
      traceRatio: 0,
      kafkaBrokers: ['127.0.0.1:9092'],
      topicPrefix: '',
      groups: DefaultGroups,
      lagIntervalMs: 1000,
      drainSeconds: 0,
      checkEmails: false,
      maildevUrl: 'http://127.0.0.1:1080',
    };
    const controller = new AbortController();
    const run = new LoadRun(config, systemClock, controller.signal);
    const running = run.run();
    while (held.length < 2) await systemClock.sleep(20);
    controller.abort();
    await running;
    await run.close();
    const totals = run.tracker.totals();
    expect(totals.placed).toBe(3);
    expect(run.inFlight).toBe(0);
    expect(totals.offered).toBe(
      totals.placed + totals.dropped + (totals.httpErrors['UND_ERR_DESTROYED'] ?? 0),
    );
    expect(totals.httpErrors['UND_ERR_DESTROYED']).toBeGreaterThanOrEqual(2);
  });
});
