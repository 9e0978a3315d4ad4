import type { DeadLetterRecord } from '@pipeline/dead-letters';

/** A record as the reader hands it over: with its log timestamp and its size. */
export interface ReadRecord {
  readonly record: DeadLetterRecord;
  readonly timestampMs: number;
  readonly bytes: number;
}

export interface PageLimits {
  /** Records per page (CONSOLE_DEAD_LETTER_PAGE_SIZE). */
  readonly size: number;
  /** A page ends before this many bytes; its first record is shown whatever its size. */
  readonly maxBytes: number;
}

/** Where a page ends, per partition: it holds records below these offsets. */
export type Cursor = ReadonlyMap<number, bigint>;

export interface Watermark {
  readonly partition: number;
  readonly low: bigint;
  readonly high: bigint;
}

/** Offsets `[from, to)` of one partition. */
export interface OffsetRange {
  readonly partition: number;
  readonly from: bigint;
  readonly to: bigint;
}

const badRequest = (message: string) => Object.assign(new Error(message), { statusCode: 400 });

/** `0:120,1:98`: partition and the offset below which the page reads. */
export function parseCursor(text: string): Cursor {
  if (!/^\d{1,6}:\d{1,19}(,\d{1,6}:\d{1,19}){0,999}$/.test(text))
    throw badRequest(`before: "${text.slice(0, 80)}" is not a cursor (partition:offset,…)`);
  return new Map(
    text.split(',').map((pair) => {
      const [partition, offset] = pair.split(':') as [string, string];
      return [Number(partition), BigInt(offset)];
    }),
  );
}

export const formatCursor = (cursor: Cursor): string =>
  [...cursor]
    .sort(([a], [b]) => a - b)
    .map(([partition, offset]) => `${partition}:${offset}`)
    .join(',');

/**
 * What to read for the page below `cursor` (the end of the log without one): the last `size`
 * offsets below it in every partition, since a page takes at most `size` records from any of them.
 * A partition the cursor does not name is done (it holds nothing newer than the cursor's page).
 */
export function pageRanges(
  watermarks: readonly Watermark[],
  cursor: Cursor | undefined,
  size: number,
): { ends: Cursor; ranges: OffsetRange[] } {
  const ends = new Map<number, bigint>();
  const ranges: OffsetRange[] = [];
  for (const { partition, low, high } of watermarks) {
    const wanted = cursor === undefined ? high : (cursor.get(partition) ?? low);
    const to = wanted < low ? low : wanted > high ? high : wanted;
    ends.set(partition, to);
    const from = to - BigInt(size) > low ? to - BigInt(size) : low;
    if (from < to) ranges.push({ partition, from, to });
  }
  return { ends, ranges };
}

/** Selected positions (`<topic>/<partition>/<offset>`, at most a page of them) as one-record ranges. */
export function positionRanges(topic: string, positions: readonly string[], max: number): OffsetRange[] {
  if (positions.length > max) throw badRequest(`position: at most ${max} records at once (a page)`);
  const ranges = new Map<string, OffsetRange>();
  for (const position of positions) {
    const match = /^(.+)\/(\d{1,6})\/(\d{1,19})$/.exec(position);
    if (match?.[1] !== topic)
      throw badRequest(`position: "${position.slice(0, 200)}" is not a record of ${topic}`);
    const offset = BigInt(match[3]!);
    ranges.set(position, { partition: Number(match[2]), from: offset, to: offset + 1n });
  }
  return [...ranges.values()].sort((a, b) => a.partition - b.partition || Number(a.from - b.from));
}

/** Newest first: by log timestamp, then partition, then offset (one partition's newest first). */
const newer = (a: ReadRecord, b: ReadRecord): boolean =>
  a.timestampMs !== b.timestampMs
    ? a.timestampMs > b.timestampMs
    : a.record.partition !== b.record.partition
      ? a.record.partition < b.record.partition
      : BigInt(a.record.offset) > BigInt(b.record.offset);

/**
 * Merges partitions (each newest first) by taking the newest head each time, and cuts the result
 * at `size` records or `maxBytes`. Each partition then gives the page a run of its newest
 * records, which is what lets the cursor continue each partition exactly where the page ended.
 */
function takePage(sequences: readonly ReadRecord[][], limits: PageLimits): ReadRecord[] {
  const heads = sequences.map(() => 0);
  const page: ReadRecord[] = [];
  let bytes = 0;
  for (;;) {
    let best = -1;
    sequences.forEach((sequence, i) => {
      const head = sequence[heads[i]!];
      if (head !== undefined && (best === -1 || newer(head, sequences[best]![heads[best]!]!))) best = i;
    });
    if (best === -1) return page;
    const next = sequences[best]![heads[best]!]!;
    if (page.length > 0 && (page.length >= limits.size || bytes + next.bytes > limits.maxBytes)) return page;
    page.push(next);
    bytes += next.bytes;
    heads[best]! += 1;
  }
}

/**
 * Collects one page while the reader goes through the ranges, one partition at a time, oldest
 * record first. It never holds more than about two pages' bytes: the partition being read keeps
 * only its newest records that could still make the page, and each finished partition is merged
 * into the page at once (a record left out then is left out of the final page too).
 */
export class PageCollector {
  private page: ReadRecord[] = [];
  private current: ReadRecord[] = [];
  private currentBytes = 0;
  private count = 0;

  constructor(private readonly limits: PageLimits) {}

  /** Records the reader handed over: the page's cost. */
  get read(): number {
    return this.count;
  }

  add(record: ReadRecord): void {
    this.count += 1;
    this.current.push(record);
    this.currentBytes += record.bytes;
    const { size, maxBytes } = this.limits;
    // The oldest of this partition is out once the newer ones alone fill a page.
    while (this.current.length > size || (this.current.length > 1 && this.currentBytes > maxBytes))
      this.currentBytes -= this.current.shift()!.bytes;
  }

  /** The partition being read is complete. */
  endPartition(): void {
    const byPartition = new Map<number, ReadRecord[]>();
    for (const read of this.page) {
      const list = byPartition.get(read.record.partition) ?? [];
      list.push(read);
      byPartition.set(read.record.partition, list);
    }
    this.page = takePage([...byPartition.values(), this.current.reverse()], this.limits);
    this.current = [];
    this.currentBytes = 0;
  }

  /** The page, newest first, and the cursor of the next one (`undefined` at the log's start). */
  result(
    ends: Cursor,
    watermarks: readonly Watermark[],
  ): { records: DeadLetterRecord[]; next: Cursor | undefined } {
    const next = new Map(ends);
    for (const { record } of this.page) {
      const offset = BigInt(record.offset);
      if (offset < (next.get(record.partition) ?? offset + 1n)) next.set(record.partition, offset);
    }
    const more = watermarks.some(({ partition, low }) => (next.get(partition) ?? low) > low);
    return { records: this.page.map((read) => read.record), next: more ? next : undefined };
  }
}
