import { afterEach, describe, expect, it } from 'vitest';
import type { SqlClient } from '@pipeline/database';
import { queryBacklog } from '@pipeline/outbox-relay';
import { planNodes, scansOf } from '../support/db';
import {
  createMessagingTestDatabase,
  leaveDeletedOutboxRows,
  type MessagingTestDatabase,
} from '../support/messaging-database';

// The outbox backlog gauge (`pipeline_outbox_backlog_events`, the readiness report) is read at
// every scrape. Its rows are the outbox's newest; the rows deleted before them must not be read
// again at each scrape, however many a PostgreSQL that never vacuums has left in the table.

let db: MessagingTestDatabase | undefined;
afterEach(async () => {
  await db?.close();
  db = undefined;
});

/** A client that answers through the database's Prisma client and keeps what it was asked. */
function recording(database: MessagingTestDatabase) {
  const statements: { text: string; values: unknown[] }[] = [];
  const client: SqlClient = {
    $executeRawUnsafe: (text, ...values) => database.prisma.$executeRawUnsafe(text, ...values),
    $queryRawUnsafe: <T>(text: string, ...values: unknown[]) => {
      statements.push({ text, values });
      return database.prisma.$queryRawUnsafe<T>(text, ...values);
    },
  };
  return { client, statements };
}

describe('the outbox backlog', () => {
  it('counts the rows waiting without reading the rows deleted before them', async () => {
    db = await createMessagingTestDatabase('outbox_backlog_plan');
    await leaveDeletedOutboxRows(db, 50_000);
    const { rows } = await db.withClient((client) =>
      client.query<{ id: string }>(`INSERT INTO outbox (event_id, topic, key, type)
        SELECT gen_random_uuid(), 'waiting', 'k-' || n, 'test.happened' FROM generate_series(1, 4) AS n
        RETURNING id`),
    );
    const { client, statements } = recording(db);

    // One of the four published already, its DELETE not sent yet: not backlog any more.
    const backlog = await queryBacklog(client, [rows[0]!.id]);
    expect(backlog.rows).toBe(3);
    expect(backlog.oldestAgeMs).toBeGreaterThanOrEqual(0);

    const [gauge] = statements;
    const plan = await db.withClient((c) => planNodes(c, gauge!.text, gauge!.values));
    expect(scansOf(plan, 'outbox').map((scan) => scan['Node Type'])).not.toContain('Seq Scan');
    expect(
      plan.some((node) => node['Index Name'] === 'outbox_pkey' && /id >=/.test(node['Index Cond'] ?? '')),
    ).toBe(true);
  });

  it('is nothing, with no age, when the outbox is empty', async () => {
    db = await createMessagingTestDatabase('outbox_backlog_empty');
    await leaveDeletedOutboxRows(db, 10);
    expect(await queryBacklog(recording(db).client)).toEqual({ rows: 0, oldestAgeMs: null });
  });
});
