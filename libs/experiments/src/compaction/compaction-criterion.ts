import type { Evidence } from '../experiment';

/** A record as read back from the log: its key and value (null = tombstone). */
export interface LogRecord {
  readonly offset: string;
  readonly key: string;
  readonly value: string | null;
}

export interface KeyCounts {
  /** Records of the experiment's keys (other keys, such as the segment-rolling one, are not counted). */
  readonly records: number;
  /** Of those, records with a value (not tombstones). */
  readonly withValue: number;
  readonly tombstones: number;
  /** Keys whose only record with a value is their latest value. */
  readonly latestOnly: readonly string[];
}

/** Counts the records of `keys` and checks that each key that has a value has exactly its latest one. */
export function countKeys(
  records: readonly LogRecord[],
  keys: readonly string[],
  latest: (key: string) => string,
): KeyCounts {
  const ours = records.filter((record) => keys.includes(record.key));
  const valued = ours.filter((record) => record.value !== null);
  return {
    records: ours.length,
    withValue: valued.length,
    tombstones: ours.length - valued.length,
    latestOnly: keys.filter((key) => {
      const values = valued.filter((record) => record.key === key);
      return values.length === 1 && values[0]!.value === latest(key);
    }),
  };
}

/** Fully compacted: one record per key, its latest value. */
export const compactedToLatest = (counts: KeyCounts, keys: readonly string[]): boolean =>
  counts.records === keys.length && counts.latestOnly.length === keys.length;

/**
 * After the tombstone of `deleted`: the other keys keep their latest value and nothing else,
 * and the deleted key has no value left (its tombstone may still be there, for delete.retention.ms).
 */
export const compactedAfterTombstone = (
  counts: KeyCounts,
  keys: readonly string[],
  deleted: string,
): boolean =>
  counts.withValue === keys.length - 1 &&
  counts.latestOnly.length === keys.length - 1 &&
  !counts.latestOnly.includes(deleted);

/** The log itself, per key: how many records, and the values in log order. */
export function logEvidence(
  caption: string,
  records: readonly LogRecord[],
  keys: readonly string[],
): Evidence {
  return {
    kind: 'table',
    caption,
    columns: ['Key', 'Records', 'Values (log order)'],
    rows: keys.map((key) => {
      const values = records
        .filter((record) => record.key === key)
        .map((record) => record.value ?? '(tombstone)');
      return [key, String(values.length), values.join(', ')];
    }),
  };
}
