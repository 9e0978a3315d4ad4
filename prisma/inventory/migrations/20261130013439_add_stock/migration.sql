-- CreateEnum
CREATE TYPE "reservation_status" AS ENUM ('RESERVED', 'REJECTED');

-- CreateTable
CREATE TABLE "stock" (
    "sku" TEXT NOT NULL,
    "available" INTEGER NOT NULL,
    "reserved" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "stock_pkey" PRIMARY KEY ("sku")
);

-- CreateTable
CREATE TABLE "reservations" (
    "order_id" UUID NOT NULL,
    "items" JSONB NOT NULL,
    "status" "reservation_status" NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "reservations_pkey" PRIMARY KEY ("order_id")
);

-- ---------------------------------------------------------------------------
-- Hand-written below this line (everything above was generated from
-- schema.prisma by `node scripts/db/migrate.mjs create --service inventory --name add_stock`).
--
-- Stock never goes negative: the reservation handler checks before it moves
-- units, and this guard makes any bug that slips past that check fail its
-- transaction (SQLSTATE 23514 check_violation, dead-lettered as fatal) instead
-- of overselling.
--
-- It is a trigger, not a CHECK constraint, on purpose: the WebAssembly schema
-- engine behind `migrate.mjs create/check` panics when it introspects a CHECK
-- constraint (it reads pg_constraint.contype, a "char", as text), while
-- triggers are invisible to its schema diff, like the outbox NOTIFY trigger.
-- It raises the same SQLSTATE a CHECK would.
-- ---------------------------------------------------------------------------

-- CreateFunction
CREATE FUNCTION "stock_counts_non_negative"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."available" < 0 OR NEW."reserved" < 0 THEN
    RAISE EXCEPTION 'stock of % cannot go negative (available %, reserved %)',
      NEW."sku", NEW."available", NEW."reserved"
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END;
$$;

-- CreateTrigger
CREATE TRIGGER "stock_counts_non_negative_before_write"
BEFORE INSERT OR UPDATE ON "stock"
FOR EACH ROW EXECUTE FUNCTION "stock_counts_non_negative"();
