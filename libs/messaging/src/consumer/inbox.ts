import type { SqlClient } from '../database/sql-client';
import type { EventMetadata } from '../envelope/event-envelope';
import type { RecordPosition } from './event-context';

export interface InboxEntry {
  readonly metadata: EventMetadata;
  readonly position: RecordPosition;
}

/**
 * Claims events for `consumer` in the caller's transaction with one multi-row INSERT and returns
 * the ids that were new. A conflicting row means the event was processed (and committed) before:
 * the caller skips it. A concurrent claim of the same id by another member blocks on the primary
 * key until that transaction ends, so exactly one of them applies the effects.
 */
export async function claimInbox(
  tx: SqlClient,
  consumer: string,
  entries: readonly InboxEntry[],
): Promise<Set<string>> {
  if (entries.length === 0) return new Set();
  const values: unknown[] = [];
  const rows = entries.map(({ metadata, position }) => {
    const n = values.length;
    values.push(consumer, metadata.id, position.topic, position.partition, position.offset);
    return `($${n + 1}, $${n + 2}::uuid, $${n + 3}, $${n + 4}::int, $${n + 5}::bigint)`;
  });
  const claimed = await tx.$queryRawUnsafe<{ event_id: string }[]>(
    `INSERT INTO inbox (consumer, event_id, topic, partition, "offset") VALUES ${rows.join(', ')}
     ON CONFLICT DO NOTHING RETURNING event_id::text AS event_id`,
    ...values,
  );
  return new Set(claimed.map((row) => row.event_id));
}

/** The advisory-lock namespace (first key) of record keys: 'KEYS'. */
const KEY_LOCK_SPACE = 0x4b455953;

/**
 * Takes a transaction-level advisory lock per distinct record key, in one global order. Events of
 * one order arrive on several topics (payments and inventory for order-service) whose partitions
 * are consumed concurrently; without this, two chunks sharing orders would lock their rows in
 * different orders and deadlock. With it, the second chunk waits for the first to commit.
 */
export async function lockKeys(tx: SqlClient, keys: readonly (string | null)[]): Promise<void> {
  const distinct = [...new Set(keys.filter((key): key is string => key !== null))];
  if (distinct.length === 0) return;
  await tx.$executeRawUnsafe(
    `SELECT pg_advisory_xact_lock($1::int, h)
       FROM (SELECT DISTINCT hashtext(k) AS h FROM unnest($2::text[]) AS k ORDER BY h) AS ordered`,
    KEY_LOCK_SPACE,
    distinct,
  );
}
