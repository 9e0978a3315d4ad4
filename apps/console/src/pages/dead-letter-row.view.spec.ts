import type { RawHeaders } from '@pipeline/contracts';
import { groupCopies, toDeadLetterRecord } from '@pipeline/dead-letters';
import type { KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { deadLetterRow, headerLines, headerText, MAX_HEADERS_SHOWN, payloadOf } from './dead-letter-row.view';

// kafkajs's IHeaders type has no null; its decoder gives one for a header of length -1.
const record = (offset: string, headers: RawHeaders, value: Buffer | null = Buffer.from('{"a":1}')) =>
  toDeadLetterRecord('payment.dead-letter', 0, {
    key: null,
    value,
    timestamp: '0',
    attributes: 0,
    offset,
    headers,
  } as unknown as KafkaMessage);

const original = (offset: string): RawHeaders => ({
  ce_id: Buffer.from(`e-${offset}`),
  original_topic: Buffer.from('orders'),
  original_partition: Buffer.from('1'),
  original_offset: Buffer.from(offset),
  consumer_group: Buffer.from('payment-service'),
});

describe('a dead letter on the page', () => {
  it('shows header values as text, hex when not UTF-8, and says null and empty', () => {
    expect(headerText(null)).toBe('(null)');
    expect(headerText(Buffer.alloc(0))).toBe('(empty)');
    expect(headerText(Buffer.from('héllo'))).toBe('héllo');
    expect(headerText(Buffer.from([0xff, 0x00]))).toBe('(not UTF-8, 2 bytes) 0xff00');
    expect(headerText('x'.repeat(500))).toHaveLength(201);
  });

  it('lists a repeated header once per value, and at most a bounded number of a thousand', () => {
    const many = record('1', {
      'x-repeated': [Buffer.from('a'), null],
      ...Object.fromEntries(Array.from({ length: 1_000 }, (_, n) => [`x-${n}`, Buffer.from(String(n))])),
    });
    const { lines, total } = headerLines(many);
    expect(total).toBe(1_002);
    expect(lines).toHaveLength(MAX_HEADERS_SHOWN);
    expect(lines.slice(0, 2)).toEqual([
      ['x-repeated', 'a'],
      ['x-repeated', '(null)'],
    ]);
    expect(deadLetterRow(groupCopies([many])[0]!).value).toContain('… and 952 more');
  });

  it('is one row for its copies, checked as its first copy, and escapes what any client wrote', () => {
    const copies = groupCopies([
      record('9', { ...original('17'), error: Buffer.from('<b>again</b>') }),
      record('4', { ...original('17'), error: Buffer.from('<b>first</b>') }),
    ]);
    expect(copies).toHaveLength(1);
    const row = deadLetterRow(copies[0]!).value;
    expect(row).toContain('data-position="payment.dead-letter/0/4"');
    expect(row).toContain('data-copies="2"');
    expect(row).toMatch(/data-field="copies">\s*2<br \/><small>also at 0\/9<\/small>/);
    expect(row).toContain('&lt;b&gt;first&lt;/b&gt;');
    expect(row).not.toContain('<b>');
  });

  it('says what a record without a value is', () => {
    expect(payloadOf(record('1', original('3'), null))).toBe('(no value: a tombstone)');
    expect(payloadOf(record('2', { error_code: Buffer.from('UndecodableBatch') }, null))).toMatch(
      /^\(no value and no ce_id/,
    );
    expect(payloadOf(record('3', {}, Buffer.from([0xde, 0xad])))).toContain('hex dead');
  });
});
