import { chunkBySize, recordBytes } from '@pipeline/messaging';
import { toMessage, type OutboxRow } from './outbox-table';

/** One `sendBatch` of the relay: consecutive rows in id order. */
export interface RelaySend {
  readonly rows: readonly OutboxRow[];
  /** Set on a lone row heavier than the limit by itself: what it weighs. */
  readonly oversizeBytes: number | undefined;
}

/**
 * What a row weighs as a record. A send span's headers replace the row's own `traceparent` (and
 * `tracestate`), so tracing does not change the weight.
 */
export const rowBytes = (row: OutboxRow): number => recordBytes(toMessage(row));

/**
 * The sends a batch of rows becomes: consecutive runs of at most `maxBatchBytes`, so a produce
 * request stays under the topics' `max.message.bytes` (1 MiB by default). The relay sends them
 * one after the other, in id order, so every key keeps its order. A row over the limit on its
 * own comes alone, marked: the broker would refuse it on every attempt.
 */
export function relaySends(rows: readonly OutboxRow[], maxBatchBytes: number): RelaySend[] {
  return chunkBySize(rows, rowBytes, maxBatchBytes).map((chunk) => {
    const bytes = chunk.length === 1 && chunk[0] !== undefined ? rowBytes(chunk[0]) : 0;
    return { rows: chunk, oversizeBytes: bytes > maxBatchBytes ? bytes : undefined };
  });
}

const TOO_LARGE = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE']);

/** Whether the broker refused a send as too large, however kafkajs and the relay wrapped it. */
export function isTooLarge(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const { type, cause, errors } = error as { type?: unknown; cause?: unknown; errors?: unknown };
  if (typeof type === 'string' && TOO_LARGE.has(type)) return true;
  if (Array.isArray(errors) && errors.some((inner) => isTooLarge(inner, depth + 1))) return true;
  return cause !== error && isTooLarge(cause, depth + 1);
}
