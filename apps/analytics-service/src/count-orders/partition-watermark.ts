import type { Sql } from '@pipeline/database';
import { partitionKey, type FoldedWatermark } from '@pipeline/contracts';

// The watermark (the highest event time seen) is kept per partition, not globally: a partition
// always replays in the same order, so after an offset reset every event meets the same
// watermark as the first time and is late, or not, exactly as before. A global maximum would
// depend on how the partitions happened to interleave. The rows live in the consumer
// transaction, so they roll back with it.

// FOR UPDATE, sorted: a partition's batches (say a zombie's and its successor's during a
// rebalance) take turns, and two batches never lock the same rows in different orders.
const LOCK_WATERMARKS = `
  SELECT topic, partition, max_event_time FROM partition_watermarks
   WHERE (topic, partition) IN (SELECT * FROM unnest($1::text[], $2::int[]))
   ORDER BY topic, partition FOR UPDATE`;

// Only ever forward: the batch sends only the partitions it moved, and the WHERE keeps a row that
// is already later (a no-op, not a step back).
const ADVANCE_WATERMARKS = `
  INSERT INTO partition_watermarks AS m (topic, partition, max_event_time)
  SELECT * FROM unnest($1::text[], $2::int[], $3::timestamptz[]) ORDER BY 1, 2
  ON CONFLICT (topic, partition) DO UPDATE SET max_event_time = EXCLUDED.max_event_time
   WHERE m.max_event_time < EXCLUDED.max_event_time`;

interface WatermarkRow {
  readonly topic: string;
  readonly partition: number;
  readonly max_event_time: Date;
}

/** Locks and reads the watermarks of the given partitions, by partitionKey. */
export async function lockWatermarks(
  sql: Sql,
  partitions: readonly { topic: string; partition: number }[],
): Promise<Map<string, Date>> {
  const rows = await sql.query<WatermarkRow>(LOCK_WATERMARKS, [
    partitions.map((p) => p.topic),
    partitions.map((p) => p.partition),
  ]);
  return new Map(rows.map((row) => [partitionKey(row.topic, row.partition), row.max_event_time]));
}

export async function advanceWatermarks(sql: Sql, watermarks: readonly FoldedWatermark[]): Promise<void> {
  if (watermarks.length === 0) return;
  await sql.execute(ADVANCE_WATERMARKS, [
    watermarks.map((w) => w.topic),
    watermarks.map((w) => w.partition),
    watermarks.map((w) => w.maxEventTime.toISOString()),
  ]);
}
