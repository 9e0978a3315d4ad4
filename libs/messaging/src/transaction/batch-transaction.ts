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
  traceHeaders,
} from '@pipeline/observability';
import type pg from 'pg';
import { inTransaction, preparedQuery, type Sql } from '@pipeline/database';
import { encodeHeaders, metadataOf, type EventMetadata, type OutgoingEvent } from '@pipeline/contracts';
import { asDatabaseError } from '../errors/classify-error';
import type { ConsumedEvent, PendingEvent, PublishedEvent, TraceHeaders } from '../handlers/event-batch';
import type { HandlerRegistry, TraceContexts } from '../handlers/event-handlers';
import type { ConsumerCounters } from '../events/consumer-stats';

// The transaction owns its writes: the inbox claim, what its handlers publish (TransactionScope),
// the outbox insert, and what runs after its COMMIT (the relay's wake-up, counters, effects).

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

/** `runBatchTransaction` over `deps`, as the consumer calls it (BatchConsumerDeps.run). */
export const batchTransactionsOver =
  (deps: BatchTransactionDeps) =>
  (events: readonly PendingEvent[]): Promise<void> =>
    runBatchTransaction(deps, events);

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
  // Each sampled event's work runs in its `process` span (a map the handlers read, not a callback).
  const contexts: TraceContexts = new Map(
    [...spans].map(([event, span]) => [event, trace.setSpan(ROOT_CONTEXT, span)]),
  );
  // The library's own statements join the first sampled event's trace, if there is one.
  const batchContext = contexts.values().next().value ?? ROOT_CONTEXT;
  // Errors the database itself raised: only those can mean "database unavailable" (a handler's
  // own refused connection, to an SMTP server say, is that event's failure).
  const databaseErrors = new WeakSet<object>();
  let outcome: Outcome;
  try {
    outcome = await context.with(batchContext, () => transact(deps, events, spans, contexts, databaseErrors));
  } catch (error) {
    for (const span of spans.values()) endSpan(span, { error });
    const fromDatabase = typeof error === 'object' && error !== null && databaseErrors.has(error);
    throw fromDatabase ? asDatabaseError(error) : error;
  }
  for (const span of spans.values()) endSpan(span);
  afterCommit(deps, outcome);
}

interface Outcome {
  readonly processed: PendingEvent[];
  readonly duplicates: PendingEvent[];
  readonly scope: TransactionScope;
  /** After COMMIT: hands the outbox rows to the relay, or wakes it (`insertOutboxRows`). */
  readonly relayOutbox: () => void;
}

async function transact(
  deps: BatchTransactionDeps,
  events: readonly PendingEvent[],
  spans: ReadonlyMap<PendingEvent, Span>,
  contexts: TraceContexts,
  databaseErrors: WeakSet<object>,
) {
  const recorded = <T>(promise: Promise<T>): Promise<T> =>
    promise.catch((error: unknown) => {
      if (typeof error === 'object' && error !== null) databaseErrors.add(error);
      throw error;
    });
  let working = false;
  try {
    return await inTransaction(deps.pool, async (_, client) => {
      working = true;
      // What sqlOver does, with the database's own errors recorded.
      const sql: Sql = {
        query: async <Row>(text: string, values?: readonly unknown[]) =>
          (await recorded(client.query(preparedQuery(text, values)))).rows as Row[],
        execute: async (text: string, values?: readonly unknown[]) =>
          (await recorded(client.query(preparedQuery(text, values)))).rowCount ?? 0,
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
          await call.handler(call.events, scope, contexts);
        } finally {
          // One observation per call and type it handled (a multi-type handler counts for each).
          const seconds = (performance.now() - startedAt) / 1000;
          for (const [labels] of countByTopicAndType(call.events))
            PipelineMetrics.handlerDuration.observe(labels, seconds);
        }
      }
      const relayOutbox = await insertOutboxRows(sql, scope.outbox, deps.source);
      working = false;
      return { processed, duplicates, scope, relayOutbox };
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
  { processed, duplicates, scope, relayOutbox }: Outcome,
): void {
  // The relay sends (or reads) what this transaction published now, not on a NOTIFY's round trip.
  relayOutbox();
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

/**
 * What one consumer transaction owns: its connection, the events its handlers publish and the
 * effects that wait for its COMMIT. The transaction inserts `outbox` in one statement before
 * COMMIT and runs `effects` after it; a rolled-back transaction drops both.
 */
export class TransactionScope {
  readonly outbox: OutboxRowDraft[] = [];
  readonly effects: (() => void)[] = [];

  constructor(
    readonly sql: Sql,
    private readonly source: string,
    /** The trace context an event caused by `cause` carries on: its `process` span, or its own. */
    private readonly traceOf: (cause: ConsumedEvent) => TraceHeaders,
  ) {}

  publish(cause: ConsumedEvent, events: PublishedEvent | readonly PublishedEvent[]): EventMetadata[] {
    const list: readonly PublishedEvent[] = isList(events) ? events : [events];
    const drafts = draftOutboxRows(
      list.map((event) => ({
        ...event,
        correlationId: event.correlationId ?? cause.metadata.correlationId,
        causationId: cause.metadata.id,
      })),
      { source: this.source, trace: this.traceOf(cause) },
    );
    this.outbox.push(...drafts);
    return drafts.map((draft) => draft.metadata);
  }
}

const isList = (events: PublishedEvent | readonly PublishedEvent[]): events is readonly PublishedEvent[] =>
  Array.isArray(events);

// The outbox: rows drafted by `publish` (or by writeToOutbox on a service's own path), inserted in
// one statement before COMMIT.

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
const OUTBOX_COLUMNS = 'event_id, topic, key, type, payload, headers';
const OUTBOX_VALUES =
  'SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::jsonb[])';
const INSERT_OUTBOX_ROWS = `INSERT INTO outbox (${OUTBOX_COLUMNS}) ${OUTBOX_VALUES}`;

/**
 * The same INSERT for a writer its relay offered a hand-off (`OutboxHandoff`): the rows come back
 * as the relay would read them, with the two facts that let the relay send them without reading
 * the outbox, proven in this statement: the relay's session ($7) holds its advisory lock ($8), and
 * no row of the same keys is waiting that the relay does not already have in hand ($9), so
 * sending these next keeps each key's order. The rows this statement inserts are not visible to
 * its own NOT EXISTS (one snapshot), and a row committed after it belongs to a transaction that
 * ran concurrently with this one, so either order is an order the writers could have had.
 * One probe of `outbox_key_idx` per key written ($3), each apart (LATERAL ... LIMIT 1): asked
 * for all keys at once, a planner without statistics (autovacuum off or behind) expects plenty
 * of matches, and an EXISTS that expects an early match scans the table, every row ever
 * deleted included when nothing vacuums it (BENCHMARKS.md).
 */
const INSERT_OUTBOX_ROWS_FOR_HANDOFF = `WITH inserted AS (
    INSERT INTO outbox (${OUTBOX_COLUMNS}) ${OUTBOX_VALUES}
    RETURNING id, event_id, topic, key, type, payload::text AS payload, headers)
  SELECT inserted.*,
    EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = $7::int
      AND classid = ($8::bigint >> 32)::oid AND objid = ($8::bigint & 4294967295)::oid AND objsubid = 1)
    AND NOT EXISTS (SELECT 1 FROM unnest($3::text[]) AS written(key) CROSS JOIN LATERAL (
      SELECT 1 FROM outbox waiting WHERE waiting.key = written.key AND NOT (waiting.id = ANY($9::bigint[]))
      LIMIT 1) AS first_waiting) AS handed
  FROM inserted ORDER BY inserted.id`;

/**
 * One set-based INSERT of drafted rows through the caller's transaction. With `source`, the rows
 * may go to that service's relay straight from this transaction (see `OutboxHandoff`): call the
 * function it returns right after COMMIT, and never after a rollback. It hands the rows over, or
 * wakes the relay to read them.
 */
export async function insertOutboxRows(
  sql: Sql,
  drafts: readonly OutboxRowDraft[],
  source?: string,
): Promise<() => void> {
  if (drafts.length === 0) return () => undefined;
  const values: unknown[] = [
    drafts.map(({ metadata }) => metadata.id),
    drafts.map(({ event }) => event.topic),
    drafts.map(({ event }) => event.key),
    drafts.map(({ event }) => event.type),
    drafts.map(({ event }) => (event.payload === null ? null : JSON.stringify(event.payload))),
    drafts.map(({ metadata }) => JSON.stringify(encodeHeaders(metadata))),
  ];
  const handoff = source === undefined ? undefined : outboxHandoff(source);
  if (handoff === undefined) {
    await sql.execute(INSERT_OUTBOX_ROWS, values);
    return source === undefined ? () => undefined : () => outboxCommitted(source);
  }
  const rows = await sql.query<CommittedOutboxRow & { handed: boolean }>(INSERT_OUTBOX_ROWS_FOR_HANDOFF, [
    ...values,
    handoff.relayPid,
    handoff.lockKey,
    handoff.inHand,
  ]);
  if (rows[0]?.handed !== true) return () => outboxCommitted(source!);
  const handed: CommittedOutboxRow[] = rows.map(({ handed: _, ...row }) => row);
  return () => {
    let taken = false;
    try {
      taken = handoff.take(handed);
    } catch {
      // Committed: a hand-off that threw must not fail the writer; the relay's read finds the rows.
    }
    if (!taken) outboxCommitted(source!);
  };
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

/**
 * Wake-ups of a service's outbox relay from inside its own process: a writer calls
 * `outboxCommitted(source)` right after the COMMIT of a transaction that inserted outbox rows, and
 * the relay of that service, if it runs in this process, reads them at once. No round trip through
 * PostgreSQL's NOTIFY and no timer on the saga's path; LISTEN/NOTIFY stays for the writers of other
 * processes (another instance, a script, psql).
 *
 * Better still, a writer hands its rows over (`insertOutboxRows` with a source): the relay that
 * leads in this process offers an `OutboxHandoff`, the writer's INSERT proves it may use it, and
 * after COMMIT the relay sends the rows as they are, without reading the outbox.
 *
 * Keyed by the CloudEvents `source` of the writer (`payment-service`), so several services in one
 * process (the tests do that) wake only their own relay.
 */
type Listener = () => void;

/** One `outbox` row as the relay sends it (`payload` as JSON text, as PostgreSQL prints it). */
export interface CommittedOutboxRow {
  /** BIGSERIAL: pg returns int8 as a string. */
  readonly id: string;
  readonly event_id: string;
  readonly topic: string;
  readonly key: string | null;
  readonly type: string;
  readonly payload: string | null;
  readonly headers: Record<string, unknown> | null;
}

/** What the leading relay of a source offers the writer that is about to insert outbox rows. */
export interface OutboxHandoff {
  /** The relay session's backend pid and its advisory lock: the INSERT checks it is still held. */
  readonly relayPid: number;
  readonly lockKey: number;
  /** Ids of the rows the relay has in hand: sent and not deleted yet, being sent, or handed over. */
  readonly inHand: readonly string[];
  /**
   * After COMMIT: the rows, to be sent after what the relay has in hand; `false` when the relay no
   * longer leads (the writer then wakes whoever does).
   */
  readonly take: (rows: readonly CommittedOutboxRow[]) => boolean;
}

interface Relay {
  readonly wake: Listener;
  readonly handoff?: () => OutboxHandoff | undefined;
}

const listeners = new Map<string, Set<Relay>>();

/** Called after COMMIT by whoever wrote outbox rows for `source`. Never throws. */
export function outboxCommitted(source: string): void {
  for (const listener of listeners.get(source) ?? []) {
    try {
      listener.wake();
    } catch {
      // A listener only sets a flag; one that throws must not fail a committed transaction.
    }
  }
}

/** The hand-off the leading relay of `source` in this process offers, if one does. */
export function outboxHandoff(source: string): OutboxHandoff | undefined {
  for (const listener of listeners.get(source) ?? []) {
    const handoff = listener.handoff?.();
    if (handoff !== undefined) return handoff;
  }
  return undefined;
}

/** The relay of `source` listens (and may offer hand-offs); the returned function stops it. */
export function onOutboxCommitted(
  source: string,
  wake: Listener,
  handoff?: () => OutboxHandoff | undefined,
): () => void {
  const set = listeners.get(source) ?? new Set<Relay>();
  const listener: Relay = handoff ? { wake, handoff } : { wake };
  set.add(listener);
  listeners.set(source, set);
  return () => {
    set.delete(listener);
    // Called twice, the second call must not drop a set a later listener created.
    if (set.size === 0 && listeners.get(source) === set) listeners.delete(source);
  };
}
