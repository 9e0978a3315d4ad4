import type { IHeaders, KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { filterDeadLetters, parseIsoInstant } from './dead-letter-filter';
import { toDeadLetterRecord } from './dead-letter-record';
import { oneLine, renderRecords } from './dead-letter-report';
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
    expect(renderRecords([record])[1]).toMatch(/^0\/3\s+-\s+-\s+-\s+-\s+-\s+soon\s+-$/);
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

  it('prints an error on one bounded line', () => {
    expect(oneLine('  Error: boom\n    at handler (x.ts:1)  ', 20)).toBe('Error: boom at hand…');
    expect(oneLine(undefined, 20)).toBe('-');
  });
});
