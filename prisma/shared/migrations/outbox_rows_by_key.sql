-- A writer that hands its rows to the relay proves, in its INSERT, that no row of the same key
-- waits in the outbox (libs/messaging/src/transaction/batch-transaction.ts). Without this index
-- that proof scanned the whole table: a few pages while autovacuum keeps up, every row ever
-- deleted where it does not run (tens of MB and of ms per INSERT within minutes at 50 orders/s;
-- BENCHMARKS.md). A key has a handful of rows, so a probe reads a page or two.
CREATE INDEX "outbox_key_idx" ON "outbox"("key");
