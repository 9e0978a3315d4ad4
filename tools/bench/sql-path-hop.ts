import { randomUUID } from 'node:crypto';
import { draftOutboxRows, insertOutboxRows } from '@pipeline/messaging';
import { type Sql } from '@pipeline/database';

/** Runs `work` in one transaction on one of the two paths under comparison. */
export type InTransaction = (work: (sql: Sql) => Promise<void>) => Promise<void>;

const CLAIM_INBOX = `INSERT INTO inbox (consumer, event_id, topic, partition, "offset")
  SELECT $1, id, $2, $3, o FROM unnest($4::uuid[], $5::bigint[]) AS t(id, o)
  ON CONFLICT DO NOTHING RETURNING event_id::text AS event_id`;

let nextOffset = 0;

/** About the size of an order.placed payload: two lines, money as decimal strings. */
function payloadOf(orderId: string): Record<string, unknown> {
  return {
    orderId,
    customerId: 'customer-0042',
    customerEmail: 'customer-0042@example.com',
    currency: 'EUR',
    total: '129.80',
    items: [
      { sku: 'SKU-RED-MUG', quantity: 2, unitPrice: '12.40' },
      { sku: 'SKU-BLUE-KETTLE', quantity: 1, unitPrice: '105.00' },
    ],
    placedAt: new Date().toISOString(),
  };
}

/**
 * One consumer hop for `n` events, set-based: claim their inbox rows in one statement, write one
 * outgoing event each to the outbox in one statement (the library's own writer), commit.
 */
export async function hop(inTransaction: InTransaction, n: number): Promise<void> {
  const ids = Array.from({ length: n }, () => randomUUID());
  const offsets = ids.map(() => nextOffset++);
  const events = ids.map((id) => ({
    topic: 'payments',
    key: id,
    type: 'payment.authorized',
    payload: payloadOf(id),
    correlationId: id,
    causationId: id,
  }));
  await inTransaction(async (sql) => {
    const claimed = await sql.query(CLAIM_INBOX, ['bench-consumer', 'orders', 0, ids, offsets]);
    if (claimed.length !== n) throw new Error(`claimed ${claimed.length} of ${n} new events`);
    await insertOutboxRows(sql, draftOutboxRows(events, { source: 'bench-service', trace: {} }));
  });
}

export interface PathRun {
  readonly events: number;
  readonly wallMs: number;
  /** This process's user + system CPU over the run. */
  readonly nodeCpuMs: number;
}

/** `hops` hops of `n` events, `workers` at a time (one connection each). */
export async function runPath(
  inTransaction: InTransaction,
  n: number,
  hops: number,
  workers: number,
): Promise<PathRun> {
  let left = hops;
  const worker = async (): Promise<void> => {
    while (left > 0) {
      left -= 1;
      await hop(inTransaction, n);
    }
  };
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: workers }, worker));
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { events: hops * n, wallMs, nodeCpuMs: (used.user + used.system) / 1000 };
}
