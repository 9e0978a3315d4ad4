import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PipelineMetrics } from '@pipeline/observability';

// The SDK patches `http` when Fastify first requires it: start it before the app is imported.
const spans = new InMemorySpanExporter();
const sdk = new NodeSDK({
  spanProcessors: [new SimpleSpanProcessor({ exporter: spans })],
  instrumentations: [new HttpInstrumentation()],
  metricReaders: [],
  logRecordProcessors: [],
});
sdk.start();

let app: INestApplication;
let baseUrl: string;

beforeAll(async () => {
  const { startTestApp } = await import('./http-server.fixture');
  ({ app, baseUrl } = await startTestApp());
});

afterAll(async () => {
  await app?.close();
  await sdk.shutdown();
});

const post = (path: string, body: string, contentType = 'application/json') =>
  fetch(baseUrl + path, { method: 'POST', headers: { 'content-type': contentType }, body });

async function countOf(route: string, statusCode: string): Promise<number> {
  const { values } = await PipelineMetrics.httpRequests.get();
  return values
    .filter((value) => value.labels.route === route && value.labels.status_code === statusCode)
    .reduce((sum, value) => sum + value.value, 0);
}

describe('HTTP server (Fastify)', () => {
  it('answers JSON, names the server span after its route and returns its trace id', async () => {
    const response = await post('/things', '{"name":"a"}');
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ got: { name: 'a' } });
    const traceresponse = response.headers.get('traceresponse') ?? '';
    expect(traceresponse).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const [, traceId, spanId] = traceresponse.split('-');
    // The span ends when the response finished, which the client may see first.
    const server = await vi.waitFor(() => {
      const found = spans.getFinishedSpans().find((span) => span.spanContext().spanId === spanId);
      if (found === undefined) throw new Error(`span ${spanId} not finished yet`);
      return found;
    });
    expect(server.spanContext().traceId).toBe(traceId);
    expect(server.name).toBe('POST /things');
    expect(server.attributes['http.route']).toBe('/things');
  });

  it('answers a body over 64 KiB with 413 and malformed JSON with 400, as JSON, counted', async () => {
    const before = await countOf('/things', '413');
    const huge = await post('/things', JSON.stringify({ name: 'x'.repeat(65 * 1024) }));
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ statusCode: 413, message: expect.any(String) as string });
    expect(huge.headers.get('traceresponse')).toMatch(/^00-/);
    expect(await countOf('/things', '413')).toBe(before + 1);

    const malformed = await post('/things', '{"name": ');
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ statusCode: 400, message: expect.any(String) as string });
  });

  it('leaves a body that is not JSON unread (undefined), as Express did, instead of 415', async () => {
    const text = await post('/things', '{"name":"a"}', 'text/plain');
    expect(text.status).toBe(201);
    expect(await text.json()).toEqual({ got: null });
    const none = await fetch(`${baseUrl}/things`, { method: 'POST', body: new Uint8Array([123, 125]) });
    expect(await none.json()).toEqual({ got: null });
  });

  it('takes an empty body sent as JSON as no body (a DELETE with a content type), as Express did', async () => {
    const empty = await post('/things', '');
    expect(empty.status).toBe(201);
    expect(await empty.json()).toEqual({ got: null });
  });

  it('answers 503 with Retry-After when the database has no connection for the request', async () => {
    const response = await fetch(`${baseUrl}/things/busy`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.json()).toMatchObject({
      statusCode: 503,
      message: expect.stringMatching(/retry/) as string,
    });
  });

  it('routes as before: case-insensitive, trailing slash ignored, long parameters', async () => {
    expect(await (await fetch(`${baseUrl}/THINGS/Abc/`)).json()).toEqual({ id: 'Abc' });
    const long = 'S'.repeat(5_000);
    expect(await (await fetch(`${baseUrl}/things/${long}`)).json()).toEqual({ id: long });
  });

  it('counts a request no route took as unmatched', async () => {
    const before = await countOf('unmatched', '404');
    const response = await fetch(`${baseUrl}/nowhere/${Math.random()}`);
    expect(response.status).toBe(404);
    expect(await countOf('unmatched', '404')).toBe(before + 1);
  });
});
