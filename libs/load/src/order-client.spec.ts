import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTraceparent, OrderClient } from './order-client';

const order = { customerId: 'c1', customerEmail: 'c1@loadgen.test', items: [] };

describe('OrderClient', () => {
  let server: Server;
  let baseUrl: string;
  const bodies: unknown[] = [];
  const traceparents: (string | undefined)[] = [];
  const sockets = new Set<number>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        sockets.add(req.socket.remotePort ?? 0);
        const { traceparent } = req.headers;
        traceparents.push(typeof traceparent === 'string' ? traceparent : undefined);
        const body = JSON.parse(text) as { customerId: string };
        bodies.push(body);
        if (body.customerId === 'slow') return; // never answers: the client's timeout
        if (body.customerId === 'busy') {
          res.writeHead(503).end('{}');
          return;
        }
        res.writeHead(202, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body.customerId === 'odd' ? {} : { orderId: `o-${bodies.length}` }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('posts JSON to /orders and reads the order id of a 202, reusing its connections', async () => {
    const client = new OrderClient(baseUrl, { connections: 2, timeoutMs: 5000 });
    sockets.clear();
    const results = await Promise.all(Array.from({ length: 20 }, () => client.post(order)));
    await client.close();
    expect(results.every((r) => r.ok && r.orderId.startsWith('o-'))).toBe(true);
    expect(bodies.at(-1)).toEqual(order);
    expect(sockets.size).toBeLessThanOrEqual(2);
  });

  it('reports other statuses, a 202 without an id, a timeout and a refused connection', async () => {
    const client = new OrderClient(baseUrl, { connections: 4, timeoutMs: 300 });
    const post = (customerId: string) => client.post({ ...order, customerId });
    expect(await post('busy')).toEqual({ ok: false, status: '503' });
    expect(await post('odd')).toEqual({ ok: false, status: '202-without-orderId' });
    expect(await post('slow')).toEqual({ ok: false, status: 'timeout' });
    await client.close();
    const closed = new OrderClient('http://127.0.0.1:1', { connections: 1, timeoutMs: 300 });
    expect(await closed.post(order)).toEqual({ ok: false, status: 'ECONNREFUSED' });
    await closed.close();
  });

  it('sends no traceparent without a trace ratio, so the stack samples as it is configured', async () => {
    const client = new OrderClient(baseUrl, { connections: 1, timeoutMs: 5000 });
    traceparents.length = 0;
    await client.post(order);
    await client.close();
    expect(traceparents).toEqual([undefined]);
  });

  it('starts a new trace per order, sampled for the ratio it was given', async () => {
    const sampled = (ratio: number) => async () => {
      const client = new OrderClient(baseUrl, { connections: 2, timeoutMs: 5000, traceRatio: ratio });
      traceparents.length = 0;
      await Promise.all(Array.from({ length: 10 }, () => client.post(order)));
      await client.close();
      return [...traceparents];
    };
    const all = await sampled(1)();
    const none = await sampled(0)();
    const format = /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/;
    expect([...all, ...none].every((header) => header !== undefined && format.test(header))).toBe(true);
    expect(all.every((header) => header?.endsWith('-01'))).toBe(true);
    expect(none.every((header) => header?.endsWith('-00'))).toBe(true);
    expect(new Set(all.map((header) => header?.slice(3, 35))).size).toBe(10);
    expect(() => new OrderClient(baseUrl, { connections: 1, timeoutMs: 1, traceRatio: 1.5 })).toThrow(
      RangeError,
    );
  });

  it('writes a W3C traceparent with the sampled flag asked for', () => {
    expect(newTraceparent(true)).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(newTraceparent(false)).toMatch(/-00$/);
  });
});
