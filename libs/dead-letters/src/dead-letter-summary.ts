import { groupCopies } from './dead-letter-copies';
import type { DeadLetterRecord } from './dead-letter-record';

/** How a missing header is counted, so absent diagnostics stay visible instead of vanishing. */
export const MISSING_HEADER = '(missing)';

export interface Count {
  readonly value: string;
  readonly count: number;
}

export interface DeadLetterSummary {
  /** Dead letters, each counted once however many copies of it the topic holds; the counts below too. */
  readonly total: number;
  /** Records read: `total` plus `duplicateCopies`. */
  readonly records: number;
  /** Later copies of a record dead-lettered more than once by the same group (groupCopies). */
  readonly duplicateCopies: number;
  readonly byError: readonly Count[];
  readonly byErrorClass: readonly Count[];
  readonly byOriginalTopic: readonly Count[];
  readonly byEventType: readonly Count[];
  /** `failed_at` of the oldest and newest records, as written; `undefined` when none has one. */
  readonly oldestFailedAt: string | undefined;
  readonly newestFailedAt: string | undefined;
}

/** Counts per value, largest first (ties by value, so the output is stable). */
export function countBy<T>(items: readonly T[], valueOf: (item: T) => string | undefined): Count[] {
  const counts = new Map<string, number>();
  for (const item of items) {
    const value = valueOf(item) ?? MISSING_HEADER;
    counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  return [...counts]
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));
}

export function summariseDeadLetters(records: readonly DeadLetterRecord[]): DeadLetterSummary {
  let oldest: DeadLetterRecord | undefined;
  let newest: DeadLetterRecord | undefined;
  for (const record of records) {
    if (record.failedAtMs === undefined) continue;
    if (oldest === undefined || record.failedAtMs < (oldest.failedAtMs ?? Infinity)) oldest = record;
    if (newest === undefined || record.failedAtMs > (newest.failedAtMs ?? -Infinity)) newest = record;
  }
  const firsts = groupCopies(records).map((group) => group.first);
  return {
    total: firsts.length,
    records: records.length,
    duplicateCopies: records.length - firsts.length,
    byError: countBy(firsts, (record) => record.error),
    byErrorClass: countBy(firsts, (record) => record.errorClass),
    byOriginalTopic: countBy(firsts, (record) => record.originalTopic),
    byEventType: countBy(firsts, (record) => record.eventType),
    oldestFailedAt: oldest?.failedAt,
    newestFailedAt: newest?.failedAt,
  };
}
