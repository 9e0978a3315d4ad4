import { performance } from 'node:perf_hooks';
import type { LoggerService } from '@nestjs/common';
import { ROOT_CONTEXT, context, trace, type Span } from '@opentelemetry/api';
import {
  PipelineMetrics,
  contextFromHeaders,
  endSpan,
  spanHeaders,
  startProcessSpan,
  messageOf,
} from '@pipeline/observability';
import type pg from 'pg';
import { inTransaction, type Sql } from '@pipeline/database';
import { asDatabaseError } from '../errors/classify-error';
import { insertOutboxRows } from '../outbox/outbox-writer';
import { outboxCommitted } from '../outbox/outbox-commits';
import type { PendingEvent } from '../events/consumed-event';
import { TransactionScope } from '../handlers/event-batch';
import type { HandlerRegistry, TraceContextOf } from '../handlers/event-handlers';
import type { ConsumerCounters } from '../events/consumer-stats';

export interface BatchTransactionDeps {
  readonly pool: pg.Pool;
  /** The inbox `consumer` column: the consumer group id. */
  readonly consumer: string;
  /** CloudEvents `source` of what this service publishes, e.g. `payment-service`. */
  readonly source: string;
  readonly counters: ConsumerCounters;
  readonly logger: LoggerService;
  readonly handlers: HandlerRegistry;
}

// Inbox claim of a whole batch in one statement: the ids that come back are new. In event id
// order, so two members claiming overlapping batches (during a rebalance) wait, never deadlock.
const CLAIM_INBOX = `INSERT INTO inbox (consumer, event_id, topic, partition, "offset")
  SELECT $1, e.* FROM unnest($2::uuid[], $3::text[], $4::int[], $5::bigint[]) AS e(id, topic, partition, "offset")
  ORDER BY e.id
  ON CONFLICT DO NOTHING RETURNING event_id::text AS event_id`;

/**
 * One consumer transaction over a batch of events (from one or several partitions): claim them
 * all in the inbox, run the handlers of the new ones (planHandlerCalls), insert everything they
 * published into the outbox in one statement, COMMIT. Effects, inbox rows and outbox rows commit
 * together or not at all; the caller commits offsets only after this resolves.
 */
export async function runBatchTransaction(
  deps: BatchTransactionDeps,
  events: readonly PendingEvent[],
): Promise<void> {
  const spans = new Map<PendingEvent, Span>();
  for (const event of events) if (event.sampled) spans.set(event, startSpan(deps.consumer, event));
  const traceContextOf: TraceContextOf = (event) => {
    const span = spans.get(event);
    return span === undefined ? ROOT_CONTEXT : trace.setSpan(ROOT_CONTEXT, span);
  };
  // The library's own statements join the first sampled event's trace, if there is one.
  const first = spans.values().next().value;
  const batchContext = first === undefined ? ROOT_CONTEXT : trace.setSpan(ROOT_CONTEXT, first);
  // Errors the database itself raised: only those can mean "database unavailable" (a handler's
  // own refused connection, to an SMTP server say, is that event's failure).
  const databaseErrors = new WeakSet<object>();
  let outcome: { processed: PendingEvent[]; duplicates: PendingEvent[]; scope: TransactionScope };
  try {
    outcome = await context.with(batchContext, () =>
      transact(deps, events, spans, traceContextOf, databaseErrors),
    );
  } catch (error) {
    for (const span of spans.values()) endSpan(span, { error });
    const fromDatabase = typeof error === 'object' && error !== null && databaseErrors.has(error);
    throw fromDatabase ? asDatabaseError(error) : error;
  }
  for (const span of spans.values()) endSpan(span);
  afterCommit(deps, outcome);
}

async function transact(
  deps: BatchTransactionDeps,
  events: readonly PendingEvent[],
  spans: ReadonlyMap<PendingEvent, Span>,
  traceContextOf: TraceContextOf,
  databaseErrors: WeakSet<object>,
) {
  const recorded = <T>(promise: Promise<T>): Promise<T> =>
    promise.catch((error: unknown) => {
      if (typeof error === 'object' && error !== null) databaseErrors.add(error);
      throw error;
    });
  let working = false;
  try {
    return await inTransaction(deps.pool, async (raw) => {
      working = true;
      const sql: Sql = {
        query: <Row>(text: string, values?: readonly unknown[]) => recorded(raw.query<Row>(text, values)),
        execute: (text: string, values?: readonly unknown[]) => recorded(raw.execute(text, values)),
      };
      const fresh = await claim(sql, deps.consumer, events);
      const processed: PendingEvent[] = [];
      const duplicates: PendingEvent[] = [];
      // delete(): the same event id twice in one batch is a duplicate too. Postgres prints a uuid in
      // lower case; a ce_id may arrive in upper case (both are valid UUIDs).
      for (const event of events)
        (fresh.delete(event.metadata.id.toLowerCase()) ? processed : duplicates).push(event);
      const scope = new TransactionScope(sql, deps.source, (cause) => traceOf(cause as PendingEvent, spans));
      for (const call of deps.handlers.plan(processed)) {
        const startedAt = performance.now();
        try {
          await call.handler(call.events, scope, traceContextOf);
        } finally {
          // One observation per call and type it handled (a multi-type handler counts for each).
          const seconds = (performance.now() - startedAt) / 1000;
          for (const [labels] of countByTopicAndType(call.events))
            PipelineMetrics.handlerDuration.observe(labels, seconds);
        }
      }
      await insertOutboxRows(sql, scope.outbox);
      working = false;
      return { processed, duplicates, scope };
    });
  } catch (error) {
    // Connecting, BEGIN and COMMIT are the database's alone.
    if (!working && typeof error === 'object' && error !== null) databaseErrors.add(error);
    throw error;
  }
}

async function claim(sql: Sql, consumer: string, events: readonly PendingEvent[]): Promise<Set<string>> {
  if (events.length === 0) return new Set();
  const rows = await sql.query<{ event_id: string }>(CLAIM_INBOX, [
    consumer,
    events.map((event) => event.metadata.id),
    events.map((event) => event.position.topic),
    events.map((event) => event.position.partition),
    events.map((event) => event.position.offset),
  ]);
  return new Set(rows.map((row) => row.event_id));
}

/** What an event caused carries on: the cause's `process` span, or (not sampled) the cause's own context. */
function traceOf(cause: PendingEvent, spans: ReadonlyMap<PendingEvent, Span>) {
  const span = spans.get(cause);
  if (span !== undefined) return spanHeaders(span);
  const { traceparent, tracestate } = cause.metadata;
  return { ...(traceparent ? { traceparent } : {}), ...(tracestate ? { tracestate } : {}) };
}

function startSpan(group: string, event: PendingEvent): Span {
  return startProcessSpan(contextFromHeaders(event.message.headers), {
    ...event.position,
    group,
    eventId: event.metadata.id,
    eventType: event.metadata.type,
    attempt: event.attempt,
  });
}

/** Committed: from here on nothing may fail the batch (it would run again), so nothing throws. */
function afterCommit(
  deps: BatchTransactionDeps,
  {
    processed,
    duplicates,
    scope,
  }: { processed: PendingEvent[]; duplicates: PendingEvent[]; scope: TransactionScope },
): void {
  // The relay reads what this transaction published now, not on a NOTIFY's round trip.
  if (scope.outbox.length > 0) outboxCommitted(deps.source);
  deps.counters.processed += processed.length;
  deps.counters.deduplicated += duplicates.length;
  try {
    if (processed.length > 0) PipelineMetrics.transactionSize.observe(processed.length);
    for (const [labels, count] of countByTopicAndType(processed))
      PipelineMetrics.eventsProcessed.inc(labels, count);
    for (const [labels, count] of countByTopicAndType(duplicates))
      PipelineMetrics.eventsDeduplicated.inc(labels, count);
  } catch (error) {
    deps.logger.error(`recording metrics threw: ${messageOf(error)}`);
  }
  for (const effect of scope.effects) {
    try {
      effect();
    } catch (error) {
      deps.logger.error(`an after-commit effect threw: ${messageOf(error)}`);
    }
  }
  if (duplicates.length > 0) deps.logger.debug?.(`${duplicates.length} events already processed: skipped`);
}

/** Label sets and their counts, one metric update per label set instead of one per event. */
export function countByTopicAndType(
  events: readonly PendingEvent[],
): [{ topic: string; type: string }, number][] {
  const counts = new Map<string, [{ topic: string; type: string }, number]>();
  for (const { position, metadata } of events) {
    const id = `${position.topic}\u0000${metadata.type}`;
    const entry = counts.get(id);
    if (entry) entry[1] += 1;
    else counts.set(id, [{ topic: position.topic, type: metadata.type }, 1]);
  }
  return [...counts.values()];
}
