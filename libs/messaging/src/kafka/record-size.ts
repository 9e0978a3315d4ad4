import type { Message } from 'kafkajs';

/** Per-record framing in a v2 record batch (lengths, offsets, timestamps), rounded up. */
const RECORD_OVERHEAD_BYTES = 100;

/** What a record weighs in a record batch: key, value and header bytes plus its framing. */
export function recordBytes(message: Pick<Message, 'key' | 'value' | 'headers'>): number {
  let bytes = RECORD_OVERHEAD_BYTES + byteLength(message.key) + byteLength(message.value);
  for (const [name, value] of Object.entries(message.headers ?? {}))
    for (const one of Array.isArray(value) ? value : [value])
      bytes += Buffer.byteLength(name) + byteLength(one);
  return bytes;
}

const byteLength = (value: Buffer | string | null | undefined): number =>
  value === null || value === undefined ? 0 : Buffer.byteLength(value);

/**
 * Consecutive runs of `items` weighing at most `maxBytes` each (an item heavier than that goes
 * alone): produce requests that stay under the broker's `message.max.bytes`, in the items' order.
 */
export function chunkBySize<T>(items: readonly T[], weigh: (item: T) => number, maxBytes: number): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const weight = weigh(item);
    if (current.length > 0 && bytes + weight > maxBytes) {
      chunks.push(current);
      [current, bytes] = [[], 0];
    }
    current.push(item);
    bytes += weight;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
