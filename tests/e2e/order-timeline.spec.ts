// GET /orders/:id lists the timeline in event-time order with each event's Kafka position, even
// when order-service processed the events in another order (they arrive on different topics).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EventHeaders,
  PaymentAuthorizedPayloadSchema,
  StockReservedPayloadSchema,
  Topics,
} from '@pipeline/contracts';
import { uniqueName } from '../support/kafka';
import { eventually } from '../support/processes';
import { header, OrderServiceUnderTest, type SentEvent } from './order-service.harness';

interface Entry {
  type: string;
  at: string;
  topic: string;
  partition: number | null;
  offset: string | null;
  eventId?: string;
}

interface OrderBody {
  status: string;
  timeline: Entry[];
}

const items = [{ sku: 'SKU-1', quantity: 2, unitPrice: '5.25' }];

const authorized = (orderId: string, time: Date): SentEvent & { time: Date } => ({
  topic: 'payments',
  type: 'payment.authorized',
  orderId,
  time,
  payload: PaymentAuthorizedPayloadSchema.parse({
    orderId,
    paymentId: randomUUID(),
    customerId: 'c',
    amount: '10.50',
    currency: 'EUR',
    items,
    authorizedAt: time.toISOString(),
  }),
});
const reserved = (orderId: string, time: Date): SentEvent & { time: Date } => ({
  topic: 'inventory',
  type: 'stock.reserved',
  orderId,
  time,
  payload: StockReservedPayloadSchema.parse({
    orderId,
    items: [{ sku: 'SKU-1', quantity: 2 }],
    reservedAt: time.toISOString(),
  }),
});

describe('order-service: GET /orders/:id timeline', () => {
  let svc: OrderServiceUnderTest;
  beforeAll(async () => {
    svc = await OrderServiceUnderTest.start('e2e.order.timeline');
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const order = async (orderId: string): Promise<OrderBody> =>
    (await svc.request<OrderBody>('GET', `/orders/${orderId}`)).body;
  /** The order once its timeline has `count` entries, each of them published (a position). */
  const orderPublished = (orderId: string, count: number) =>
    eventually(
      async () => {
        const body = await order(orderId);
        const done = body.timeline.length === count && body.timeline.every((e) => e.offset !== null);
        return done ? body : undefined;
      },
      { what: `${count} published timeline entries of ${orderId}` },
    );
  const place = async (): Promise<{ orderId: string; placedAt: number }> => {
    const answer = await svc.request<{ orderId: string }>('POST', '/orders', {
      customerId: uniqueName('timeline'),
      customerEmail: 'grace@example.com',
      items,
    });
    expect(answer.status).toBe(202);
    const { orderId } = answer.body;
    const [placed] = (await orderPublished(orderId, 1)).timeline;
    return { orderId, placedAt: Date.parse(placed!.at) };
  };
  /** Every entry order-service published matches its record on the orders topic. */
  const expectPositionsOfPublished = async (orderId: string, timeline: readonly Entry[]) => {
    const records = await svc.records(Topics.orders, orderId);
    const published = timeline.filter((entry) => entry.topic === Topics.orders);
    expect(published.map((entry) => entry.eventId).sort()).toEqual(
      records.map((record) => header(record, EventHeaders.id)).sort(),
    );
    for (const record of records) {
      expect(published.find((entry) => entry.eventId === header(record, EventHeaders.id))).toMatchObject({
        type: header(record, EventHeaders.type),
        partition: record.partition,
        offset: record.message.offset,
      });
    }
  };

  it('lists events in event-time order even when they were processed out of it, with their positions', async () => {
    const { orderId, placedAt } = await place();
    // payment.authorized happened after stock.reserved but is processed first: stock.reserved is
    // sent only once payment.authorized is on the timeline. Both times lie between the order's
    // placement and now (publishing order.placed took more than 2 ms).
    const payment = await svc.produce(authorized(orderId, new Date(placedAt + 2)));
    await eventually(async () => ((await order(orderId)).timeline.length === 2 ? true : undefined), {
      what: 'payment.authorized applied',
    });
    const stock = await svc.produce(reserved(orderId, new Date(placedAt + 1)));
    const body = await orderPublished(orderId, 4);

    expect(body.status).toBe('CONFIRMED');
    const processed = await svc.sql<{ type: string }>(
      'SELECT type FROM order_timeline WHERE order_id = $1 ORDER BY id',
      [orderId],
    );
    expect(processed.map((row) => row.type)).toEqual([
      'order.placed',
      'payment.authorized',
      'stock.reserved',
      'order.confirmed',
    ]);
    const [placed, stockEntry, paymentEntry, confirmed] = body.timeline;
    expect(body.timeline.map((entry) => entry.type)).toEqual([
      'order.placed',
      'stock.reserved',
      'payment.authorized',
      'order.confirmed',
    ]);
    const times = body.timeline.map((entry) => Date.parse(entry.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(stockEntry).toEqual({
      type: 'stock.reserved',
      at: new Date(placedAt + 1).toISOString(),
      topic: Topics.inventory,
      partition: stock.partition,
      offset: stock.offset,
      eventId: stock.id,
    });
    expect(paymentEntry).toEqual({
      type: 'payment.authorized',
      at: new Date(placedAt + 2).toISOString(),
      topic: Topics.payments,
      partition: payment.partition,
      offset: payment.offset,
      eventId: payment.id,
    });
    expect(placed).toMatchObject({ type: 'order.placed', topic: Topics.orders });
    expect(confirmed).toMatchObject({ type: 'order.confirmed', topic: Topics.orders });
    expect(Date.parse(confirmed!.at)).toBeGreaterThan(placedAt + 2);
    await expectPositionsOfPublished(orderId, body.timeline);
  });

  it('never lists an outcome before its cause, even when the cause is stamped ahead of our clock', async () => {
    const { orderId } = await place();
    // Inventory's clock a minute ahead: order.confirmed takes stock.reserved's time, and the tie
    // is broken by causal order.
    const ahead = new Date(Date.now() + 60_000);
    const stock = await svc.produce(reserved(orderId, ahead));
    const body = await orderPublished(orderId, 3);
    expect(body.timeline.map((entry) => [entry.type, entry.at])).toEqual([
      ['order.placed', expect.any(String)],
      ['stock.reserved', ahead.toISOString()],
      ['order.confirmed', ahead.toISOString()],
    ]);
    expect(body.timeline[1]).toMatchObject({ partition: stock.partition, offset: stock.offset });
    const [confirmed] = (await svc.records(Topics.orders, orderId)).filter(
      (record) => header(record, EventHeaders.type) === 'order.confirmed',
    );
    expect(header(confirmed!, EventHeaders.time)).toBe(ahead.toISOString());
    await expectPositionsOfPublished(orderId, body.timeline);
  });
});
