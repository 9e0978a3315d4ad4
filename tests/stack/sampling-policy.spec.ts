// The tracing policy of docs/observability.md ("Sampling under load"), end to end against the
// local Zipkin, with the sampler the services run by default: an order placed by hand is traced;
// an order whose client sent an unsampled traceparent (what `npm run loadgen` sends for all but
// --trace-ratio of its orders) leaves nothing in Zipkin, not even order-service's group commit
// or email-service's SMTP send.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipelineUnderTest, SERVICES, Timelines, type PlacedOrder } from '../e2e/pipeline.harness';
import { eventually } from '../support/processes';
import { serviceOf, zipkinTrace, ZIPKIN_URL } from '../support/zipkin';

const ITEMS = [{ sku: 'SKU-APPLE', quantity: 1, unitPrice: '1.25' }];
/** Tags every span of this run (resource attributes become Zipkin tags), to query only ours. */
const RUN = `sampling-${randomBytes(4).toString('hex')}`;

let pipeline: PipelineUnderTest;

beforeAll(async () => {
  pipeline = await PipelineUnderTest.start('sampling', {
    OTEL_TRACES_EXPORTER: 'zipkin',
    OTEL_EXPORTER_ZIPKIN_ENDPOINT: `${ZIPKIN_URL}/api/v2/spans`,
    OTEL_BSP_SCHEDULE_DELAY: '200',
    OTEL_RESOURCE_ATTRIBUTES: `test.run=${RUN}`,
  });
});

afterAll(async () => {
  await pipeline?.stop();
});

/** Places an order and waits until the saga is over and its email sent: every span is written. */
async function settled(order: PlacedOrder): Promise<PlacedOrder> {
  await pipeline.orderThrough(order.orderId, Timelines.confirmed);
  await pipeline.deliveredEmails(order.recipient);
  return order;
}

/** The trace ids Zipkin holds for this run with a span of that name. */
async function tracesWithSpan(spanName: string): Promise<string[]> {
  const query = new URLSearchParams({ annotationQuery: `test.run=${RUN}`, spanName, lookback: '3600000' });
  const response = await fetch(`${ZIPKIN_URL}/api/v2/traces?${query.toString()}`);
  if (!response.ok) throw new Error(`Zipkin answered ${response.status}`);
  const traces = (await response.json()) as { traceId: string }[][];
  return traces.map((spans) => spans[0]?.traceId ?? '');
}

describe('tracing policy', () => {
  it('traces an order placed by hand and none of an order its client marked unsampled', async () => {
    const unsampledTrace = randomBytes(16).toString('hex');
    const traceparent = `00-${unsampledTrace}-${randomBytes(8).toString('hex')}-00`;
    // One after the other, so each is its own group commit.
    await settled(await pipeline.placeOrder('sampling-load', ITEMS, { traceparent }));
    const byHand = await settled(await pipeline.placeOrder('sampling-hand', ITEMS));

    // By hand: one whole trace across the five services, its group commit beside it.
    const handSpans = await eventually(
      async () => {
        const [traceId] = await tracesWithSpan('post /orders');
        const spans = traceId ? await zipkinTrace(traceId) : [];
        const smtp = spans.some((span) => span.name?.toLowerCase() === 'smtp send');
        return smtp && new Set(spans.map(serviceOf)).size === SERVICES.length ? spans : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, what: `the trace of order ${byHand.orderId}` },
    );
    expect(handSpans.some((span) => span.tags?.['messaging.kafka.message.key'] === byHand.orderId)).toBe(
      true,
    );
    const groupCommits = await eventually(
      async () => {
        const found = await tracesWithSpan('place-order group commit');
        return found.length > 0 ? found : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, what: 'the group commit of the order placed by hand' },
    );

    // Unsampled: the spans of the order by hand, written after it, are all in; none of it is.
    expect(await zipkinTrace(unsampledTrace)).toEqual([]);
    expect(await tracesWithSpan('post /orders')).toHaveLength(1);
    expect(groupCommits).toHaveLength(1);
    expect(await tracesWithSpan('smtp send')).toHaveLength(1);
  });
});
