import type { DeadLetterRecord } from '@pipeline/dead-letters';
import { describe, expect, it } from 'vitest';
import { deadLetterHeadersTable, deadLetterProblems, type DeadLetterFacts } from './dead-letters-evidence';

const letter = {
  topic: 'lab.orders.dead-letter',
  partition: 0,
  offset: '0',
  headers: { original_topic: 'lab.orders', original_offset: '0', error: 'boom', attempts: '3' },
  originalTopic: 'lab.orders',
  originalOffset: '0',
  error: 'boom',
  attempts: 3,
} as unknown as DeadLetterRecord;

const facts: DeadLetterFacts = {
  topic: 'lab.orders',
  poisonOffset: '0',
  attempts: [1, 2, 3].map((attempt) => ({
    offset: '0',
    attempt,
    error: 'boom',
    errorClass: 'retriable' as const,
  })),
  maxAttempts: 3,
  deadLetter: letter,
  warnLines: ['{"level":"warn","msg":"dead letter lab.orders.dead-letter/0@0: ..."}'],
  nextProcessedOffset: '1',
  committedAfter: '2',
  replayProcessedOffset: '2',
};

describe('the dead-letters criterion', () => {
  it('holds on the expected facts', () => {
    expect(deadLetterProblems(facts)).toEqual([]);
  });

  it('names each thing that did not hold', () => {
    expect(
      deadLetterProblems({
        ...facts,
        attempts: facts.attempts.slice(0, 1),
        deadLetter: { ...letter, originalOffset: '7', attempts: 1 },
        warnLines: [],
        committedAfter: '0',
        replayProcessedOffset: undefined,
      }),
    ).toEqual([
      '1 attempts on the poison record, not 3',
      'original_offset is 7',
      'attempts header is 1',
      'no WARN line of the DLT logger',
      'committed offset 0 is not past the poison record',
      'the replayed record was not processed',
    ]);
    expect(deadLetterProblems({ ...facts, deadLetter: undefined })).toEqual([
      'no record on the dead-letter topic',
    ]);
  });

  it('shows every diagnostic header, a missing one as such', () => {
    const table = deadLetterHeadersTable(letter);
    expect(table.kind === 'table' && table.rows.map(([name]) => name)).toEqual([
      'ce_id',
      'ce_type',
      'original_topic',
      'original_partition',
      'original_offset',
      'error',
      'error_class',
      'attempts',
      'failed_at',
      'consumer_group',
    ]);
    expect(table.kind === 'table' && table.rows.find(([name]) => name === 'failed_at')?.[1]).toBe(
      '(missing)',
    );
  });
});
