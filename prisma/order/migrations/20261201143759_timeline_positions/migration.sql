-- AlterTable
ALTER TABLE "order_timeline" ADD COLUMN     "causation_id" UUID,
ADD COLUMN     "offset" BIGINT,
ADD COLUMN     "partition" INTEGER,
ADD COLUMN     "topic" TEXT;

-- ---------------------------------------------------------------------------
-- Hand-written below this line (everything above was generated from
-- schema.prisma by `node scripts/db/migrate.mjs create --service order --name
-- timeline_positions`, with `topic` added as nullable first).
--
-- Entries written before this migration get the topic of their event type (the
-- contracts declare each type on one topic); their partition, offset and
-- causation stay unknown (null).
-- ---------------------------------------------------------------------------

-- Backfill
UPDATE "order_timeline" SET "topic" = CASE
    WHEN "type" IN ('order.placed', 'order.confirmed', 'order.cancelled') THEN 'orders'
    WHEN "type" IN ('payment.authorized', 'payment.declined', 'payment.refunded') THEN 'payments'
    WHEN "type" IN ('stock.reserved', 'stock.rejected') THEN 'inventory'
    ELSE 'unknown'
  END;

-- AlterTable
ALTER TABLE "order_timeline" ALTER COLUMN "topic" SET NOT NULL;
