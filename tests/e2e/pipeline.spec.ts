import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { EventHeaders, Topics, headerValue } from '@pipeline/contracts';
import { caughtUp } from '../support/events';
import { uniqueName } from '../support/kafka';
import { PipelineUnderTest, Timelines, totals, WINDOW_MS, type WindowView } from './pipeline.harness';

const windowOf = (time: string): string =>
  new Date(Math.floor(Date.parse(time) / WINDOW_MS) * WINDOW_MS).toISOString();

// The three saga outcomes through HTTP only: each test its own customer, recipient and SKUs, so
// the scenarios run concurrently against one running pipeline.
describe.concurrent('the order pipeline end to end', () => {
  let pipeline: PipelineUnderTest;

  beforeAll(async () => {
    pipeline = await PipelineUnderTest.start('e2e.pipeline');
  });

  afterAll(() => pipeline?.stop());

  it('confirms an order for stocked items: timeline, one email, its analytics window, the reservation', async ({
    expect,
  }) => {
    const [apple, banana] = await Promise.all([pipeline.stock('SKU-APPLE'), pipeline.stock('SKU-BANANA')]);
    const { orderId, customerId, recipient } = await pipeline.placeOrder(uniqueName('customer'), [
      { sku: 'SKU-APPLE', quantity: 3, unitPrice: '1.25' },
      { sku: 'SKU-BANANA', quantity: 2, unitPrice: '0.40' },
    ]);

    const order = await pipeline.orderThrough(orderId, Timelines.confirmed);
    expect(order).toMatchObject({ status: 'CONFIRMED', reason: null, total: '4.55', currency: 'EUR' });
    expect(order.timeline.map((entry) => entry.type).sort()).toEqual([...Timelines.confirmed].sort());

    const emails = await pipeline.deliveredEmails(recipient);
    expect(emails).toHaveLength(1);
    expect(emails[0]!.subject).toBe(`Your order ${orderId} is confirmed`);
    expect(emails[0]!.text).toContain('3 × SKU-APPLE at 1.25 EUR = 3.75 EUR');
    expect(emails[0]!.text).toContain('2 × SKU-BANANA at 0.40 EUR = 0.80 EUR');
    expect(emails[0]!.text).toContain('Total: 4.55 EUR');

    // Analytics windows by event time (ce_time): placed and confirmed each count in the window
    // of their own event (the same one, unless the order straddled a window boundary).
    const eventTime = new Map(
      (await pipeline.records(Topics.orders, new Set([orderId]))).map((record) => [
        headerValue(record.headers, EventHeaders.type),
        headerValue(record.headers, EventHeaders.time)!,
      ]),
    );
    const expected = new Map<string, WindowView>();
    for (const [type, placed, confirmed] of [
      ['order.placed', 1, 0],
      ['order.confirmed', 0, 1],
    ] as const) {
      const start = windowOf(eventTime.get(type)!);
      const counted = expected.get(start);
      const windowConfirmed = (counted?.confirmed ?? 0) + confirmed;
      expected.set(start, {
        windowStart: start,
        windowEnd: new Date(Date.parse(start) + WINDOW_MS).toISOString(),
        placed: (counted?.placed ?? 0) + placed,
        confirmed: windowConfirmed,
        cancelled: 0,
        revenue: windowConfirmed > 0 ? '4.55' : '0.00',
      });
    }
    const view = await pipeline.countedWindows(customerId, 'confirmed');
    expect(view).toMatchObject({ windows: [...expected.values()], late: 0 });

    // The reservation moved exactly the ordered units from available to reserved.
    expect(await pipeline.stock('SKU-APPLE')).toMatchObject({
      available: apple.available - 3,
      reserved: apple.reserved + 3,
    });
    expect(await pipeline.stock('SKU-BANANA')).toMatchObject({
      available: banana.available - 2,
      reserved: banana.reserved + 2,
    });
  });

  it.for([
    ['a blocked customer', `blocked-${randomBytes(4).toString('hex')}`, 'SKU-DATE', '9.99', '19.98'],
    ['a total over 10,000.00', uniqueName('big-spender'), 'SKU-ELDERBERRY', '5000.01', '10000.02'],
  ] as const)(
    'cancels the order of %s as payment_declined, with one email and no reservation',
    async ([, customerId, sku, unitPrice, total], { expect }) => {
      const before = await pipeline.stock(sku);
      const { orderId, recipient } = await pipeline.placeOrder(customerId, [{ sku, quantity: 2, unitPrice }]);

      const order = await pipeline.orderThrough(orderId, Timelines.declined);
      expect(order).toMatchObject({ status: 'CANCELLED', reason: 'payment_declined', total });
      expect(order.timeline.map((entry) => entry.type).sort()).toEqual([...Timelines.declined].sort());

      const emails = await pipeline.deliveredEmails(recipient);
      expect(emails).toHaveLength(1);
      expect(emails[0]!.subject).toBe(`Your order ${orderId} was cancelled`);
      expect(emails[0]!.text).toContain('your payment was declined');
      expect(emails[0]!.text).toContain(`Total: ${total} EUR`);

      const view = await pipeline.countedWindows(customerId, 'cancelled');
      expect(totals(view)).toEqual({ placed: 1, confirmed: 0, cancelled: 1 });
      await caughtUp(pipeline.admin, pipeline.service('inventory').group, pipeline.consumed('inventory'));
      expect(await pipeline.stock(sku)).toEqual(before);
    },
  );

  it('cancels an out-of-stock order as out_of_stock, reserves none of it, refunds, one email', async ({
    expect,
  }) => {
    const fig = await pipeline.stock('SKU-FIG');
    const { orderId, customerId, recipient } = await pipeline.placeOrder(uniqueName('customer'), [
      { sku: 'SKU-FIG', quantity: 2, unitPrice: '2.50' },
      { sku: 'SKU-RARE', quantity: 1, unitPrice: '15.00' },
    ]);

    // payment.refunded on the timeline: payment-service refunded after stock.rejected.
    const order = await pipeline.orderThrough(orderId, Timelines.outOfStock);
    expect(order).toMatchObject({ status: 'CANCELLED', reason: 'out_of_stock', total: '20.00' });
    expect(order.timeline.map((entry) => entry.type).sort()).toEqual([...Timelines.outOfStock].sort());

    const emails = await pipeline.deliveredEmails(recipient);
    expect(emails).toHaveLength(1);
    expect(emails[0]!.subject).toBe(`Your order ${orderId} was cancelled`);
    expect(emails[0]!.text).toContain('some items are out of stock; your payment has been refunded');
    expect(emails[0]!.text).toContain('Total: 20.00 EUR');

    const view = await pipeline.countedWindows(customerId, 'cancelled');
    expect(totals(view)).toEqual({ placed: 1, confirmed: 0, cancelled: 1 });
    // All or nothing: the stocked line was not reserved either.
    expect(await pipeline.stock('SKU-FIG')).toEqual(fig);
    expect(await pipeline.stock('SKU-RARE')).toMatchObject({ available: 0, reserved: 0 });
  });
});
