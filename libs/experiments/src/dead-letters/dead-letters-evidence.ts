import { ConsumerDeadLetterHeaderNames, EventHeaders } from '@pipeline/contracts';
import type { DeadLetterRecord } from '@pipeline/dead-letters';
import type { Evidence } from '../experiment';
import type { FailedAttempt } from './retrying-consumer';

export const attemptsTable = (attempts: readonly FailedAttempt[]): Evidence => ({
  kind: 'table',
  caption: 'Attempts of the broken handler',
  columns: ['offset', 'attempt', 'error', 'class', 'backoff before the next'],
  rows: attempts.map((a) => [
    a.offset,
    String(a.attempt),
    a.error,
    a.errorClass,
    a.backoffMs === undefined ? 'none: dead-lettered' : `${a.backoffMs} ms`,
  ]),
});

/** The dead letter's event id and type, then the eight diagnostic headers the dead-letter step adds. */
export const deadLetterHeadersTable = (record: DeadLetterRecord): Evidence => ({
  kind: 'table',
  caption: `Headers of the dead letter at ${record.topic}/${record.partition}@${record.offset}`,
  columns: ['header', 'value'],
  rows: [EventHeaders.id, EventHeaders.type, ...ConsumerDeadLetterHeaderNames].map((name) => [
    name,
    record.headers[name] ?? '(missing)',
  ]),
});

export interface DeadLetterFacts {
  readonly topic: string;
  readonly poisonOffset: string;
  readonly attempts: readonly FailedAttempt[];
  readonly maxAttempts: number;
  readonly deadLetter: DeadLetterRecord | undefined;
  readonly warnLines: readonly string[];
  /** Offset of the record after the poison one, on the same partition, that the handler processed. */
  readonly nextProcessedOffset: string | undefined;
  /** The group's committed offset on the partition after both. */
  readonly committedAfter: string;
  /** Offset at which the fixed handler processed the replayed record. */
  readonly replayProcessedOffset: string | undefined;
}

/** What did not hold, in words; empty when the criterion is met. */
export function deadLetterProblems(facts: DeadLetterFacts): string[] {
  const problems: string[] = [];
  const onPoison = facts.attempts.filter((a) => a.offset === facts.poisonOffset);
  if (onPoison.length !== facts.maxAttempts)
    problems.push(`${onPoison.length} attempts on the poison record, not ${facts.maxAttempts}`);
  const letter = facts.deadLetter;
  if (letter === undefined) problems.push('no record on the dead-letter topic');
  else {
    if (letter.originalTopic !== facts.topic) problems.push(`original_topic is ${letter.originalTopic}`);
    if (letter.originalOffset !== facts.poisonOffset)
      problems.push(`original_offset is ${letter.originalOffset}`);
    if (letter.error === undefined) problems.push('no error header');
    if (letter.attempts !== facts.maxAttempts) problems.push(`attempts header is ${letter.attempts}`);
  }
  if (!facts.warnLines.some((line) => line.includes('dead letter')))
    problems.push('no WARN line of the DLT logger');
  if (facts.nextProcessedOffset === undefined) problems.push('the next record was not processed');
  if (BigInt(facts.committedAfter) <= BigInt(facts.poisonOffset))
    problems.push(`committed offset ${facts.committedAfter} is not past the poison record`);
  if (facts.replayProcessedOffset === undefined) problems.push('the replayed record was not processed');
  return problems;
}
