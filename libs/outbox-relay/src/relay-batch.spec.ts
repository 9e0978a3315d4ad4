import { describe, expect, it } from 'vitest';
import type { OutboxRow } from './outbox-table';
import { isTooLarge, relaySends, rowBytes } from './relay-batch';
import { relayDeadLetter } from './relay-dead-letter';
import { RelayFailure } from './relay-failure';

const row = (id: number, payloadBytes: number, key = 'k'): OutboxRow => ({
  id: String(id),
  event_id: `e${id}`,
  topic: 'orders',
  key,
  type: 'order.placed',
  payload: JSON.stringify({ pad: 'x'.repeat(payloadBytes) }),
  headers: { ce_id: `e${id}`, ce_type: 'order.placed' },
});

describe('relaySends', () => {
  it('cuts rows into consecutive sends under the limit, in id order, a lone oversize row marked', () => {
    const rows = [row(1, 300), row(2, 300), row(3, 300), row(4, 5_000), row(5, 300)];
    const sends = relaySends(rows, 1_000);
    expect(sends.map((send) => send.rows.map((r) => r.id))).toEqual([['1', '2'], ['3'], ['4'], ['5']]);
    expect(sends.map((send) => send.oversizeBytes)).toEqual([
      undefined,
      undefined,
      rowBytes(rows[3]!),
      undefined,
    ]);
    for (const send of sends.filter((s) => s.oversizeBytes === undefined))
      expect(send.rows.reduce((sum, r) => sum + rowBytes(r), 0)).toBeLessThanOrEqual(1_000);
  });
});

describe('isTooLarge', () => {
  it('finds MESSAGE_TOO_LARGE and RECORD_LIST_TOO_LARGE through kafkajs and relay wrappers', () => {
    // kafkajs's protocol error carries the type; its retrier wraps it with `cause`.
    const refused = Object.assign(new Error('big'), { type: 'MESSAGE_TOO_LARGE', code: 10 });
    const wrapped = new RelayFailure(
      'broker',
      Object.assign(new Error('retries exhausted'), { cause: refused }),
    );
    expect(isTooLarge(wrapped)).toBe(true);
    expect(isTooLarge({ errors: [{ type: 'RECORD_LIST_TOO_LARGE' }] })).toBe(true);
    expect(isTooLarge(new RelayFailure('broker', new Error('Connection error')))).toBe(false);
  });
});

describe('relayDeadLetter', () => {
  const tooLarge = { topic: 'p.orders', recordBytes: 2_000, limitBytes: 1_000 };

  it('keeps the value when the letter fits, and leaves it out (saying so) when it does not', () => {
    const small = relayDeadLetter(row(1, 10), tooLarge);
    expect(small.value).toBe(row(1, 10).payload);
    expect(small.headers).toMatchObject({
      ce_id: 'e1',
      original_topic: 'p.orders',
      error_code: 'RecordTooLarge',
    });
    expect(small.headers?.['value_omitted']).toBeUndefined();
    const large = relayDeadLetter(row(2, 5_000), tooLarge);
    expect(large.value).toBeNull();
    expect(large.headers).toMatchObject({ value_omitted: 'true', record_bytes: '2000', limit_bytes: '1000' });
  });
});
