import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventHeaders, OrderPlacedPayloadSchema, Topics } from '@pipeline/contracts';
import { uniqueName } from '../support/kafka';
import { eventually } from '../support/processes';
import { header, OrderServiceUnderTest } from './order-service.harness';

interface Placed {
  orderId: string;
  status: string;
}
interface Issues {
  issues: { field: string }[];
}
interface OrderBody {
  orderId: string;
  status: string;
  reason: string | null;
  total: string;
  currency: string;
  items: { sku: string; quantity: number; unitPrice: string }[];
  timeline: { type: string; at: string }[];
  createdAt: string;
  updatedAt: string;
}
interface Page {
  items: { orderId: string; createdAt: string }[];
  nextCursor: string | null;
}

const orderFor = (customerId: string) => ({
  customerId,
  customerEmail: 'ada@example.com',
  items: [
    { sku: 'SKU-1', quantity: 3, unitPrice: 19.99 },
    { sku: 'SKU-2', quantity: 1, unitPrice: '0.1' },
  ],
});

describe('order-service HTTP: place, read, list', () => {
  let svc: OrderServiceUnderTest;
  beforeAll(async () => {
    svc = await OrderServiceUnderTest.start('e2e.order.http');
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const fields = (answer: { body: unknown }) =>
    (answer.body as Issues).issues.map((issue) => issue.field).sort();

  it('places an order: 202, stored PENDING with its timeline, order.placed on the orders topic', async () => {
    const customerId = uniqueName('cust');
    const placed = await svc.request<Placed>('POST', '/orders', orderFor(customerId));
    expect(placed.status).toBe(202);
    expect(placed.body).toEqual({ orderId: expect.any(String) as string, status: 'PENDING' });
    const { orderId } = placed.body;

    const order = await svc.request<OrderBody>('GET', `/orders/${orderId}`);
    expect(order.status).toBe(200);
    expect(order.body).toMatchObject({
      orderId,
      customerId,
      customerEmail: 'ada@example.com',
      status: 'PENDING',
      reason: null,
      total: '60.07',
      currency: 'EUR',
      items: [
        { sku: 'SKU-1', quantity: 3, unitPrice: '19.99' },
        { sku: 'SKU-2', quantity: 1, unitPrice: '0.10' },
      ],
    });
    expect(order.body.timeline.map((entry) => entry.type)).toEqual(['order.placed']);
    expect(new Date(order.body.createdAt).toISOString()).toBe(order.body.createdAt);

    const [record, ...more] = await eventually(
      async () => {
        const found = await svc.records(Topics.orders, orderId);
        return found.length > 0 ? found : undefined;
      },
      { what: 'order.placed on the orders topic' },
    );
    expect(more).toHaveLength(0);
    expect(header(record!, EventHeaders.type)).toBe('order.placed');
    expect(header(record!, EventHeaders.source)).toBe('order-service');
    expect(header(record!, EventHeaders.correlationId)).toBe(orderId);
    const payload = OrderPlacedPayloadSchema.parse(record!.payload);
    expect(payload).toMatchObject({
      orderId,
      customerId,
      total: '60.07',
      currency: 'EUR',
      items: order.body.items,
    });
    expect(payload.placedAt).toBe(order.body.createdAt);
  });

  it('same Idempotency-Key and body: the same order (200), one row, one event; another body: 409', async () => {
    const customerId = uniqueName('idem');
    const key = uniqueName('key');
    const first = await svc.request<Placed>('POST', '/orders', orderFor(customerId), {
      'Idempotency-Key': key,
    });
    expect(first.status).toBe(202);
    // The same order written differently (field order, price as a string) is the same request.
    const same = {
      items: [
        { unitPrice: '19.99', quantity: 3, sku: 'SKU-1' },
        { sku: 'SKU-2', quantity: 1, unitPrice: '0.10' },
      ],
      customerEmail: 'ada@example.com',
      customerId,
      currency: 'EUR',
    };
    const again = await svc.request<Placed>('POST', '/orders', same, { 'Idempotency-Key': key });
    expect(again).toEqual({ status: 200, body: { orderId: first.body.orderId, status: 'PENDING' } });

    const other = await svc.request<{ message: string }>(
      'POST',
      '/orders',
      { ...orderFor(customerId), currency: 'USD' },
      { 'Idempotency-Key': key },
    );
    expect(other.status).toBe(409);
    expect(other.body.message).toMatch(/already used .* different request body/);

    expect(await svc.sql('SELECT id FROM orders WHERE customer_id = $1', [customerId])).toHaveLength(1);
    await svc.outboxDrained();
    expect(await svc.records(Topics.orders, first.body.orderId)).toHaveLength(1);
  });

  it('10 concurrent identical requests with one Idempotency-Key make one order', async () => {
    const customerId = uniqueName('race');
    const key = uniqueName('key');
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        svc.request<Placed>('POST', '/orders', orderFor(customerId), { 'Idempotency-Key': key }),
      ),
    );
    const ids = new Set(answers.map((answer) => answer.body.orderId));
    expect(ids.size).toBe(1);
    expect(answers.map((answer) => answer.status).sort()).toEqual([
      200, 200, 200, 200, 200, 200, 200, 200, 200, 202,
    ]);
    expect(await svc.sql('SELECT id FROM orders WHERE customer_id = $1', [customerId])).toHaveLength(1);
    await svc.outboxDrained();
    expect(await svc.records(Topics.orders, [...ids][0]!)).toHaveLength(1);
  });

  it('answers 400 naming every offending field, and 413 over 64 KiB', async () => {
    const bad = await svc.request('POST', '/orders', {
      customerId: '',
      customerEmail: 'nope',
      items: [{ sku: 'A', quantity: 0, unitPrice: '1.001' }],
      currency: 'eur',
    });
    expect(bad.status).toBe(400);
    expect(fields(bad)).toEqual([
      'currency',
      'customerEmail',
      'customerId',
      'items.0.quantity',
      'items.0.unitPrice',
    ]);

    const badKey = await svc.request('POST', '/orders', orderFor('c'), {
      'Idempotency-Key': 'k'.repeat(201),
    });
    expect(badKey.status).toBe(400);
    expect(fields(badKey)).toEqual(['Idempotency-Key']);

    const huge = { ...orderFor('c'), items: [{ sku: 'x'.repeat(70 * 1024), quantity: 1, unitPrice: '1' }] };
    expect((await svc.request('POST', '/orders', huge)).status).toBe(413);
  });

  it('GET /orders/:id: 404 for an unknown id, 400 for a malformed one', async () => {
    expect((await svc.request('GET', '/orders/1b4e28ba-2fa1-41d2-883f-0016d3cca427')).status).toBe(404);
    const malformed = await svc.request('GET', '/orders/not-a-uuid');
    expect(malformed.status).toBe(400);
    expect(fields(malformed)).toEqual(['id']);
  });

  it('lists a customer’s orders newest first, page by page with a cursor', async () => {
    const customerId = uniqueName('list');
    const placed: string[] = [];
    for (let i = 0; i < 5; i++)
      placed.push((await svc.request<Placed>('POST', '/orders', orderFor(customerId))).body.orderId);

    const seen: { orderId: string; createdAt: string }[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `/orders?customerId=${customerId}&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await svc.request<Page>('GET', query);
      expect(page.status).toBe(200);
      sizes.push(page.body.items.length);
      seen.push(...page.body.items);
      cursor = page.body.nextCursor;
    } while (cursor !== null && sizes.length < 10);
    expect(sizes).toEqual([2, 2, 1]);
    expect(seen.map((item) => item.orderId).sort()).toEqual([...placed].sort());
    // Newest first; orders of the same millisecond by id, descending.
    const newestFirst = [...seen].sort((a, b) =>
      a.createdAt === b.createdAt ? (a.orderId < b.orderId ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1,
    );
    expect(seen).toEqual(newestFirst);

    const pending = await svc.request<Page>('GET', `/orders?customerId=${customerId}&status=PENDING`);
    expect(pending.body.items).toHaveLength(5);
    expect(
      (await svc.request<Page>('GET', `/orders?customerId=${customerId}&status=CONFIRMED`)).body.items,
    ).toHaveLength(0);

    const bad = await svc.request('GET', '/orders?limit=101&status=SHIPPED&cursor=nope');
    expect(bad.status).toBe(400);
    expect(fields(bad)).toEqual(['cursor', 'limit', 'status']);
  });
});
