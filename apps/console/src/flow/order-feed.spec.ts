import type { RawHeaders } from '@pipeline/contracts';
import type { KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { feedEventOf } from './order-feed';
import { OrderStore } from './order-store';

const ORDER = '0b6f3c1e-0000-4000-8000-000000000002';

const envelope = (): RawHeaders => ({
  ce_specversion: Buffer.from('1.0'),
  ce_id: Buffer.from('e-1'),
  ce_type: Buffer.from('order.placed'),
  ce_source: Buffer.from('order-service'),
  ce_time: Buffer.from('2026-12-01T10:00:00.000Z'),
  correlation_id: Buffer.from(ORDER),
});

// kafkajs's IHeaders type has no null; its decoder gives one for a header of length -1.
const message = (headers: RawHeaders, value: Buffer | null = Buffer.from('{"customerId":"c1"}')) =>
  ({ key: null, value, timestamp: '0', attributes: 0, offset: '3', headers }) as unknown as KafkaMessage;

describe('the live feed reads records any client wrote', () => {
  it('takes an event whatever its other headers: null, empty, repeated, not UTF-8, a thousand', () => {
    const headers: RawHeaders = {
      ...envelope(),
      'x-null': null,
      'x-empty': Buffer.alloc(0),
      'x-repeated': [Buffer.from('a'), null, Buffer.from('b')],
      'x-binary': Buffer.from([0xff, 0xfe]),
      causation_id: null,
      ...Object.fromEntries(Array.from({ length: 1_000 }, (_, n) => [`x-${n}`, Buffer.from(String(n))])),
    };
    const event = feedEventOf('orders', 1, message(headers));
    expect(event).toMatchObject({
      topic: 'orders',
      partition: 1,
      offset: '3',
      id: 'e-1',
      type: 'order.placed',
      correlationId: ORDER,
      causationId: undefined,
      payload: { customerId: 'c1' },
    });
    const store = new OrderStore({ maxOrders: 10 }, 60_000);
    store.add(event!);
    expect(store.get(ORDER)?.customerId).toBe('c1');
    store.close();
  });

  it.each<[string, RawHeaders, Buffer | null]>([
    ['a null ce_id', { ...envelope(), ce_id: null }, Buffer.from('{}')],
    ['a repeated ce_id', { ...envelope(), ce_id: [Buffer.from('a'), Buffer.from('b')] }, Buffer.from('{}')],
    ['a ce_type that is not UTF-8', { ...envelope(), ce_type: Buffer.from([0xc3, 0x28]) }, Buffer.from('{}')],
    ['no headers at all', {}, null],
    ['a value that is not JSON', envelope(), Buffer.from([0xde, 0xad])],
  ])('leaves out a record with %s, without throwing', (_, headers, value) => {
    expect(feedEventOf('orders', 0, message(headers, value))).toBeUndefined();
  });
});
