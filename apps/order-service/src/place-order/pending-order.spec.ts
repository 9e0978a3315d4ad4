import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CustomerEmailSchema,
  CustomerIdSchema,
  OrderPlacedPayloadSchema,
  QuantitySchema,
  SkuSchema,
} from '@pipeline/contracts';
import { orderPlacedPayload, pendingOrder } from './pending-order';
import { PlaceOrderRequestSchema } from './place-order.request';

const item = { sku: 'SKU-1', quantity: 1, unitPrice: '1' };
const accepted = [
  { customerId: 'c', customerEmail: 'a@b.test', items: [item] },
  { customerId: 'x'.repeat(64), customerEmail: 'a@b.test', items: [item], currency: 'USD' },
  {
    customerId: 'c👩‍👩‍👧e\u0301',
    customerEmail: 'ada@example.com',
    items: [{ sku: 'SKU\u200B-1', quantity: 1000, unitPrice: 0.01 }],
  },
  { customerId: 'c', customerEmail: 'a@b.test', items: Array.from({ length: 100 }, () => item) },
  {
    customerId: 'c',
    customerEmail: 'a@b.test',
    items: [
      { sku: 'A', quantity: 3, unitPrice: 19.99 },
      { sku: 'B', quantity: 1, unitPrice: '0.1' },
      { sku: 'C', quantity: 1, unitPrice: '9999999.00' },
    ],
  },
];

/**
 * order.placed is built from the validated request and not parsed again: these tests are what
 * holds it to the contract.
 */
describe('the order.placed payload of a validated request', () => {
  it.each(accepted.map((body, index) => [index, body] as const))(
    'satisfies the contract (%i)',
    (_index, body) => {
      const request = PlaceOrderRequestSchema.parse(body);
      const payload = orderPlacedPayload(randomUUID(), request, new Date());
      expect(OrderPlacedPayloadSchema.parse(payload)).toEqual(payload);
    },
  );

  it('is validated at the edge with the contract’s own field schemas', () => {
    const { shape } = PlaceOrderRequestSchema;
    expect(shape.customerId).toBe(CustomerIdSchema);
    expect(shape.customerEmail).toBe(CustomerEmailSchema);
    const itemShape = shape.items.element.shape;
    expect(itemShape.sku).toBe(SkuSchema);
    expect(itemShape.quantity).toBe(QuantitySchema);
  });

  it('carries the exact total, 2-place prices and the order’s time', () => {
    const request = PlaceOrderRequestSchema.parse(accepted[4]);
    const placedAt = new Date('2026-12-01T10:00:00.123Z');
    expect(orderPlacedPayload('id', request, placedAt)).toMatchObject({
      total: '10000059.07',
      items: [
        { sku: 'A', quantity: 3, unitPrice: '19.99' },
        { sku: 'B', quantity: 1, unitPrice: '0.10' },
        { sku: 'C', quantity: 1, unitPrice: '9999999.00' },
      ],
      placedAt: '2026-12-01T10:00:00.123Z',
    });
  });

  it('pending order: its payload names its order, and a key carries the request hash', () => {
    const request = PlaceOrderRequestSchema.parse(accepted[0]);
    const pending = pendingOrder(request, 'k-1');
    expect(pending.payload.orderId).toBe(pending.orderId);
    expect(pending.payload.placedAt).toBe(pending.placedAt.toISOString());
    expect(pending.eventId).not.toBe(pending.orderId);
    expect(pending.idempotency).toEqual({
      key: 'k-1',
      requestHash: expect.stringMatching(/^[0-9a-f]{64}$/) as string,
    });
    expect(pendingOrder(request).idempotency).toBeUndefined();
  });
});
