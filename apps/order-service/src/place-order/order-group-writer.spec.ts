import { randomBytes } from 'node:crypto';
import { ROOT_CONTEXT, TraceFlags, context, trace, type Span } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import type pg from 'pg';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { samplerFromEnv } from '@pipeline/observability';
import { writeOrderGroup } from './order-group-writer';
import { pendingOrder, type PendingOrder } from './pending-order';

// The services' own sampler (parent-based, following links), and spans kept in memory.
const spans = new InMemorySpanExporter();
const exported = new SimpleSpanProcessor({ exporter: spans });
const sdk = new NodeSDK({
  sampler: samplerFromEnv({}),
  spanProcessors: [exported],
  instrumentations: [],
  metricReaders: [],
  logRecordProcessors: [],
});
sdk.start();

afterAll(() => sdk.shutdown());
beforeEach(() => spans.reset());

/** A connection that answers every statement and records the span active when it was sent. */
function recordingPool(): { pool: pg.Pool; statements: { text: string; span: Span | undefined }[] } {
  const statements: { text: string; span: Span | undefined }[] = [];
  const client = {
    query: (statement: string | pg.QueryConfig) => {
      const text = typeof statement === 'string' ? statement : statement.text;
      statements.push({ text, span: trace.getSpan(context.active()) });
      return Promise.resolve({ rows: [], rowCount: 1 });
    },
    release: () => undefined,
    on: () => undefined,
    off: () => undefined,
  };
  return { pool: { connect: () => Promise.resolve(client) } as unknown as pg.Pool, statements };
}

const REQUEST = {
  customerId: 'customer-1',
  customerEmail: 'customer@example.com',
  items: [{ sku: 'SKU-APPLE', quantity: 1, unitPrice: '1.25' }],
  currency: 'EUR',
};

/** An order as POST /orders hands it over (pendingOrder), from a request sampled or not. */
function orderOfRequest(sampled: boolean): PendingOrder {
  const request = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: randomBytes(16).toString('hex'),
    spanId: randomBytes(8).toString('hex'),
    traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
  });
  return context.with(request, () => pendingOrder(REQUEST));
}

/** Written as the group commit writes: from the first request's context (its setImmediate). */
const written = (pool: pg.Pool, orders: readonly PendingOrder[]) =>
  context.with(trace.setSpanContext(ROOT_CONTEXT, orders[0]!.spanContext!), () =>
    writeOrderGroup(pool, orders),
  );

describe('writeOrderGroup and tracing', () => {
  it('writes a group none of whose requests is sampled outside any trace, so the pg instrumentation skips its statements', async () => {
    const { pool, statements } = recordingPool();

    await written(pool, [orderOfRequest(false), orderOfRequest(false)]);
    await exported.forceFlush();

    expect(statements.map((statement) => statement.text.split(/\s/)[0])).toEqual([
      'BEGIN',
      'WITH',
      'INSERT',
      'COMMIT',
    ]);
    // requireParentSpan: no active span, no pg span, not even a non-recording one.
    expect(statements.filter((statement) => statement.span !== undefined)).toEqual([]);
    expect(spans.getFinishedSpans()).toEqual([]);
  });

  it('runs the statements of a group with one sampled request in its span, linked to each request', async () => {
    const { pool, statements } = recordingPool();
    const orders = [orderOfRequest(false), orderOfRequest(true)];

    await written(pool, orders);
    // The export waits for the resource's attributes (NodeSDK's detectors).
    await exported.forceFlush();

    const [group] = spans.getFinishedSpans();
    expect(group?.name).toBe('place-order group commit');
    expect(group?.parentSpanContext).toBeUndefined();
    expect(group?.links.map((link) => link.context.spanId)).toEqual(
      orders.map((order) => order.spanContext!.spanId),
    );
    expect(statements).toHaveLength(4);
    for (const statement of statements)
      expect(statement.span?.spanContext().spanId).toBe(group?.spanContext().spanId);
  });
});
