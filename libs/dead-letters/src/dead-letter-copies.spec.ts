import type { KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { FirstCopies, groupCopies, incidentOf } from './dead-letter-copies';
import { toDeadLetterRecord, type DeadLetterRecord } from './dead-letter-record';
import { renderDuplicates, renderRecords, renderSummary, toDeadLetterRow } from './dead-letter-report';
import { summariseDeadLetters } from './dead-letter-summary';
import { planReplay } from './replay';

interface Original {
  readonly group?: string;
  readonly topic?: string;
  readonly partition?: string;
  readonly offset?: string;
}

/** A consumer's dead letter of `original` at `partition/offset` of the dead-letter topic. */
function letter(at: string, original: Original, error = 'boom', failedAt = '2026-12-01T10:00:00Z') {
  const [partition, offset] = at.split('/') as [string, string];
  const headers: Record<string, string> = { ce_id: `event-of-${original.offset ?? 'x'}`, error };
  if (original.group !== undefined) headers.consumer_group = original.group;
  if (original.topic !== undefined) headers.original_topic = original.topic;
  if (original.partition !== undefined) headers.original_partition = original.partition;
  if (original.offset !== undefined) headers.original_offset = original.offset;
  headers.failed_at = failedAt;
  const message: KafkaMessage = {
    key: Buffer.from('order-1'),
    value: Buffer.from('{}'),
    timestamp: '0',
    attributes: 0,
    offset,
    headers,
  };
  return toDeadLetterRecord('payment.dead-letter', Number(partition), message);
}

const orders17 = { group: 'payment-service', topic: 'orders', partition: '2', offset: '17' };
const positions = (records: readonly DeadLetterRecord[]) => records.map((r) => `${r.partition}/${r.offset}`);

describe('copies of one dead letter', () => {
  it('are the same consumer group, original topic, partition and offset', () => {
    expect(incidentOf(letter('0/1', orders17))).toBe(incidentOf(letter('0/9', orders17)));
    for (const other of [
      { ...orders17, group: 'analytics-service' },
      { ...orders17, topic: 'payments' },
      { ...orders17, partition: '3' },
      { ...orders17, offset: '18' },
    ])
      expect(incidentOf(letter('0/9', other))).not.toBe(incidentOf(letter('0/1', orders17)));
  });

  it('never merges a record that does not name its original completely (a relay letter, a foreign record)', () => {
    const { offset: _offset, ...noOffset } = orders17;
    const { partition: _partition, ...noPartition } = orders17;
    for (const original of [{}, noOffset, noPartition, { ...orders17, offset: 'seventeen' }])
      expect(incidentOf(letter('0/1', original))).toBeUndefined();
    const foreign = [letter('0/1', {}), letter('0/2', {}), letter('0/3', noOffset), letter('0/4', noOffset)];
    expect(groupCopies(foreign).map((group) => group.copies.length)).toEqual([1, 1, 1, 1]);
  });

  it('group in the order of first appearance, each led by its copy first in dead-letter order', () => {
    // Newest first, as a console page holds them.
    const page = [
      letter('1/40', orders17, 'again'),
      letter('0/12', { ...orders17, offset: '18' }),
      letter('1/7', orders17),
      letter('1/3', {}),
    ];
    const groups = groupCopies(page);
    expect(groups.map((group) => positions(group.copies))).toEqual([['1/7', '1/40'], ['0/12'], ['1/3']]);
    expect(groups.map((group) => positions([group.first]))).toEqual([['1/7'], ['0/12'], ['1/3']]);
    expect(toDeadLetterRow(groups[0]!)).toMatchObject({
      partition: 1,
      offset: '7',
      copies: 2,
      otherCopies: ['1/40'],
    });
  });

  it('are counted once in the summary and listed once, with their copies', () => {
    const records = [
      letter('0/0', orders17, 'timeout', '2026-12-01T10:00:00Z'),
      letter('0/1', { ...orders17, offset: '18' }, 'timeout'),
      letter('0/2', orders17, 'timeout', '2026-12-01T10:05:00Z'),
      letter('0/3', orders17, 'timeout', '2026-12-01T10:09:00Z'),
    ];
    const summary = summariseDeadLetters(records);
    expect(summary).toMatchObject({
      total: 2,
      records: 4,
      duplicateCopies: 2,
      byError: [{ value: 'timeout', count: 2 }],
      newestFailedAt: '2026-12-01T10:09:00Z',
    });
    expect(renderSummary('payment.dead-letter', summary)[0]).toBe(
      'payment.dead-letter: 2 dead-lettered records (4 records: 2 are later copies of a record the same group dead-lettered again, counted and listed once)',
    );
    const lines = renderRecords(groupCopies(records));
    expect(lines[0]).toMatch(/^PARTITION\/OFFSET\s+CE_ID\s+CE_TYPE\s+ORIGINAL\s+COPIES\s+CLASS/);
    expect(lines.slice(1, 3).map((line) => line.split(/\s+/)[0])).toEqual(['0/0', '0/1']);
    expect(lines[1]).toMatch(/^0\/0\s+event-of-17\s+-\s+orders\/2\/17\s+3\s/);
    expect(lines.at(-1)).toBe('  0/0 orders/2/17: also at 0/2, 0/3');
  });
});

describe('replaying copies', () => {
  it('sends the first copy once and reports the others', () => {
    const first = letter('0/4', orders17);
    const plan = planReplay([first, letter('0/5', { ...orders17, offset: '18' }), letter('0/9', orders17)]);
    expect(positions(plan.items.map((item) => item.source))).toEqual(['0/4', '0/5']);
    expect(plan.duplicates.map((d) => [positions([d.source])[0], d.firstCopy])).toEqual([
      ['0/9', 'payment.dead-letter/0/4'],
    ]);
    expect(renderDuplicates(plan)).toEqual([
      'not sent again 0/9 (ce_id event-of-17): a later copy of payment.dead-letter/0/4, the same original dead-lettered again',
    ]);
  });

  it('sends once across batches that share their FirstCopies (a redrive a page at a time)', () => {
    const firstCopies = new FirstCopies();
    const one = planReplay([letter('0/4', orders17)], firstCopies);
    const two = planReplay([letter('0/80', orders17), letter('0/81', {}), letter('0/82', {})], firstCopies);
    expect(one.items).toHaveLength(1);
    expect(positions(two.items.map((item) => item.source))).toEqual([]);
    expect(positions(two.skipped.map((s) => s.source))).toEqual(['0/81', '0/82']);
    expect(two.duplicates.map((d) => d.firstCopy)).toEqual(['payment.dead-letter/0/4']);
  });
});
