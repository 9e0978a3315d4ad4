import { traceHeaders } from '@pipeline/observability';
import type { Sql } from '@pipeline/database';
import { encodeHeaders, metadataOf, type EventMetadata, type OutgoingEvent } from '@pipeline/contracts';

export interface OutboxWriteOptions {
  /** The producing service, e.g. `order-service` (CloudEvents `source`). */
  readonly source: string;
  /**
   * W3C trace context carried onto the records. Defaults to the active context: the HTTP
   * request's span, or the `process` span of the event being handled.
   */
  readonly trace?: Pick<EventMetadata, 'traceparent' | 'tracestate'>;
}

/** One `outbox` row ready to insert: the event's metadata decided, its payload encoded. */
export interface OutboxRowDraft {
  readonly metadata: EventMetadata;
  readonly event: OutgoingEvent;
}

/** Decides each event's metadata (id, time, trace context) for the rows `insertOutboxRows` writes. */
export function draftOutboxRows(
  events: readonly OutgoingEvent[],
  options: OutboxWriteOptions,
): OutboxRowDraft[] {
  const trace = options.trace ?? traceHeaders();
  return events.map((event) => ({ metadata: metadataOf(event, options.source, trace), event }));
}

// One statement text whatever the number of rows: arrays in, `unnest` out, so Postgres plans it
// once per connection and the hot path sends no per-row SQL.
const INSERT_OUTBOX_ROWS = `INSERT INTO outbox (event_id, topic, key, type, payload, headers)
  SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::jsonb[])`;

/** One set-based INSERT of drafted rows through the caller's transaction. */
export async function insertOutboxRows(sql: Sql, drafts: readonly OutboxRowDraft[]): Promise<void> {
  if (drafts.length === 0) return;
  await sql.execute(INSERT_OUTBOX_ROWS, [
    drafts.map(({ metadata }) => metadata.id),
    drafts.map(({ event }) => event.topic),
    drafts.map(({ event }) => event.key),
    drafts.map(({ event }) => event.type),
    drafts.map(({ event }) => (event.payload === null ? null : JSON.stringify(event.payload))),
    drafts.map(({ metadata }) => JSON.stringify(encodeHeaders(metadata))),
  ]);
}

/**
 * Writes outgoing events into the `outbox` table through the caller's transaction client, so
 * the events commit (or roll back) together with the business change that caused them.
 * One multi-row INSERT per call. Returns the metadata of what was written.
 */
export async function writeToOutbox(
  sql: Sql,
  events: readonly OutgoingEvent[],
  options: OutboxWriteOptions,
): Promise<EventMetadata[]> {
  const drafts = draftOutboxRows(events, options);
  await insertOutboxRows(sql, drafts);
  return drafts.map((draft) => draft.metadata);
}
