import { OrderItemsSchema, OrderPlacedPayloadSchema } from '@pipeline/contracts';
import { jsonSchemaOf } from '../asyncapi/asyncapi-document';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { schemaChanges } from './compatibility';

// Each case changes order.placed v1 the way a developer might, through zod and the same JSON
// Schema conversion the snapshot and the AsyncAPI document use.
const v1 = OrderPlacedPayloadSchema;
const changesTo = (next: z.ZodType): string[] => schemaChanges(jsonSchemaOf(v1), jsonSchemaOf(next));
const Item = OrderItemsSchema.element;

describe('compatible changes pass', () => {
  it('an optional field added', () => {
    expect(changesTo(v1.extend({ giftMessage: z.string().max(200).optional() }))).toEqual([]);
  });

  it('an optional field added to a nested object (the order items)', () => {
    const items = z
      .array(Item.extend({ note: z.string().optional() }))
      .min(1)
      .max(100);
    expect(changesTo(v1.extend({ items }))).toEqual([]);
  });

  it('a description reworded', () => {
    expect(changesTo(v1.extend({ customerId: v1.shape.customerId.describe('Who ordered.') }))).toEqual([]);
  });

  it('nothing changed', () => {
    expect(changesTo(v1)).toEqual([]);
  });
});

describe('breaking changes fail, naming the field', () => {
  it('a required field removed', () => {
    expect(changesTo(v1.omit({ customerEmail: true }))).toEqual([
      'required field "customerEmail" was removed',
    ]);
  });

  it('a required field renamed: removed and added', () => {
    const { customerEmail, ...rest } = v1.shape;
    expect(changesTo(z.strictObject({ ...rest, email: customerEmail }))).toEqual([
      'required field "customerEmail" was removed (renamed to "email"?)',
      'required field "email" was added',
    ]);
  });

  it('a new required field', () => {
    expect(changesTo(v1.extend({ channel: z.string() }))).toEqual(['required field "channel" was added']);
  });

  it('a changed type', () => {
    expect(changesTo(v1.extend({ total: z.number() }))).toEqual([
      'field "total" changed type from string to number',
    ]);
  });

  it('a changed type inside the array items, and of the array items themselves', () => {
    const quantity = z
      .array(Item.extend({ quantity: z.string() }))
      .min(1)
      .max(100);
    expect(changesTo(v1.extend({ items: quantity }))).toEqual([
      'field "items[].quantity" changed type from integer to string',
    ]);
    const skus = z.array(z.string()).min(1).max(100);
    expect(changesTo(v1.extend({ items: skus }))).toEqual([
      'field "items[]" changed type from object to string',
    ]);
  });

  it('a field made nullable', () => {
    expect(changesTo(v1.extend({ currency: v1.shape.currency.nullable() }))).toEqual([
      'field "currency" changed type from string to string | null',
    ]);
  });

  it('a narrowed enum', () => {
    const before = z.strictObject({ reason: z.enum(['payment_declined', 'out_of_stock']) });
    const after = z.strictObject({ reason: z.enum(['payment_declined']) });
    expect(schemaChanges(jsonSchemaOf(before), jsonSchemaOf(after))).toEqual([
      'field "reason": enum value "out_of_stock" was removed',
    ]);
  });

  it('a widened enum: old consumers reject the new value', () => {
    const before = z.strictObject({ reason: z.enum(['payment_declined']) });
    const after = z.strictObject({ reason: z.enum(['payment_declined', 'fraud']) });
    expect(schemaChanges(jsonSchemaOf(before), jsonSchemaOf(after))).toEqual([
      'field "reason": enum value "fraud" was added (consumers built before it reject it)',
    ]);
  });

  it('an optional field removed, a field made optional or required', () => {
    const optional = z.strictObject({ orderId: z.uuid(), paymentId: z.uuid().optional() });
    const changes = (next: z.ZodType) => schemaChanges(jsonSchemaOf(optional), jsonSchemaOf(next));
    expect(changes(optional.omit({ paymentId: true }))).toEqual(['optional field "paymentId" was removed']);
    expect(changes(optional.extend({ paymentId: z.uuid() }))).toEqual(['field "paymentId" became required']);
    expect(changes(optional.extend({ orderId: z.uuid().optional() }))).toEqual([
      'field "orderId" became optional',
    ]);
  });

  it('a changed format, pattern or bound (either way: one side would reject the other)', () => {
    expect(changesTo(v1.extend({ customerEmail: z.uuid() }))).toEqual([
      'field "customerEmail": format changed from "email" to "uuid"',
    ]);
    expect(changesTo(v1.extend({ currency: z.string().regex(/^[A-Z]{3,4}$/) }))).toEqual([
      'field "currency": pattern changed from "^[A-Z]{3}$" to "^[A-Z]{3,4}$"',
    ]);
    const items = z
      .array(Item.extend({ quantity: z.int().min(1).max(5000) }))
      .min(1)
      .max(100);
    expect(changesTo(v1.extend({ items }))).toEqual([
      'field "items[].quantity": maximum changed from 1000 to 5000',
    ]);
    expect(changesTo(v1.extend({ items: OrderItemsSchema.max(10) }))).toEqual([
      'field "items": maxItems changed from 100 to 10',
    ]);
  });

  it('unknown fields allowed where they were a violation', () => {
    expect(changesTo(z.looseObject(v1.shape))).toEqual([
      'the payload: additionalProperties changed from false to {}',
    ]);
  });

  it('names the root as it is told', () => {
    expect(schemaChanges(jsonSchemaOf(z.uuid()), jsonSchemaOf(z.string()), 'the record key')).toEqual([
      'the record key: format changed from "uuid" to none',
    ]);
  });
});
