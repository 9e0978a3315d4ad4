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
  const where = { topic_partition: { topic, partition } };
  const previous = (await tx.partitionWatermark.findUnique({ where }))?.maxEventTime;
  if (previous === undefined || eventTime > previous) {
    await tx.partitionWatermark.upsert({
      where,
      create: { topic, partition, maxEventTime: eventTime },
      update: { maxEventTime: eventTime },
    });
  }
  return previous;
}
