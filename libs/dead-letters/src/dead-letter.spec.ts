import type { RawHeaders } from '@pipeline/contracts';
import type { IHeaders, KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { groupCopies } from './dead-letter-copies';
import { filterDeadLetters, parseIsoInstant } from './dead-letter-filter';
import { toDeadLetterRecord } from './dead-letter-record';
import { oneLine, renderRecords, renderSkipped, toDeadLetterRow } from './dead-letter-report';
import { MISSING_HEADER, summariseDeadLetters } from './dead-letter-summary';
import { planReplay, replayHeaders } from './replay';

const message = (offset: string, headers: IHeaders): KafkaMessage => ({
  key: Buffer.from('order-1'),
  value: Buffer.from('{}'),
  timestamp: '0',
  attributes: 0,
  offset,
  headers,
});

describe('parseIsoInstant', () => {
  it.each([
    ['2026-11-30', '2026-11-30T00:00:00.000Z'],
    ['2026-11-30T10:15Z', '2026-11-30T10:15:00.000Z'],
    ['2026-11-30T10:15:00.123+01:00', '2026-11-30T09:15:00.123Z'],
  ])('accepts %s', (text, iso) => expect(parseIsoInstant(text)?.toISOString()).toBe(iso));

  it.each(['yesterday', '2026-11-30T10:15', '2026-02-30', '2026-13-01', '2026-11-30T25:00Z', '1700000000'])(
    'rejects %s',
    (text) => expect(parseIsoInstant(text)).toBeUndefined(),
  );
});

describe('dead-letter records', () => {
  it('treats missing and unparsable diagnostics as absent, and counts them as missing', () => {
    const record = toDeadLetterRecord(
      'x.dead-letter',
      0,
      message('3', { failed_at: 'soon', attempts: 'three' }),
    );
    expect(record).toMatchObject({
      originalTopic: undefined,
      failedAt: 'soon',
      failedAtMs: undefined,
      attempts: undefined,
    });
    expect(filterDeadLetters([record], { since: new Date(0) })).toEqual([]);
    expect(filterDeadLetters([record], {})).toEqual([record]);
    const summary = summariseDeadLetters([record]);
    expect(summary.byOriginalTopic).toEqual([{ value: MISSING_HEADER, count: 1 }]);
    expect(summary.oldestFailedAt).toBeUndefined();
    expect(renderRecords(groupCopies([record]))[1]).toMatch(/^0\/3\s+-\s+-\s+-\s+1\s+-\s+-\s+soon\s+-$/);
  });

  it('replays the original headers byte for byte, repeated ones included, and replaces an earlier replayed_from', () => {
    const record = toDeadLetterRecord(
      'x.dead-letter',
      2,
      message('9', {
        ce_id: Buffer.from('e1'),
        baggage: [Buffer.from('a=1'), Buffer.from('b=2')],
        original_topic: Buffer.from('orders'),
        error: Buffer.from('boom'),
        replayed_from: Buffer.from('x.dead-letter/0/1'),
      }),
    );
    expect(replayHeaders(record)).toEqual({
      ce_id: Buffer.from('e1'),
      baggage: [Buffer.from('a=1'), Buffer.from('b=2')],
      replayed_from: 'x.dead-letter/2/9',
    });
  });

  it('never replays a record onto the dead-letter topic it came from', () => {
    const record = toDeadLetterRecord(
      'x.dead-letter',
      0,
      message('0', { original_topic: Buffer.from('x.dead-letter') }),
    );
    expect(planReplay([record])).toMatchObject({
      items: [],
      skipped: [{ reason: 'original_topic is the dead-letter topic itself' }],
    });
  });

  it('skips a letter the relay wrote for a record too large to publish, saying why', () => {
    const record = toDeadLetterRecord(
      'order.dead-letter',
      0,
      message('4', {
        original_topic: Buffer.from('orders'),
        failed_stage: Buffer.from('relay'),
        error_code: Buffer.from('RecordTooLarge'),
        record_bytes: Buffer.from('1572964'),
        limit_bytes: Buffer.from('524288'),
        value_omitted: Buffer.from('true'),
      }),
    );
    const plan = planReplay([record]);
    expect(plan.items).toEqual([]);
    expect(plan.skipped[0]?.reason).toMatch(
      /RecordTooLarge.*1572964 bytes.*524288.*value was not kept.*refused again/,
    );
  });

  it('prints an error on one bounded line, control characters shown as U+FFFD', () => {
    expect(oneLine('  Error: boom\n    at handler (x.ts:1)  ', 20)).toBe('Error: boom at hand…');
    expect(oneLine(undefined, 20)).toBe('-');
    expect(oneLine('red \u001b[31mtext\u0000', 40)).toBe('red \uFFFD[31mtext\uFFFD');
  });
});

/** Headers as any client may write them, kafkajs decoding: null values, arrays for repeats. */
const oddHeaders = (): RawHeaders => ({
  ce_id: Buffer.from('e1'),
  ce_type: Buffer.from('order.placed'),
  original_topic: Buffer.from('orders'),
  original_partition: Buffer.from('0'),
  original_offset: Buffer.from('5'),
  error: [null, Buffer.from('first\nline'), Buffer.from('second')],
  'x-null': null,
  'x-empty': Buffer.alloc(0),
  'x-repeated': [Buffer.from('a'), null, Buffer.alloc(0), Buffer.from('a')],
  'x-all-null': [null, null],
  'x-binary': Buffer.from([0xff, 0xfe, 0x00, 0xc3]),
  ...Object.fromEntries(Array.from({ length: 1_000 }, (_, n) => [`x-${n}`, Buffer.from(String(n))])),
});

const oddMessage = (headers: RawHeaders, key: Buffer | null, value: Buffer | null): KafkaMessage =>
  // kafkajs's IHeaders type has no null; its decoder gives one for a header of length -1.
  ({ key, value, timestamp: '0', attributes: 0, offset: '7', headers }) as unknown as KafkaMessage;

describe('dead letters with headers of every shape', () => {
  it('reads them without throwing: a null value is absent, a repeat reads its first value', () => {
    const record = toDeadLetterRecord('x.dead-letter', 1, oddMessage(oddHeaders(), null, null));
    expect(record).toMatchObject({
      key: null,
      value: null,
      eventId: 'e1',
      originalTopic: 'orders',
      originalOffset: '5',
      error: undefined,
    });
    expect(record.headers['x-null']).toBeUndefined();
    expect(record.headers['x-empty']).toBe('');
    expect(record.headers['x-binary']).toBe('\uFFFD\uFFFD\u0000\uFFFD');
    expect(Object.keys(record.headers)).toHaveLength(1_000 + 8);
    expect(JSON.parse(JSON.stringify(toDeadLetterRow(groupCopies([record])[0]!)))).toMatchObject({
      key: null,
      eventId: 'e1',
      copies: 1,
    });
    expect(renderRecords(groupCopies([record]))).toHaveLength(2);
  });

  it('replays them byte for byte: null and empty values and repeats included', () => {
    const record = toDeadLetterRecord(
      'x.dead-letter',
      1,
      oddMessage(oddHeaders(), Buffer.from('k'), Buffer.from('{}')),
    );
    const headers = replayHeaders(record) as Record<string, unknown>;
    expect(headers['x-null']).toBeNull();
    expect(headers['x-all-null']).toEqual([null, null]);
    expect(headers['x-empty']).toEqual(Buffer.alloc(0));
    expect(headers['x-repeated']).toEqual([Buffer.from('a'), null, Buffer.alloc(0), Buffer.from('a')]);
    expect(headers['x-binary']).toEqual(Buffer.from([0xff, 0xfe, 0x00, 0xc3]));
    expect(headers['x-999']).toEqual(Buffer.from('999'));
    expect(headers.error).toBeUndefined();
    expect(Object.keys(headers)).toHaveLength(1_000 + 8);
    expect(Object.values(headers).every((value) => value !== undefined)).toBe(true);
  });

  it('skips the letter of an undecodable batch, and any with no value and no CloudEvents headers, saying why; replays a tombstone', () => {
    const diagnostics = (offset: string): RawHeaders => ({
      original_topic: Buffer.from('orders'),
      original_partition: Buffer.from('3'),
      original_offset: Buffer.from(offset),
      error: Buffer.from('boom'),
      'x-null': null,
    });
    const undecodable = toDeadLetterRecord(
      'x.dead-letter',
      0,
      oddMessage(
        {
          ...diagnostics('40'),
          original_last_offset: Buffer.from('45'),
          error_code: Buffer.from('UndecodableBatch'),
        },
        null,
        null,
      ),
    );
    const empty = toDeadLetterRecord(
      'x.dead-letter',
      1,
      oddMessage(diagnostics('50'), Buffer.from('k'), null),
    );
    const tombstone = toDeadLetterRecord(
      'x.dead-letter',
      2,
      oddMessage(
        { ce_id: Buffer.from('t1'), original_topic: Buffer.from('inventory.stock') },
        Buffer.from('SKU-1'),
        null,
      ),
    );
    const plan = planReplay([undecodable, empty, tombstone]);
    expect(plan.items.map((item) => item.message)).toEqual([
      {
        key: Buffer.from('SKU-1'),
        value: null,
        headers: { ce_id: Buffer.from('t1'), replayed_from: 'x.dead-letter/2/7' },
      },
    ]);
    expect(renderSkipped(plan)).toEqual([
      'skipped 0/7 (ce_id -): UndecodableBatch: the consumer could not decode the record batch at orders/3/40..45, so nothing of it was kept to replay; its records stay in orders until its retention ends, for a client that can decode them (kcat -C -t orders -p 3 -o 40)',
      'skipped 1/7 (ce_id -): no value and no CloudEvents headers: nothing of the original record was kept; read it at orders/3/50 on the original topic while it is retained',
    ]);
    expect(renderRecords(groupCopies([undecodable]))[1]).toMatch(/\sorders\/3\/40\.\.45\s+1\s/);
  });
});
