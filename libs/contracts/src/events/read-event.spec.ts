import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { dataSchemaOf } from '../envelope/event-envelope';
import { Topics } from '../topics/topic-names';
import { acceptedVersion, defineEvent } from './event-descriptor';
import { EventDescriptors } from './event-catalogue';
import { acceptedDataSchemasOf, currentVersionOf, readEvent, readPayload } from './read-event';

const orderId = '0b6f8a3e-5d4c-4f1a-9a2b-3c4d5e6f7a8b';
const stock = { sku: 'SKU-TEA', available: 10, reserved: 0, updatedAt: '2025-01-31T12:00:00.000Z' };

// v1 had one `amount` in cents; v2 has a decimal string and a currency.
const V1 = z.strictObject({ orderId: z.uuid(), cents: z.int().min(0) });
const V2 = z.strictObject({ orderId: z.uuid(), amount: z.string(), currency: z.string() });
const Example = defineEvent({
  type: 'example.happened',
  version: 2,
  topic: Topics.orders,
  producer: 'order',
  key: 'order id',
  keySchema: z.uuid(),
  description: 'An event with a previous version consumers still read.',
  schema: V2,
  previous: [
    acceptedVersion(1, V1, (v1) => ({
      orderId: v1.orderId,
      amount: (v1.cents / 100).toFixed(2),
      currency: 'EUR',
    })),
  ],
});
const v1 = dataSchemaOf('example.happened', 1);
const v2 = dataSchemaOf('example.happened', 2);

describe('readEvent / readPayload: what a consumer accepts', () => {
  it('reads the current version, with or without its ce_dataschema', () => {
    const payload = { orderId, amount: '1.50', currency: 'EUR' };
    expect(readPayload(Example, payload, v2)).toEqual({ ok: true, payload });
    expect(readPayload(Example, payload)).toEqual({ ok: true, payload });
  });

  it('reads a previous version by its ce_dataschema and upcasts it to the current payload', () => {
    expect(readPayload(Example, { orderId, cents: 150 }, v1)).toEqual({
      ok: true,
      payload: { orderId, amount: '1.50', currency: 'EUR' },
    });
    expect(readPayload(Example, { orderId, cents: 150 }, v2)).toMatchObject({ ok: false });
  });

  it('rejects a version it does not list, naming the header', () => {
    expect(readPayload(Example, { orderId }, dataSchemaOf('example.happened', 3))).toEqual({
      ok: false,
      reason: 'unsupported ce_dataschema "urn:order-pipeline:example.happened:v3"',
    });
  });

  it('names the upcast when its result violates the current schema', () => {
    const Broken = { ...Example, previous: [acceptedVersion(1, V1, (old) => ({ orderId: old.orderId }))] };
    expect(readPayload(Broken, { orderId, cents: 1 }, v1)).toEqual({
      ok: false,
      reason: expect.stringMatching(/^v1 upcast to v2: amount: Invalid input/) as unknown,
    });
  });

  it('drops a field the schema does not know, at any depth, and still checks the rest', () => {
    expect(readEvent('stock.changed', { ...stock, warehouse: 'B' })).toEqual({
      ok: true,
      type: 'stock.changed',
      payload: stock,
    });
    const item = { sku: 'SKU-TEA', quantity: 1 };
    const reserved = { orderId, items: [item], reservedAt: stock.updatedAt };
    const withColour = { ...reserved, items: [{ ...item, colour: 'red' }] };
    expect(readEvent('stock.reserved', withColour)).toEqual({
      ok: true,
      type: 'stock.reserved',
      payload: reserved,
    });
    expect(withColour.items[0]).toHaveProperty('colour', 'red');
    expect(readEvent('stock.changed', { ...stock, available: -1, warehouse: 'B' })).toEqual({
      ok: false,
      reason: 'available: Too small: expected number to be >=0',
    });
    expect(readEvent('order.shipped', {})).toEqual({
      ok: false,
      reason: 'undeclared event type "order.shipped"',
    });
  });
});

describe('versions of the catalogue', () => {
  it('lists the current version first, then the previous ones', () => {
    expect(acceptedDataSchemasOf('stock.changed')).toEqual(['urn:order-pipeline:stock.changed:v1']);
    expect(acceptedDataSchemasOf('order.shipped')).toEqual([]);
    expect(currentVersionOf('order.placed')).toBe(1);
    expect(currentVersionOf('test.happened')).toBe(1);
  });

  it('gives every previous version a number below the current one, each once', () => {
    for (const { type, version, previous = [] } of EventDescriptors) {
      const versions = previous.map((accepted) => accepted.version);
      expect(new Set(versions).size, type).toBe(versions.length);
      for (const old of versions) expect(Number.isInteger(old) && old >= 1 && old < version, type).toBe(true);
    }
  });
});
