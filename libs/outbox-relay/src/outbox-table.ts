import { createHash } from 'node:crypto';
import type { IHeaders, Message, TopicMessages } from 'kafkajs';
import pg from 'pg';
import { SERVICE_SESSION_OPTIONS, type SqlClient } from '@pipeline/database';
import type { CommittedOutboxRow } from '@pipeline/messaging';
import type { OutboxBacklog } from './outbox-relay.options';

/** One `outbox` row as the relay reads it, or as a writer hands it over (`payload` as JSON text). */
export type OutboxRow = CommittedOutboxRow;

// A bigint advisory lock shows in pg_locks as classid (high 32 bits), objid (low 32), objsubid 1.
const HELD = (key: string) => `EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted
  AND pid = pg_backend_pid() AND classid = (${key}::bigint >> 32)::oid
  AND objid = (${key}::bigint & 4294967295)::oid AND objsubid = 1)`;

/** Whether this session holds the advisory lock $1 now. */
export const HOLDS_LOCK = `SELECT ${HELD('$1')} AS held`;

/**
 * The relay's one statement per wake-up: whether this session still holds the advisory lock $1,
 * the DELETE of the rows published last time ($3), and the next $2 rows in id order, read only if
 * the lock is held. Always at least one row, so a lock lost is told from an empty outbox: `held`,
 * then the batch's columns (null when there is no batch). The DELETE and the SELECT run on the
 * same snapshot, so the SELECT leaves out the rows being deleted. `payload::text`: the row holds
 * JSON already, so it goes to Kafka as the database prints it, without a parse and a re-stringify.
 */
export const READ_BATCH_HOLDING_LOCK = `WITH lock AS (SELECT ${HELD('$1')} AS held),
  published AS (DELETE FROM outbox WHERE id = ANY($3::bigint[])),
  batch AS (SELECT id, event_id, topic, key, type, payload::text AS payload, headers FROM outbox
    WHERE (SELECT held FROM lock) AND NOT (id = ANY($3::bigint[])) ORDER BY id LIMIT $2)
  SELECT lock.held, batch.* FROM lock LEFT JOIN batch ON true ORDER BY batch.id`;

export const DELETE_OUTBOX_ROWS = 'DELETE FROM outbox WHERE id = ANY($1::bigint[])';

// $1: the ids of rows already published whose DELETE the relay has not sent yet (comma-separated).
// Between the lowest and the highest id, both read from the primary key: the rows waiting are the
// outbox's newest, and the count probes them through the index however many deleted rows the heap
// still holds (a PostgreSQL whose autovacuum is off or behind never reclaims them, and a planner
// without statistics would count by scanning them all). A range of two unknown bounds is
// estimated at 0.5 % of the table, so the index is the planner's choice without statistics too.
const OUTBOX_BACKLOG = `SELECT count(*)::int AS rows,
  (extract(epoch FROM clock_timestamp() - min(created_at)) * 1000)::float8 AS oldest_age_ms
  FROM outbox WHERE id BETWEEN (SELECT min(id) FROM outbox) AND (SELECT max(id) FROM outbox)
   AND NOT (id = ANY(string_to_array($1, ',')::bigint[]))`;

interface BacklogRow {
  rows: number;
  oldest_age_ms: number | null;
}

const toBacklog = (row: BacklogRow | undefined): OutboxBacklog => {
  const age = row?.oldest_age_ms ?? null;
  return { rows: row?.rows ?? 0, oldestAgeMs: age === null ? null : Math.max(0, Math.round(age)) };
};

/**
 * Rows waiting and the age of the oldest, through a client the caller already has (a pool).
 * `published`: rows the relay has published and not deleted yet (OutboxRelay.publishedIds).
 */
export async function queryBacklog(
  sql: SqlClient,
  published: readonly string[] = [],
): Promise<OutboxBacklog> {
  return toBacklog((await sql.$queryRawUnsafe<BacklogRow[]>(OUTBOX_BACKLOG, published.join(',')))[0]);
}

/** The same on a short-lived session of its own, for callers without a pool. */
export async function readBacklog(
  databaseUrl: string,
  applicationName: string,
  published: readonly string[] = [],
): Promise<OutboxBacklog> {
  const client = new pg.Client({
    connectionString: databaseUrl,
    application_name: applicationName,
    options: SERVICE_SESSION_OPTIONS,
    connectionTimeoutMillis: 5_000,
  });
  try {
    await client.connect();
    return toBacklog((await client.query<BacklogRow>(OUTBOX_BACKLOG, [published.join(',')])).rows[0]);
  } finally {
    await client.end();
  }
}

/**
 * Rows grouped by topic for one `sendBatch`, keeping id order inside each topic: with one request
 * in flight per broker, kafkajs appends each partition's messages in the order given.
 */
export function toTopicMessages(rows: readonly OutboxRow[], topicPrefix = ''): TopicMessages[] {
  const byTopic = new Map<string, Message[]>();
  for (const row of rows) {
    let messages = byTopic.get(row.topic);
    if (messages === undefined) {
      messages = [];
      byTopic.set(row.topic, messages);
    }
    messages.push(toMessage(row));
  }
  return [...byTopic].map(([topic, messages]) => ({ topic: topicPrefix + topic, messages }));
}

/** The record a row becomes. */
export const toMessage = (row: OutboxRow): Message => ({
  key: row.key,
  value: row.payload,
  headers: recordHeaders(row.headers),
});

function recordHeaders(headers: Record<string, unknown> | null): IHeaders {
  const result: IHeaders = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === null || value === undefined) continue;
    result[name] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return result;
}

/**
 * The advisory-lock key of a service's relay: 48 bits of a hash of the service name, so it is
 * stable across processes and releases and stays clear of the int4 keys `hashtext()` produces.
 */
export function outboxLockKey(service: string): number {
  return createHash('sha256').update(`outbox-relay:${service}`).digest().readUIntBE(0, 6);
}
