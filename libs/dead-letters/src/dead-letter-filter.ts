import { deadLetterPosition, type DeadLetterRecord } from './dead-letter-record';

/** Every given criterion must hold; a record without a valid `failed_at` fails any time bound. */
export interface DeadLetterFilter {
  /** `ce_id` values. */
  readonly eventIds?: readonly string[];
  readonly originalTopic?: string;
  /** `ce_type`. */
  readonly eventType?: string;
  /** A case-insensitive substring of the `error` header. */
  readonly errorContains?: string;
  /** Dead-letter positions, `<topic>/<partition>/<offset>` (deadLetterPosition). */
  readonly positions?: readonly string[];
  /** Inclusive lower bound on `failed_at`. */
  readonly since?: Date;
  /** Exclusive upper bound on `failed_at`. */
  readonly until?: Date;
}

export function filterDeadLetters(
  records: readonly DeadLetterRecord[],
  filter: DeadLetterFilter,
): DeadLetterRecord[] {
  const ids = filter.eventIds && filter.eventIds.length > 0 ? new Set(filter.eventIds) : undefined;
  const positions = filter.positions && filter.positions.length > 0 ? new Set(filter.positions) : undefined;
  const error = filter.errorContains?.toLowerCase();
  const since = filter.since?.getTime();
  const until = filter.until?.getTime();
  return records.filter(
    (record) =>
      (ids === undefined || (record.eventId !== undefined && ids.has(record.eventId))) &&
      (positions === undefined || positions.has(deadLetterPosition(record))) &&
      (filter.originalTopic === undefined || record.originalTopic === filter.originalTopic) &&
      (filter.eventType === undefined || record.eventType === filter.eventType) &&
      (error === undefined || (record.error ?? '').toLowerCase().includes(error)) &&
      (since === undefined || (record.failedAtMs !== undefined && record.failedAtMs >= since)) &&
      (until === undefined || (record.failedAtMs !== undefined && record.failedAtMs < until)),
  );
}

// A date alone means UTC midnight; a time needs a zone, since the machine's local zone is a guess.
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/** Parses `2026-11-30`, `2026-11-30T10:15Z`, `2026-11-30T10:15:00.123+01:00`; `undefined` otherwise. */
export function parseIsoInstant(text: string): Date | undefined {
  if (!ISO_INSTANT.test(text)) return undefined;
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  // Date rolls 2026-02-30 over to March 2 instead of rejecting it.
  if (new Date(Date.UTC(year, month - 1, day)).getUTCDate() !== day) return undefined;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
