import type { Prisma } from '../generated/prisma/client';

/**
 * Moves the partition's watermark (the highest event time seen on it) forward and returns the
 * value it had before this event. Per partition, not global: a partition always replays in the
 * same order, so after an offset reset every event meets the same watermark as the first time
 * and is late, or not, exactly as before. A global maximum would depend on how the partitions
 * happened to interleave. The row lives in the inbox transaction, so it rolls back with it.
 */
export async function advanceWatermark(
  tx: Prisma.TransactionClient,
  topic: string,
  partition: number,
  eventTime: Date,
): Promise<Date | undefined> {
  // One round trip: read the old value and move it forward only if this event is later.
  const [row] = await tx.$queryRaw<{ previous: Date | null }[]>`
    WITH previous AS (
      SELECT max_event_time FROM partition_watermarks WHERE topic = ${topic} AND partition = ${partition}
    ), advanced AS (
      INSERT INTO partition_watermarks (topic, partition, max_event_time)
      VALUES (${topic}, ${partition}, ${eventTime})
      ON CONFLICT (topic, partition) DO UPDATE SET max_event_time = EXCLUDED.max_event_time
      WHERE partition_watermarks.max_event_time < EXCLUDED.max_event_time
    )
    SELECT (SELECT max_event_time FROM previous) AS previous`;
  return row?.previous ?? undefined;
}

/** Key of the transaction-level advisory lock every counting transaction holds (see below). */
export const COUNT_ORDERS_LOCK_KEY = 0xa7a1_7c5;

/**
 * Makes counting transactions take turns. A transaction counts a whole chunk of a partition's
 * events, upserting customer windows in arrival order; two partitions' chunks that share
 * customers would lock the same window rows in different orders and deadlock (a one-second stall,
 * then a whole chunk rolled back and redone). Queueing at the door once per transaction instead
 * costs a round trip.
 */
export async function takeCountingTurn(tx: Prisma.TransactionClient): Promise<void> {
  await tx.$executeRawUnsafe('SELECT pg_advisory_xact_lock($1)', COUNT_ORDERS_LOCK_KEY);
}
