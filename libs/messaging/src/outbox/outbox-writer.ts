import { traceHeaders } from '@pipeline/observability';
import type { SqlClient } from '../database/sql-client';
import {
  encodeHeaders,
  metadataOf,
  type EventMetadata,
  type OutgoingEvent,
} from '../envelope/event-envelope';

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

/** One multi-row INSERT of drafted rows through the caller's transaction client. */
export async function insertOutboxRows(tx: SqlClient, drafts: readonly OutboxRowDraft[]): Promise<void> {
  if (drafts.length === 0) return;
  const values: unknown[] = [];
  const rows: string[] = [];
  for (const { metadata, event } of drafts) {
    const n = values.length;
    rows.push(`($${n + 1}::uuid, $${n + 2}, $${n + 3}, $${n + 4}, $${n + 5}::jsonb, $${n + 6}::jsonb)`);
    values.push(
      metadata.id,
      event.topic,
      event.key,
      event.type,
      event.payload === null ? null : JSON.stringify(event.payload),
      JSON.stringify(encodeHeaders(metadata)),
    );
  }
  await tx.$executeRawUnsafe(
    `INSERT INTO outbox (event_id, topic, key, type, payload, headers) VALUES ${rows.join(', ')}`,
    ...values,
  );
}

/**
 * Writes outgoing events into the `outbox` table through the caller's transaction client, so
 * the events commit (or roll back) together with the business change that caused them.
 * One multi-row INSERT per call. Returns the metadata of what was written.
 */
export async function writeToOutbox(
  tx: SqlClient,
  events: readonly OutgoingEvent[],
  options: OutboxWriteOptions,
): Promise<EventMetadata[]> {
  const drafts = draftOutboxRows(events, options);
  await insertOutboxRows(tx, drafts);
  return drafts.map((draft) => draft.metadata);
}
