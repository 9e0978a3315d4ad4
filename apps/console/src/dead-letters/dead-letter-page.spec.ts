import type { DeadLetterRecord } from '@pipeline/dead-letters';
import { describe, expect, it } from 'vitest';
import {
  formatCursor,
  PageCollector,
  pageRanges,
  parseCursor,
  positionRanges,
  type Cursor,
  type PageLimits,
  type ReadRecord,
  type Watermark,
} from './dead-letter-page';

/** A topic in memory: per partition, its records from offset `low` on. */
type Log = Map<number, { low: bigint; records: ReadRecord[] }>;

const read = (partition: number, offset: number, timestampMs: number, bytes = 100): ReadRecord => ({
  record: { topic: 'dlt', partition, offset: String(offset) } as DeadLetterRecord,
  timestampMs,
  bytes,
});

const watermarksOf = (log: Log): Watermark[] =>
  [...log].map(([partition, { low, records }]) => ({
    partition,
    low,
    high: low + BigInt(records.length),
  }));

/** What the console does for one view: the ranges, read one partition after another. */
function page(log: Log, cursor: Cursor | undefined, limits: PageLimits) {
  const watermarks = watermarksOf(log);
  const { ends, ranges } = pageRanges(watermarks, cursor, limits.size);
  const collector = new PageCollector(limits);
  for (const range of ranges) {
    const { low, records } = log.get(range.partition)!;
    for (let offset = range.from; offset < range.to; offset++) collector.add(records[Number(offset - low)]!);
    collector.endPartition();
  }
  return { ...collector.result(ends, watermarks), read: collector.read };
}

const positions = (records: readonly DeadLetterRecord[]) => records.map((r) => `${r.partition}/${r.offset}`);

function walk(log: Log, limits: PageLimits) {
  const pages: string[][] = [];
  let cursor: Cursor | undefined;
  do {
    const next = page(log, cursor, limits);
    pages.push(positions(next.records));
    cursor = next.next;
  } while (cursor !== undefined && pages.length < 1_000);
  return pages;
}

describe('dead-letter pages', () => {
  it('reads and writes the cursor, and names it when it is malformed', () => {
    const cursor = parseCursor('1:98,0:120');
    expect(formatCursor(cursor)).toBe('0:120,1:98');
    for (const bad of ['', 'zero', '0:-1', '0:1,', '0:1;1:2'])
      expect(() => parseCursor(bad)).toThrow(/^before: /);
  });

  it('reads selected records one by one, in dead-letter order, and only from this topic', () => {
    expect(positionRanges('dlt', ['dlt/1/7', 'dlt/0/9', 'dlt/1/2', 'dlt/1/7'], 10)).toEqual([
      { partition: 0, from: 9n, to: 10n },
      { partition: 1, from: 2n, to: 3n },
      { partition: 1, from: 7n, to: 8n },
    ]);
    expect(() => positionRanges('dlt', ['other/0/1'], 10)).toThrow(/^position: .* not a record of dlt/);
    expect(() => positionRanges('dlt', ['dlt/0/1', 'dlt/0/2'], 1)).toThrow(/at most 1 records/);
  });

  it('reads at most a page per partition below the cursor, within the watermarks', () => {
    const watermarks = [
      { partition: 0, low: 10n, high: 100n },
      { partition: 1, low: 0n, high: 3n },
      { partition: 2, low: 5n, high: 5n },
    ];
    expect(pageRanges(watermarks, undefined, 8).ranges).toEqual([
      { partition: 0, from: 92n, to: 100n },
      { partition: 1, from: 0n, to: 3n },
    ]);
    // Beyond the watermarks is clamped; a partition the cursor does not name is done.
    expect(pageRanges(watermarks, new Map([[0, 500n]]), 8)).toEqual({
      ends: new Map([
        [0, 100n],
        [1, 0n],
        [2, 5n],
      ]),
      ranges: [{ partition: 0, from: 92n, to: 100n }],
    });
  });

  it('pages newest first across partitions, every record once, each page a bounded read', () => {
    // 3 partitions, timestamps rising in each, interleaved between them.
    const log: Log = new Map();
    let time = 0;
    for (let n = 0; n < 100; n++) {
      const partition = (n * 7) % 3;
      const entry = log.get(partition) ?? { low: 4n, records: [] };
      entry.records.push(read(partition, 4 + entry.records.length, (time += 10)));
      log.set(partition, entry);
    }
    const newestFirst = [...log.values()]
      .flatMap((p) => p.records)
      .sort((a, b) => b.timestampMs - a.timestampMs)
      .map((r) => `${r.record.partition}/${r.record.offset}`);
    const limits = { size: 8, maxBytes: 1_000_000 };
    const pages = walk(log, limits);
    expect(pages.slice(0, -1).every((p) => p.length === 8)).toBe(true);
    expect(pages.flat()).toEqual(newestFirst);
    expect(page(log, undefined, limits).read).toBe(3 * 8);
  });

  it('keeps each partition in offset order and loses nothing when timestamps go backwards', () => {
    const log: Log = new Map();
    for (const partition of [0, 1]) {
      const records = Array.from({ length: 30 }, (_, i) =>
        read(partition, i, (i * 7919 + partition * 31) % 101, 50 + ((i * 13) % 200)),
      );
      log.set(partition, { low: 0n, records });
    }
    const pages = walk(log, { size: 5, maxBytes: 400 });
    const all = pages.flat();
    expect(new Set(all).size).toBe(60);
    for (const partition of ['0', '1']) {
      const offsets = all.filter((p) => p.startsWith(`${partition}/`)).map((p) => Number(p.split('/')[1]));
      expect(offsets).toEqual([...offsets].sort((a, b) => b - a));
    }
  });

  it('ends a page at maxBytes, and still shows one record larger than that', () => {
    const records = [300, 300, 300, 300, 2_000, 300].map((bytes, i) => read(0, i, i, bytes));
    const log: Log = new Map([[0, { low: 0n, records }]]);
    expect(walk(log, { size: 10, maxBytes: 1_000 })).toEqual([
      ['0/5'],
      ['0/4'],
      ['0/3', '0/2', '0/1'],
      ['0/0'],
    ]);
  });
});
