import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findEmails, sampledTraceId, traceUrl } from './links';

describe('sampledTraceId', () => {
  it('reads the trace id of a sampled traceparent only', () => {
    const id = '4bf92f3577b34da6a3ce929d0e0e4736';
    expect(sampledTraceId(`00-${id}-00f067aa0ba902b7-01`)).toBe(id);
    expect(sampledTraceId(`00-${id}-00f067aa0ba902b7-00`)).toBeUndefined();
    expect(sampledTraceId('garbage')).toBeUndefined();
    expect(sampledTraceId(undefined)).toBeUndefined();
  });

  it('links Zipkin or Jaeger', () => {
    expect(traceUrl({ kind: 'zipkin', apiUrl: 'x', publicUrl: 'http://z:9411' }, 'abc')).toBe(
      'http://z:9411/zipkin/traces/abc',
    );
    expect(traceUrl({ kind: 'jaeger', apiUrl: 'x', publicUrl: 'http://j:16686' }, 'abc')).toBe(
      'http://j:16686/trace/abc',
    );
  });
});

// The mail UIs' list APIs, answered by a stand-in (the real maildev is covered by the browser test).
describe('findEmails', () => {
  let server: Server;
  let url = '';
  beforeAll(async () => {
    server = createServer((request, response) => {
      response.setHeader('content-type', 'application/json');
      if (request.url === '/api/v1/messages?limit=1000') {
        response.end(
          JSON.stringify({
            messages: [
              {
                ID: 'mp-1',
                MessageID: 'e1@order-pipeline.local',
                Subject: 'Your order 1 is confirmed',
                To: [{ Address: 'a@x.test' }],
              },
              { ID: 'mp-2', MessageID: 'other@elsewhere', Subject: 'unrelated', To: [] },
            ],
          }),
        );
      } else if (request.url === '/api/email') {
        response.end(
          JSON.stringify([
            {
              id: 'md-1',
              subject: 'Your order 1 is confirmed',
              to: [{ address: 'a@x.test' }],
              headers: { 'message-id': '<e1@order-pipeline.local>' },
            },
          ]),
        );
      } else response.writeHead(404).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server.close());

  it('finds the email by Message-ID in Mailpit and links its page', async () => {
    const emails = await findEmails({ kind: 'mailpit', apiUrl: url, publicUrl: 'http://localhost:1080' }, [
      '<e1@order-pipeline.local>',
    ]);
    expect(emails).toEqual([
      {
        subject: 'Your order 1 is confirmed',
        to: 'a@x.test',
        messageId: '<e1@order-pipeline.local>',
        url: 'http://localhost:1080/view/mp-1',
      },
    ]);
  });

  it('finds it in maildev and links its page', async () => {
    const emails = await findEmails({ kind: 'maildev', apiUrl: url, publicUrl: 'http://127.0.0.1:1080' }, [
      '<e1@order-pipeline.local>',
    ]);
    expect(emails.map((e) => e.url)).toEqual(['http://127.0.0.1:1080/#/email/md-1']);
  });
});
