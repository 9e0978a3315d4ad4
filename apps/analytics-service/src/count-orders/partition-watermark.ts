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
