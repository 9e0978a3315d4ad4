import { Topics, withoutTopicPrefix } from '@pipeline/contracts';
import { type ConsumedEvent } from '@pipeline/messaging';
import { type Sql } from '@pipeline/database';
import { type OutboxPublishedBatch } from '@pipeline/outbox-relay';

/** One `order_timeline` row as order-service writes it. */
export interface TimelineEntry {
  readonly orderId: string;
  readonly type: string;
  readonly eventId: string;
  /** ISO-8601: the event's time (ce_time), to the millisecond the column keeps. */
  readonly at: string;
  /** The contract topic, without a test prefix. */
  readonly topic: string;
  /** Where the event is; null for an event order-service publishes until its relay sent it. */
  readonly partition: number | null;
  readonly offset: string | null;
  readonly causationId: string | null;
}

// ORDER BY ordinality: the bigserial ids follow the order things happened, which breaks ties.
const INSERT_TIMELINE = `
  INSERT INTO order_timeline (order_id, type, event_id, at, topic, "partition", "offset", causation_id)
  SELECT t.order_id, t.type, t.event_id, t.at, t.topic, t.partition, t.offset, t.causation_id
    FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::timestamptz[], $5::text[], $6::int[],
                $7::bigint[], $8::uuid[]) WITH ORDINALITY
      AS t(order_id, type, event_id, at, topic, "partition", "offset", causation_id, n)
   ORDER BY t.n`;

// Each sent event's entry found by its order id (the (order_id, id) index: an order's few rows),
// then updated by its primary key. One probe per event, written so that the planner cannot turn
// it into a join over the whole table: a LATERAL subquery with a LIMIT is run once per outer row.
// Without statistics (a PostgreSQL whose autovacuum is off, as on these machines) a plain
// UPDATE ... FROM unnest(...) hashed the sent events and scanned every row of the table, deleted
// ones included, once per relay batch. An event has one entry: it is written with its outbox row.
const FILL_POSITIONS = `
  WITH sent AS (
    SELECT entry.id, p.partition, p.offset
      FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::bigint[]) AS p(order_id, event_id, "partition", "offset")
      CROSS JOIN LATERAL (SELECT id FROM order_timeline
                           WHERE order_id = p.order_id AND event_id = p.event_id AND topic = $5 LIMIT 1) AS entry)
  UPDATE order_timeline AS t SET "partition" = sent.partition, "offset" = sent.offset
    FROM sent WHERE t.id = sent.id`;

/** A data-modifying statement to run in the timeline's INSERT: its parameters start at $9. */
export interface AlongsideStatement {
  readonly text: string;
  readonly values: readonly unknown[];
}

/**
 * Writes entries in list order, in one statement; with `alongside`, that statement runs in the
 * same one, as a CTE (one round trip for both).
 */
export async function insertTimeline(
  sql: Sql,
  entries: readonly TimelineEntry[],
  alongside?: AlongsideStatement,
): Promise<void> {
  if (entries.length === 0) {
    if (alongside !== undefined) throw new Error('a statement alongside the timeline needs entries');
    return;
  }
  const text =
    alongside === undefined ? INSERT_TIMELINE : `WITH alongside AS (${alongside.text}) ${INSERT_TIMELINE}`;
  await sql.execute(text, [
    entries.map((entry) => entry.orderId),
    entries.map((entry) => entry.type),
    entries.map((entry) => entry.eventId),
    entries.map((entry) => entry.at),
    entries.map((entry) => entry.topic),
    entries.map((entry) => entry.partition),
    entries.map((entry) => entry.offset),
    entries.map((entry) => entry.causationId),
    ...(alongside?.values ?? []),
  ]);
}

/** The entry of a consumed event, where it was read from (`topicPrefix` taken off the topic). */
export function consumedEntry(orderId: string, event: ConsumedEvent, topicPrefix: string): TimelineEntry {
  const { id, type, time, causationId } = event.metadata;
  return {
    orderId,
    type,
    eventId: id,
    at: new Date(time).toISOString(),
    topic: withoutTopicPrefix(event.position.topic, topicPrefix),
    partition: event.position.partition,
    offset: event.position.offset,
    causationId: causationId ?? null,
  };
}

/** The entry of an event order-service publishes (on `orders`): no position until it is sent. */
export function publishedEntry(
  event: Pick<TimelineEntry, 'orderId' | 'type' | 'eventId' | 'causationId'> & { readonly at: Date },
): TimelineEntry {
  return { ...event, at: event.at.toISOString(), topic: Topics.orders, partition: null, offset: null };
}

/**
 * The outbox relay's `onPublished` hook: fills in the partition and offset of the order events
 * it sent, one statement per relay batch. Every order event has a timeline entry, written in the
 * transaction that wrote its outbox row, so the row is there to update.
 */
export async function fillTimelinePositions(batch: OutboxPublishedBatch, sql: Sql): Promise<void> {
  const records = batch.records.filter((record) => record.topic === Topics.orders && record.key !== null);
  if (records.length === 0) return;
  await sql.execute(FILL_POSITIONS, [
    records.map((record) => record.key),
    records.map((record) => record.eventId),
    records.map((record) => record.partition),
    records.map((record) => record.offset),
    Topics.orders,
  ]);
}
