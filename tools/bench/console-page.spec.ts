import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EventCounter, FlowPagePolls, FlowPageStream, OpenFlowPage, trafficBetween } from './console-page';

describe('EventCounter', () => {
  it('counts `event: orders` lines, also when a chunk splits one', () => {
    const counter = new EventCounter();
    counter.feed('retry: 2000\n\nevent: ord');
    counter.feed('ers\ndata: []\n\n: keep-alive\n\nevent: orders\ndata: [1]\n\n');
    expect(counter.events).toBe(2);
  });
});

describe('trafficBetween', () => {
  it('is what the page received between two readings', () => {
    const from = { streamEvents: 1, streamBytes: 10, pollsOk: 1, pollsFailed: 0 };
    const to = { streamEvents: 5, streamBytes: 70, pollsOk: 3, pollsFailed: 1 };
    expect(trafficBetween(from, to)).toEqual({
      streamEvents: 4,
      streamBytes: 60,
      pollsOk: 2,
      pollsFailed: 1,
    });
  });
});

describe('OpenFlowPage', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('polls what the live flow page polls', () => {
    expect(FlowPagePolls).toContainEqual({ path: '/flow/metrics', everyMs: 5_000 });
  });

  it('keeps the stream open and reads its events until closed', async () => {
    server = createServer((request, response) => {
      if (request.url !== FlowPageStream) return response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('retry: 2000\n\nevent: orders\ndata: []\n\n');
      setTimeout(() => response.write('event: orders\ndata: [2]\n\n'), 20);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const page = new OpenFlowPage(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    await page.open();
    for (let i = 0; i < 100 && page.traffic().streamEvents < 2; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(page.traffic().streamEvents).toBe(2);
    expect(page.traffic().streamBytes).toBeGreaterThan(0);
    await page.close();
    server.closeAllConnections();
  });

  it('says so when the console refuses the stream', async () => {
    server = createServer((_request, response) => response.writeHead(503).end());
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const page = new OpenFlowPage(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    await expect(page.open()).rejects.toThrow(`${FlowPageStream} answered 503`);
  });
});
