import { describe, expect, it } from 'vitest';
import {
  compactedAfterTombstone,
  compactedToLatest,
  countKeys,
  logEvidence,
  type LogRecord,
} from './compaction-criterion';

const KEYS = ['k0', 'k1', 'k2'];
const latest = (key: string) => `${key}:v2`;
let offset = 0;
const rec = (key: string, value: string | null): LogRecord => ({ offset: String(offset++), key, value });
const compacted = [rec('k0', 'k0:v2'), rec('k1', 'k1:v2'), rec('k2', 'k2:v2'), rec('roll', 'r')];

describe('compaction criterion', () => {
  it('holds when each key has only its latest value; other keys are not counted', () => {
    const counts = countKeys(compacted, KEYS, latest);
    expect(counts).toEqual({ records: 3, withValue: 3, tombstones: 0, latestOnly: KEYS });
    expect(compactedToLatest(counts, KEYS)).toBe(true);
  });

  it('does not hold while an older value is still there, or when a key kept an older value only', () => {
    const dirty = countKeys([rec('k0', 'k0:v1'), ...compacted], KEYS, latest);
    expect(compactedToLatest(dirty, KEYS)).toBe(false);
    const stale = countKeys([rec('k0', 'k0:v1'), rec('k1', 'k1:v2'), rec('k2', 'k2:v2')], KEYS, latest);
    expect(stale.latestOnly).toEqual(['k1', 'k2']);
    expect(compactedToLatest(stale, KEYS)).toBe(false);
  });

  it('after a tombstone: the others keep their latest value, the deleted key has none (its tombstone may stay)', () => {
    const withTombstone = countKeys([...compacted.slice(1), rec('k0', null)], KEYS, latest);
    expect(withTombstone).toMatchObject({ records: 3, withValue: 2, tombstones: 1 });
    expect(compactedAfterTombstone(withTombstone, KEYS, 'k0')).toBe(true);
    expect(compactedAfterTombstone(countKeys(compacted.slice(1), KEYS, latest), KEYS, 'k0')).toBe(true);
    // Not yet cleaned: the deleted key's value is still before its tombstone.
    expect(
      compactedAfterTombstone(countKeys([...compacted, rec('k0', null)], KEYS, latest), KEYS, 'k0'),
    ).toBe(false);
  });

  it('shows the log per key in log order, tombstones named', () => {
    expect(logEvidence('log', [rec('k1', 'a'), rec('k1', null)], ['k0', 'k1'])).toMatchObject({
      kind: 'table',
      rows: [
        ['k0', '0', ''],
        ['k1', '2', 'a, (tombstone)'],
      ],
    });
  });
});
