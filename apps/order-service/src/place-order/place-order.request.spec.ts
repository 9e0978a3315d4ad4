import { BadRequestException } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { ZodValidationPipe, type FieldIssue } from '@pipeline/service-kit';
import { IdempotencyHeaderSchema, PlaceOrderRequestSchema } from './place-order.request';
import { requestHash } from './request-hash';

const valid = {
  customerId: 'c-1',
  customerEmail: 'ada@example.com',
  items: [{ sku: 'SKU-1', quantity: 2, unitPrice: '12.5' }],
};

const pipe = new ZodValidationPipe(PlaceOrderRequestSchema, 'body');

function offendingFields(body: unknown): string[] {
  try {
    pipe.transform(body);
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestException);
    const response = (error as BadRequestException).getResponse() as { issues: FieldIssue[] };
    return [...new Set(response.issues.map((issue) => issue.field))].sort();
  }
  throw new Error('the body was accepted');
}

const withItem = (item: Record<string, unknown>) => ({ ...valid, items: [{ ...valid.items[0], ...item }] });

describe('POST /orders body', () => {
  it('accepts a valid order, defaults the currency to EUR and normalises prices to 2 places', () => {
    expect(PlaceOrderRequestSchema.parse(valid)).toEqual({
      ...valid,
      currency: 'EUR',
      items: [{ sku: 'SKU-1', quantity: 2, unitPrice: '12.50' }],
    });
  });

  it('accepts a unit price as a JSON number with at most 2 places', () => {
    for (const [input, normalised] of [
      [12.5, '12.50'],
      [0.1, '0.10'],
      [7, '7.00'],
      [0.01, '0.01'],
      [9999999999.99, '9999999999.99'],
    ] as const) {
      expect(
        PlaceOrderRequestSchema.parse(withItem({ unitPrice: input, quantity: 1 })).items[0]?.unitPrice,
        String(input),
      ).toBe(normalised);
    }
  });

  it.each([
    ['customerId empty', { ...valid, customerId: '' }, ['customerId']],
    ['customerId over 64', { ...valid, customerId: 'x'.repeat(65) }, ['customerId']],
    ['customerId missing', { customerEmail: valid.customerEmail, items: valid.items }, ['customerId']],
    ['customerEmail invalid', { ...valid, customerEmail: 'not-an-email' }, ['customerEmail']],
    ['no items', { ...valid, items: [] }, ['items']],
    ['101 items', { ...valid, items: Array.from({ length: 101 }, () => valid.items[0]) }, ['items']],
    ['items not an array', { ...valid, items: 'SKU-1' }, ['items']],
    ['sku empty', withItem({ sku: '' }), ['items.0.sku']],
    ['quantity 0', withItem({ quantity: 0 }), ['items.0.quantity']],
    ['quantity 1001', withItem({ quantity: 1001 }), ['items.0.quantity']],
    ['quantity fractional', withItem({ quantity: 1.5 }), ['items.0.quantity']],
    ['quantity as a string', withItem({ quantity: '2' }), ['items.0.quantity']],
    ['unitPrice zero', withItem({ unitPrice: '0.00' }), ['items.0.unitPrice']],
    ['unitPrice negative', withItem({ unitPrice: -1 }), ['items.0.unitPrice']],
    ['unitPrice with 3 places', withItem({ unitPrice: '1.005' }), ['items.0.unitPrice']],
    ['unitPrice a float artefact', withItem({ unitPrice: 0.1 + 0.2 }), ['items.0.unitPrice']],
    ['unitPrice in exponent form', withItem({ unitPrice: 1e21 }), ['items.0.unitPrice']],
    ['unitPrice over the column', withItem({ unitPrice: '10000000000' }), ['items.0.unitPrice']],
    ['unitPrice not a number', withItem({ unitPrice: true }), ['items.0.unitPrice']],
    ['currency lower case', { ...valid, currency: 'eur' }, ['currency']],
    ['currency 4 letters', { ...valid, currency: 'EURO' }, ['currency']],
    ['unknown field', { ...valid, coupon: 'FREE' }, ['coupon']],
    ['unknown item field', withItem({ discount: 1 }), ['items.0.discount']],
    [
      'total over the column',
      { ...valid, items: [{ sku: 'A', quantity: 1000, unitPrice: '9999999999.99' }] },
      ['items'],
    ],
    ['not an object', 'order', ['(root)']],
  ])('refuses %s', (_what, body, fields) => {
    expect(offendingFields(body)).toEqual(fields);
  });

  it('names every offending field at once', () => {
    expect(
      offendingFields({
        customerId: '',
        customerEmail: 'nope',
        currency: 'eu',
        items: [
          { sku: '', quantity: 0, unitPrice: '1.001' },
          { sku: 'ok', quantity: 1, unitPrice: 1 },
          { quantity: 2000 },
        ],
        extra: 1,
      }),
    ).toEqual([
      'currency',
      'customerEmail',
      'customerId',
      'extra',
      'items.0.quantity',
      'items.0.sku',
      'items.0.unitPrice',
      'items.2.quantity',
      'items.2.sku',
      'items.2.unitPrice',
    ]);
  });
});

describe('Idempotency-Key header', () => {
  it('is optional and accepts 1 to 200 printable characters', () => {
    expect(IdempotencyHeaderSchema.parse({})).toEqual({});
    expect(IdempotencyHeaderSchema.parse({ 'Idempotency-Key': 'k'.repeat(200) })).toEqual({
      'Idempotency-Key': 'k'.repeat(200),
    });
  });

  it.each([[''], ['k'.repeat(201)], ['tab\there'], ['é']])('refuses %j', (key) => {
    expect(IdempotencyHeaderSchema.safeParse({ 'Idempotency-Key': key }).success).toBe(false);
  });
});

describe('request hash', () => {
  it('is the same for the same order however it was written', () => {
    const a = PlaceOrderRequestSchema.parse({ ...valid, currency: 'EUR' });
    const b = PlaceOrderRequestSchema.parse({
      items: [{ unitPrice: 12.5, quantity: 2, sku: 'SKU-1' }],
      customerEmail: valid.customerEmail,
      customerId: 'c-1',
    });
    expect(requestHash(a)).toBe(requestHash(b));
  });

  it('differs when anything that matters differs', () => {
    const base = requestHash(PlaceOrderRequestSchema.parse(valid));
    expect(requestHash(PlaceOrderRequestSchema.parse(withItem({ quantity: 3 })))).not.toBe(base);
    expect(requestHash(PlaceOrderRequestSchema.parse({ ...valid, currency: 'USD' }))).not.toBe(base);
  });
});
