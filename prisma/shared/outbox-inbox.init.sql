-- CreateTable
CREATE TABLE "outbox" (
    "id" BIGSERIAL NOT NULL,
    "event_id" UUID NOT NULL,
    "topic" TEXT NOT NULL,
    "key" TEXT,
    "type" TEXT NOT NULL,
    "payload" JSONB,
    "headers" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "outbox_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "inbox" (
    "consumer" TEXT NOT NULL,
    "event_id" UUID NOT NULL,
    "topic" TEXT NOT NULL,
    "partition" INTEGER NOT NULL,
    "offset" BIGINT NOT NULL,
    "processed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "inbox_pkey" PRIMARY KEY ("consumer","event_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "outbox_event_id_key" ON "outbox"("event_id");

-- CreateIndex
CREATE INDEX "outbox_created_at_idx" ON "outbox"("created_at");

-- CreateIndex
CREATE INDEX "inbox_processed_at_idx" ON "inbox"("processed_at");

-- ---------------------------------------------------------------------------
-- Hand-written below this line (everything above was generated from
-- schema.prisma by `node scripts/db/migrate.mjs create --service <name> --name init`).
-- Prisma cannot express triggers or functions; they are also invisible to its
-- schema diff, so `node scripts/db/migrate.mjs check` still reports no change.
--
-- Wake the outbox relay, which LISTENs on channel "outbox", once per INSERT
-- statement (not per row). The payload is empty: the relay reads the table in
-- `id` order. NOTIFY is delivered on commit and de-duplicated per transaction.
-- ---------------------------------------------------------------------------

-- CreateFunction
CREATE FUNCTION "outbox_notify"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('outbox', '');
  RETURN NULL;
END;
$$;

-- CreateTrigger
CREATE TRIGGER "outbox_notify_after_insert"
AFTER INSERT ON "outbox"
FOR EACH STATEMENT EXECUTE FUNCTION "outbox_notify"();
