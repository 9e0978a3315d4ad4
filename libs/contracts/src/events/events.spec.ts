import { describe, expect, it } from 'vitest';
import { EventCatalogue, parseEvent, type EventPayload, type EventType } from './event-catalogue';

const orderId = '0b6f8a3e-5d4c-4f1a-9a2b-3c4d5e6f7a8b';
const paymentId = '7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f';
const at = '2025-01-31T12:00:00.000Z';
const items = [
  { sku: 'SKU-RED-MUG', quantity: 2, unitPrice: '12.50' },
  { sku: 'SKU-TEA', quantity: 1, unitPrice: '4.99' },
];
const order = {
  orderId,
  customerId: 'customer-42',
  customerEmail: 'ada@example.com',
  items,
  total: '29.99',
  currency: 'EUR',
};

/** A valid payload of every event type. */
const valid: { [T in EventType]: EventPayload<T> } = {
  'order.placed': { ...order, placedAt: at },
  'order.confirmed': { ...order, confirmedAt: at },
  'order.cancelled': { ...order, reason: 'out_of_stock', cancelledAt: at },
  'payment.authorized': {
    orderId,
    paymentId,
    customerId: 'customer-42',
    amount: '29.99',
    currency: 'EUR',
    items,
    authorizedAt: at,
  },
  'payment.declined': {
    orderId,
    amount: '12000.00',
    currency: 'EUR',
    reason: 'amount_over_limit',
    declinedAt: at,
  },
  'payment.refunded': {
    orderId,
    paymentId,
    amount: '29.99',
    currency: 'EUR',
    reason: 'out_of_stock',
    refundedAt: at,
  },
  'stock.reserved': { orderId, items: [{ sku: 'SKU-RED-MUG', quantity: 2 }], reservedAt: at },
  'stock.rejected': { orderId, missingSkus: ['SKU-TEA'], reason: 'out_of_stock', rejectedAt: at },
  'stock.changed': { sku: 'SKU-TEA', available: 10, reserved: 0, updatedAt: at },
  'orders-count.updated': {
    customerId: 'customer-42',
    windowStart: '2025-01-31T12:00:00.000Z',
    windowEnd: '2025-01-31T12:05:00.000Z',
    placed: 3,
    confirmed: 2,
    cancelled: 1,
    revenue: '59.98',
  },
};

const reasonOf = (type: string, value: unknown): string => {
  const result = parseEvent(type, value);
  if (result.ok) throw new Error(`expected ${type} to be rejected`);
  return result.reason;
};

describe('event payloads', () => {
  it.each(Object.keys(EventCatalogue) as EventType[])('%s: a valid payload parses to itself', (type) => {
    const result = parseEvent(type, valid[type]);
    expect(result).toEqual({ ok: true, type, payload: valid[type] });
  });

  it.each(Object.keys(EventCatalogue) as EventType[])('%s: an unknown field is a violation', (type) => {
    expect(reasonOf(type, { ...valid[type], extra: 1 })).toBe('extra: unknown field');
  });

  it.each(Object.keys(EventCatalogue) as EventType[])('%s: a missing field is named', (type) => {
    const [first] = Object.keys(valid[type]);
    const { [first!]: _removed, ...rest } = valid[type] as Record<string, unknown>;
    expect(reasonOf(type, rest)).toMatch(
      new RegExp(`^${first}: Invalid input: expected \\w+, received undefined`),
    );
  });

  it('types the payload by its event type', () => {
    const result = parseEvent('order.placed', valid['order.placed']);
    if (!result.ok) throw new Error(result.reason);
    const placedAt: string = result.payload.placedAt;
    expect(placedAt).toBe(at);
    expect(result.type).toBe('order.placed');
  });

  it('accepts payment.declined without a payment id, and with one', () => {
    expect(parseEvent('payment.declined', { ...valid['payment.declined'], paymentId }).ok).toBe(true);
  });

  it('takes an order total of zero cents but no item priced at zero', () => {
    expect(parseEvent('order.placed', { ...valid['order.placed'], total: '0' }).ok).toBe(true);
    expect(
      reasonOf('order.placed', { ...valid['order.placed'], items: [{ ...items[0], unitPrice: '0.00' }] }),
    ).toMatch(/^items\.0\.unitPrice: Invalid amount/);
  });
});

describe('violations name the offending field', () => {
  const placed = valid['order.placed'];
  const withItem = (item: Record<string, unknown>) => ({ ...placed, items: [{ ...items[0], ...item }] });

  it.each([
    [
      'money as a number',
      { ...placed, total: 29.99 },
      'total: Invalid input: expected string, received number',
    ],
    ['money with 3 decimals', { ...placed, total: '29.999' }, 'total: Invalid amount'],
    [
      'unit price as a number',
      withItem({ unitPrice: 12.5 }),
      'items.0.unitPrice: Invalid input: expected string',
    ],
    ['quantity 0', withItem({ quantity: 0 }), 'items.0.quantity: Too small: expected number to be >=1'],
    [
      'quantity 1001',
      withItem({ quantity: 1001 }),
      'items.0.quantity: Too big: expected number to be <=1000',
    ],
    [
      'quantity 1.5',
      withItem({ quantity: 1.5 }),
      'items.0.quantity: Invalid input: expected int, received number',
    ],
    ['an empty sku', withItem({ sku: '' }), 'items.0.sku: Too small: expected string to have >=1 characters'],
    ['an unknown item field', withItem({ colour: 'red' }), 'items.0.colour: unknown field'],
    ['no items', { ...placed, items: [] }, 'items: Too small: expected array to have >=1 items'],
    [
      '101 items',
      { ...placed, items: Array(101).fill(items[0]) },
      'items: Too big: expected array to have <=100 items',
    ],
    ['a bad email', { ...placed, customerEmail: 'ada.example.com' }, 'customerEmail: Invalid email address'],
    ['a bad order id', { ...placed, orderId: 'order-1' }, 'orderId: Invalid UUID'],
    ['an empty customer id', { ...placed, customerId: '' }, 'customerId: Too small'],
    ['a 65-char customer id', { ...placed, customerId: 'c'.repeat(65) }, 'customerId: Too big'],
    ['a lower-case currency', { ...placed, currency: 'eur' }, 'currency: Invalid currency'],
    ['a missing currency', { ...placed, currency: undefined }, 'currency: Invalid input: expected string'],
    ['a date that is not ISO-8601', { ...placed, placedAt: '31/01/2025' }, 'placedAt: Invalid ISO datetime'],
  ])('order.placed: %s', (_case, value, reason) => {
    expect(reasonOf('order.placed', value)).toContain(reason);
  });

  it('stock.rejected: an empty missingSkus', () => {
    expect(reasonOf('stock.rejected', { ...valid['stock.rejected'], missingSkus: [] })).toBe(
      'missingSkus: Too small: expected array to have >=1 items',
    );
  });

  it('order.cancelled: a reason outside the declared ones', () => {
    expect(reasonOf('order.cancelled', { ...valid['order.cancelled'], reason: 'changed_mind' })).toBe(
      'reason: Invalid option: expected one of "payment_declined"|"out_of_stock"',
    );
  });

  it('payment.refunded: a reason other than out_of_stock', () => {
    expect(reasonOf('payment.refunded', { ...valid['payment.refunded'], reason: 'fraud' })).toMatch(
      /^reason: /,
    );
  });

  it('stock.changed: negative or fractional stock levels', () => {
    expect(reasonOf('stock.changed', { ...valid['stock.changed'], available: -1, reserved: 0.5 })).toBe(
      'available: Too small: expected number to be >=0; reserved: Invalid input: expected int, received number',
    );
  });

  it('stock.reserved: an item with a price (reservations count units only)', () => {
    expect(reasonOf('stock.reserved', { ...valid['stock.reserved'], items: [items[0]] })).toBe(
      'items.0.unitPrice: unknown field',
    );
  });

  it('orders-count.updated: revenue as a number, negative counts', () => {
    expect(
      reasonOf('orders-count.updated', { ...valid['orders-count.updated'], revenue: 10, placed: -1 }),
    ).toBe(
      'placed: Too small: expected number to be >=0; revenue: Invalid input: expected string, received number',
    );
  });

  it('lists every offending field at once', () => {
    expect(
      reasonOf('order.placed', { ...placed, total: 1, currency: 'euro', extra: true }).split('; '),
    ).toEqual([
      'total: Invalid input: expected string, received number',
      expect.stringMatching(/^currency: Invalid currency/),
      'extra: unknown field',
    ]);
  });

  it('a value that is not an object (a tombstone, garbage JSON)', () => {
    expect(reasonOf('stock.changed', null)).toBe('(value): Invalid input: expected object, received null');
    expect(reasonOf('order.placed', 'hello')).toBe(
      '(value): Invalid input: expected object, received string',
    );
  });
});
