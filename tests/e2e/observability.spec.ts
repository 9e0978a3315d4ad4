// Issue 5 end to end: one order is one trace across the five services (read back from the local
// Zipkin server), every service's /metrics tells what happened, and a dead letter shows up in the
// WARN log line of its trace and in the dead-letter counter.
import { randomUUID } from 'node:crypto';
import { deadLetterTopic, Topics, encodeHeaders, metadataOf } from '@pipeline/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/processes';
import { scrape, series, sum, type Sample } from '../support/prometheus';
import type { ServiceName } from '../support/service-harness';
import { newTraceparent, serviceOf, zipkinTrace, ZIPKIN_URL, type ZipkinSpan } from '../support/zipkin';
import { SERVICES, Timelines, PipelineUnderTest, type PlacedOrder } from './pipeline.harness';

const ITEMS = [{ sku: 'SKU-APPLE', quantity: 1, unitPrice: '1.25' }];

let pipeline: PipelineUnderTest;
const placed: PlacedOrder[] = [];
const client = newTraceparent();

beforeAll(async () => {
  pipeline = await PipelineUnderTest.start('observability', {
    OTEL_TRACES_EXPORTER: 'zipkin',
    OTEL_EXPORTER_ZIPKIN_ENDPOINT: `${ZIPKIN_URL}/api/v2/spans`,
    OTEL_BSP_SCHEDULE_DELAY: '200',
  });
  // The first order continues a trace the "client" started, so the test knows its trace id.
  // It goes through alone: a batch's shared Postgres statements are recorded in the trace of its
  // first sampled event (docs/observability.md), so a batch mate could take them.
  const settled = async (order: PlacedOrder) => {
    await pipeline.orderThrough(order.orderId, Timelines.confirmed);
    await pipeline.deliveredEmails(order.recipient);
    await pipeline.countedWindows(order.customerId, 'confirmed');
  };
  placed.push(await pipeline.placeOrder('obs-traced', ITEMS, { traceparent: client.traceparent }));
  await settled(placed[0]!);
  placed.push(await pipeline.placeOrder('obs-a', ITEMS), await pipeline.placeOrder('obs-b', ITEMS));
  for (const order of placed.slice(1)) await settled(order);
});

afterAll(async () => {
  await pipeline?.stop();
});

const span = (spans: readonly ZipkinSpan[], id: string) => spans.find((s) => s.id === id);

/** A span that ended with an error: an attempt the pipeline repeated (a send, a process). */
const failed = (s: ZipkinSpan) => s.tags?.['otel.status_code'] === 'ERROR';

/**
 * The one span that is a child of `parent`, matches and succeeded: the next hop of the causal
 * chain. Failed attempts beside it are allowed (the relay repeats a failed send, the consumer a
 * failed process, each attempt its own span) and reported with their error.
 */
function hop(
  spans: readonly ZipkinSpan[],
  parent: ZipkinSpan | { id: string },
  match: { service: string; kind: ZipkinSpan['kind']; eventType?: string; name?: string },
): ZipkinSpan {
  const matching = spans.filter(
    (s) =>
      s.parentId === parent.id &&
      serviceOf(s) === match.service &&
      s.kind === match.kind &&
      (match.eventType === undefined || s.tags?.['cloudevents.event_type'] === match.eventType) &&
      (match.name === undefined || s.name?.toLowerCase() === match.name.toLowerCase()),
  );
  const what = `${match.kind} span of ${match.service} ${match.eventType ?? match.name ?? ''} under ${parent.id}`;
  for (const attempt of matching.filter(failed)) {
    console.info(`${what}: a failed attempt, repeated: ${attempt.tags?.['error'] ?? '(no message)'}`);
  }
  const found = matching.filter((s) => !failed(s));
  expect(found, what).toHaveLength(1);
  return found[0]!;
}

describe('tracing', () => {
  it('makes one order one trace: HTTP → outbox publish → consume → ... → email send and analytics, parent-linked', async () => {
    const topic = (name: string) => pipeline.prefix + name;
    // Spans arrive in batches from five processes: wait until the last hops are there.
    const spans = await eventually(
      async () => {
        const found = await zipkinTrace(client.traceId);
        const smtp = found.some((s) => s.name?.toLowerCase() === 'smtp send');
        const analytics = found.filter((s) => serviceOf(s) === 'analytics-service' && s.kind === 'CONSUMER');
        return smtp && analytics.length >= 2 ? found : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, what: `trace ${client.traceId} in Zipkin` },
    );

    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([client.traceId]));
    expect(new Set(spans.map(serviceOf))).toEqual(new Set(SERVICES.map((name) => `${name}-service`)));

    const http = hop(spans, { id: client.spanId }, { service: 'order-service', kind: 'SERVER' });
    expect(http.tags?.['http.route']).toBe('/orders');
    const placedSend = hop(spans, http, {
      service: 'order-service',
      kind: 'PRODUCER',
      eventType: 'order.placed',
    });
    expect(placedSend.name?.toLowerCase()).toBe(`send ${topic(Topics.orders)}`);
    expect(placedSend.tags).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.destination.name': topic(Topics.orders),
      'messaging.operation.type': 'send',
      'messaging.kafka.message.key': placed[0]!.orderId,
    });

    const payment = hop(spans, placedSend, { service: 'payment-service', kind: 'CONSUMER' });
    expect(payment.name?.toLowerCase()).toBe(`process ${topic(Topics.orders)}`);
    expect(payment.tags).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.operation.type': 'process',
      'messaging.destination.name': topic(Topics.orders),
      'messaging.consumer.group.name': pipeline.service('payment').group,
      'messaging.message.id': expect.any(String) as string,
      'messaging.destination.partition.id': expect.stringMatching(/^\d+$/) as string,
      'messaging.kafka.offset': expect.stringMatching(/^\d+$/) as string,
    });
    const authorized = hop(spans, payment, {
      service: 'payment-service',
      kind: 'PRODUCER',
      eventType: 'payment.authorized',
    });
    const inventory = hop(spans, authorized, { service: 'inventory-service', kind: 'CONSUMER' });
    hop(spans, authorized, { service: 'order-service', kind: 'CONSUMER' }); // the timeline entry
    const reserved = hop(spans, inventory, {
      service: 'inventory-service',
      kind: 'PRODUCER',
      eventType: 'stock.reserved',
    });
    const confirm = hop(spans, reserved, { service: 'order-service', kind: 'CONSUMER' });
    const confirmed = hop(spans, confirm, {
      service: 'order-service',
      kind: 'PRODUCER',
      eventType: 'order.confirmed',
    });
    const email = hop(spans, confirmed, { service: 'email-service', kind: 'CONSUMER' });
    hop(spans, email, { service: 'email-service', kind: 'CLIENT', name: 'smtp send' });
    hop(spans, confirmed, { service: 'analytics-service', kind: 'CONSUMER' });
    hop(spans, placedSend, { service: 'analytics-service', kind: 'CONSUMER' });

    // Postgres spans (instrumentation-pg) inside every service's part of the trace.
    const database = spans.filter(
      (s) => s.tags?.['db.system'] === 'postgresql' || s.tags?.['db.system.name'] === 'postgresql',
    );
    expect(new Set(database.map(serviceOf))).toEqual(new Set(SERVICES.map((name) => `${name}-service`)));
    for (const query of database) expect(span(spans, query.parentId ?? '')).toBeDefined();
  });
});

describe('metrics', () => {
  const orders = () => placed.length;
  const metricsOf = (name: ServiceName) => scrape(pipeline.service(name).baseUrl);

  it('counts the events each service processed: one per order and hop', async () => {
    const expected: Partial<Record<ServiceName, Record<string, number>>> = {
      order: { 'payment.authorized': orders(), 'stock.reserved': orders() },
      payment: { 'order.placed': orders() },
      inventory: { 'payment.authorized': orders() },
      email: { 'order.confirmed': orders() },
      analytics: { 'order.placed': orders(), 'order.confirmed': orders() },
    };
    for (const name of SERVICES) {
      const samples = await metricsOf(name);
      for (const [type, count] of Object.entries(expected[name] ?? {})) {
        expect(sum(samples, 'pipeline_events_processed_total', { type }), `${name} ${type}`).toBe(count);
        // One observation per handler call: batches share one, so between 1 and one per event.
        const calls = sum(samples, 'pipeline_event_handler_duration_seconds_count', { type });
        expect(calls, `${name} ${type}`).toBeGreaterThanOrEqual(1);
        expect(calls, `${name} ${type}`).toBeLessThanOrEqual(count);
      }
      expect(sum(samples, 'pipeline_events_dead_lettered_total')).toBe(0);
      expect(sum(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);
      expect(
        series(samples, 'pipeline_events_processed_total').every(
          (s) => s.labels['service'] === `${name}-service`,
        ),
      ).toBe(true);
    }
  });

  it('brings consumer lag and the outbox back to 0, and measures the relay', async () => {
    for (const name of SERVICES) {
      let last: Sample[] = [];
      const samples = await eventually(
        async () => {
          const found = await metricsOf(name);
          last = found;
          const lag = series(found, 'pipeline_consumer_lag');
          const drained = lag.length > 0 && lag.every((s) => s.value === 0);
          return drained && sum(found, 'pipeline_outbox_backlog_events') === 0 ? found : undefined;
        },
        { timeoutMs: 30_000, what: `${name}-service lag and outbox at 0` },
      ).catch((error: unknown) => {
        const gauges = last.filter((s) => /consumer_lag|outbox_backlog/.test(s.name));
        throw new Error(`${String(error)}; last: ${JSON.stringify(gauges)}`);
      });
      const lagTopics = new Set(series(samples, 'pipeline_consumer_lag').map((s) => s.labels['topic']));
      expect([...lagTopics].sort()).toEqual([...pipeline.consumed(name)].sort());
      expect(sum(samples, 'pipeline_outbox_oldest_event_age_seconds')).toBe(0);
    }
    const order = await metricsOf('order');
    // order.placed and order.confirmed per order, in batches whose latency is measured.
    expect(sum(order, 'pipeline_outbox_relay_published_total', { topic: Topics.orders })).toBe(2 * orders());
    expect(sum(order, 'pipeline_outbox_relay_batch_events_sum')).toBe(2 * orders());
    expect(sum(order, 'pipeline_outbox_relay_publish_duration_seconds_count')).toBeGreaterThan(0);
  });

  it('records the saga outcomes, their end-to-end duration and the HTTP requests', async () => {
    const order = await metricsOf('order');
    expect(sum(order, 'orders_completed_total', { outcome: 'confirmed' })).toBe(orders());
    expect(sum(order, 'order_end_to_end_duration_seconds_count', { outcome: 'confirmed' })).toBe(orders());
    expect(sum(order, 'order_end_to_end_duration_seconds_sum', { outcome: 'confirmed' })).toBeGreaterThan(0);
    const posts = { method: 'POST', route: '/orders', status_code: '202' };
    expect(sum(order, 'http_server_requests_total', posts)).toBe(orders());
    expect(sum(order, 'http_server_request_duration_seconds_count', posts)).toBe(orders());

    const bad = await fetch(pipeline.url('order', '/orders'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"customerId":',
    });
    expect(bad.status).toBe(400);
    const after = await metricsOf('order');
    expect(sum(after, 'http_server_requests_total', { method: 'POST', status_code: '400' })).toBe(1);
  });

  it('counts a redelivered event as a dedupe hit, not as processed', async () => {
    const [record] = await pipeline.records(Topics.orders, new Set([placed[1]!.orderId]));
    expect(record).toBeDefined();
    await pipeline.producer.send({
      topic: pipeline.prefix + Topics.orders,
      messages: [{ key: record!.key, value: record!.value, headers: record!.headers ?? {} }],
    });
    const samples = await eventually(
      async () => {
        const found = await metricsOf('payment');
        return sum(found, 'pipeline_events_deduplicated_total', { type: 'order.placed' }) === 1
          ? found
          : undefined;
      },
      { what: 'payment-service dedupe hit' },
    );
    expect(sum(samples, 'pipeline_events_processed_total', { type: 'order.placed' })).toBe(orders());
  });
});

describe('dead letters', () => {
  it('logs a dead letter at WARN with its trace id and counts it', async () => {
    const poison = newTraceparent();
    const orderId = randomUUID();
    const metadata = metadataOf(
      { topic: Topics.orders, key: orderId, type: 'order.placed', payload: {}, correlationId: orderId },
      'test-producer',
      { traceparent: poison.traceparent },
    );
    await pipeline.producer.send({
      topic: pipeline.prefix + Topics.orders,
      acks: -1,
      messages: [{ key: orderId, value: JSON.stringify({ orderId }), headers: encodeHeaders(metadata) }],
    });

    const payment = pipeline.service('payment');
    const line = await eventually(
      async () =>
        Promise.resolve(
          logLines(payment.process.output()).find(
            (entry) => entry['trace_id'] === poison.traceId && /dead letter/.test(String(entry['msg'])),
          ),
        ),
      { what: 'the dead letter in payment-service log' },
    );
    expect(line).toMatchObject({
      level: 'warn',
      service: 'payment-service',
      event_id: metadata.id,
      event_type: 'order.placed',
      order_id: orderId,
    });
    expect(line['span_id']).toEqual(expect.stringMatching(/^[0-9a-f]{16}$/));

    const samples: Sample[] = await eventually(
      async () => {
        const found = await scrape(payment.baseUrl);
        return sum(found, 'pipeline_dead_letter_topic_records') >= 1 ? found : undefined;
      },
      { what: 'payment-service dead-letter depth' },
    );
    expect(
      sum(samples, 'pipeline_events_dead_lettered_total', { type: 'order.placed', error_class: 'fatal' }),
    ).toBe(1);
    expect(
      sum(samples, 'pipeline_dead_letter_topic_records', {
        topic: pipeline.prefix + deadLetterTopic('payment'),
      }),
    ).toBe(1);
  });
});

/** The JSON log lines of a process's output. */
function logLines(output: string): Record<string, unknown>[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
