import type { LoggerService } from '@nestjs/common';
import { context, trace } from '@opentelemetry/api';
import { PipelineMetrics } from '@pipeline/observability';
import type { KafkaMessage } from 'kafkajs';
import type { SqlClient, TransactionalSqlClient } from '../database/sql-client';
import type { EventMetadata } from '../envelope/event-envelope';
import { classifyError, isConcurrencyConflict, isUnavailable } from '../errors/classify-error';
import { messageOf } from '../errors/message-of';
import { RetriableError } from '../errors/pipeline-error';
import { backoffDelay, waitWithHeartbeat, type RetryOptions } from '../retry/backoff';
import type { ConsumerCounters } from './consumer-stats';
import type { DeadLetter } from './dead-letter';
import { EventContext, type RecordPosition } from './event-context';
import { claimInbox, lockKeys } from './inbox';
import { insertOutboxRows, type OutboxRowDraft } from '../outbox/outbox-writer';
import { sqlOverPrisma } from '../database/sql';
import { withEventLogContext } from './event-log-context';
import { contextFromHeaders, endSpan, startProcessSpan } from '../tracing/messaging-spans';

export interface PendingEvent {
  readonly message: KafkaMessage;
  readonly position: RecordPosition;
  readonly metadata: EventMetadata;
  readonly payload: unknown;
  /** Index of the record in its chunk. */
  readonly index: number;
}

export interface EventRunnerDeps {
  /** The inbox `consumer` column: the consumer group id. */
  readonly consumer: string;
  readonly source: string;
  readonly database: TransactionalSqlClient;
  readonly retry: RetryOptions;
  readonly transactionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  readonly counters: ConsumerCounters;
  readonly logger: LoggerService;
  invoke(type: string, payload: unknown, context: EventContext): Promise<void>;
}

export interface BatchControl {
  heartbeat(): Promise<void>;
  /** False once the partition was revoked or the consumer is stopping. */
  canContinue(): boolean;
}

type TxOutcome =
  { readonly ok: true } | { readonly ok: false; readonly error: unknown; readonly failedAt?: number };

/** What happened to a run of events: dead letters to send, and where it stopped if it stopped early. */
export interface RunResult {
  readonly letters: DeadLetter[];
  /** Index (into the events) of the first event not done; undefined when all are done. */
  readonly stoppedAt?: number;
}

/**
 * Runs a chunk's events in as few transactions as correctness allows: all of them in one
 * transaction first. When it fails, the events before the failing one run again together (their
 * work was rolled back, not wrong), the failing one is isolated and retried alone, and the rest
 * continue in one transaction. Events keep their offset order throughout.
 */
export class EventRunner {
  constructor(private readonly deps: EventRunnerDeps) {}

  async run(events: readonly PendingEvent[], control: BatchControl): Promise<RunResult> {
    const letters: DeadLetter[] = [];
    let i = 0;
    while (i < events.length) {
      if (!control.canContinue()) return { letters, stoppedAt: i };
      const outcome = await this.transaction(events.slice(i), 1);
      if (outcome.ok) return { letters };
      if (outcome.failedAt === undefined) {
        // The failure belongs to no handler (commit, connection): isolate every event.
        return this.runEach(events, i, events.length, control, letters);
      }
      const failed = i + outcome.failedAt;
      if (failed > i && !(await this.transaction(events.slice(i, failed), 1)).ok) {
        const result = await this.runEach(events, i, failed, control, letters);
        if (result.stoppedAt !== undefined) return result;
      }
      const alone = await this.runAlone(events[failed]!, control, 1, outcome.error);
      if (alone === 'stopped') return { letters, stoppedAt: failed };
      if (alone !== 'done') letters.push(alone);
      i = failed + 1;
    }
    return { letters };
  }

  private async runEach(
    events: readonly PendingEvent[],
    from: number,
    to: number,
    control: BatchControl,
    letters: DeadLetter[],
  ): Promise<RunResult> {
    for (let k = from; k < to; k++) {
      if (!control.canContinue()) return { letters, stoppedAt: k };
      const result = await this.runAlone(events[k]!, control, 0, undefined);
      if (result === 'stopped') return { letters, stoppedAt: k };
      if (result !== 'done') letters.push(result);
    }
    return { letters };
  }

  /** One event in its own transactions, with backoff between attempts, until done or dead. */
  private async runAlone(
    event: PendingEvent,
    control: BatchControl,
    attemptsDone: number,
    lastError: unknown,
  ): Promise<'done' | 'stopped' | DeadLetter> {
    const { retry, counters, logger } = this.deps;
    let attempt = attemptsDone;
    let error = lastError;
    for (;;) {
      if (attempt > 0) {
        const errorClass = classifyError(error);
        withEventLogContext(
          event,
          () =>
            void logger.warn(
              `${describe(event)} failed (attempt ${attempt}/${retry.attempts}, ${errorClass}): ${messageOf(error)}`,
            ),
        );
        if (attempt >= retry.attempts && isUnavailable(error)) {
          // Not this record's fault: fail the batch; it is fetched again once the consumer restarts.
          throw new RetriableError(`database unavailable: ${messageOf(error)}`, {
            code: 'DEPENDENCY_UNAVAILABLE',
            cause: error,
          });
        }
        const exhausted = attempt >= retry.attempts && !isConcurrencyConflict(error);
        if (errorClass === 'fatal' || exhausted) {
          return { ...letterOf(event), error: messageOf(error), errorClass, attempts: attempt };
        }
        counters.retried += 1;
        PipelineMetrics.eventsRetried.inc(labelsOf(event));
        const delay = backoffDelay(attempt, retry);
        const waited = await waitWithHeartbeat(
          delay,
          this.deps.heartbeatIntervalMs,
          () => control.heartbeat(),
          () => control.canContinue(),
        );
        if (!waited) return 'stopped';
      }
      attempt += 1;
      const outcome = await this.transaction([event], attempt);
      if (outcome.ok) return 'done';
      error = outcome.error;
    }
  }

  /** Claims the events in the inbox and runs the handlers of the new ones, in one transaction. */
  private async transaction(events: readonly PendingEvent[], attempt: number): Promise<TxOutcome> {
    const { database, consumer, counters, logger, transactionTimeoutMs } = this.deps;
    let running: number | undefined;
    let effects: (() => void)[] = [];
    let committed: { processed: PendingEvent[]; duplicates: PendingEvent[] };
    try {
      committed = await database.$transaction(
        async (tx: SqlClient) => {
          await lockKeys(
            tx,
            events.map((event) => event.position.key),
          );
          const fresh = await claimInbox(tx, consumer, events);
          const processed: PendingEvent[] = [];
          const outbox: OutboxRowDraft[] = [];
          effects = [];
          const duplicates: PendingEvent[] = [];
          for (const [k, event] of events.entries()) {
            // delete(): the same id twice in one batch is a duplicate too.
            if (!fresh.delete(event.metadata.id)) {
              duplicates.push(event);
              continue;
            }
            running = k;
            effects.push(...(await this.handle(event, tx, attempt, outbox)));
            running = undefined;
            processed.push(event);
          }
          // Every event's published rows in one statement (a failure here belongs to no handler:
          // the runner then isolates the events and finds the culprit).
          await insertOutboxRows(sqlOverPrisma(tx), outbox);
          return { processed, duplicates };
        },
        { timeout: transactionTimeoutMs, maxWait: transactionTimeoutMs },
      );
    } catch (error) {
      return { ok: false, error, ...(running === undefined ? {} : { failedAt: running }) };
    }
    // Committed: from here on nothing may fail the events (that would run them again), so the
    // bookkeeping, the metrics and the after-commit effects cannot throw into the caller.
    const { processed, duplicates } = committed;
    counters.processed += processed.length;
    counters.deduplicated += duplicates.length;
    try {
      if (processed.length > 0) PipelineMetrics.transactionSize.observe(processed.length);
      for (const event of processed) PipelineMetrics.eventsProcessed.inc(labelsOf(event));
      for (const event of duplicates) PipelineMetrics.eventsDeduplicated.inc(labelsOf(event));
    } catch (error) {
      logger.error(`recording metrics threw: ${messageOf(error)}`);
    }
    for (const effect of effects) {
      try {
        effect();
      } catch (error) {
        logger.error(`an after-commit effect threw: ${messageOf(error)}`);
      }
    }
    for (const event of duplicates)
      withEventLogContext(event, () => void logger.debug?.(`${describe(event)} already processed: skipped`));
    return { ok: true };
  }

  /**
   * Runs one event's handler inside its `process <topic>` span (the child of the span that sent
   * the record) and its log context, so the handler's queries, the events it publishes and every
   * line it logs belong to the order's trace.
   */
  private async handle(
    event: PendingEvent,
    tx: SqlClient,
    attempt: number,
    outbox: OutboxRowDraft[],
  ): Promise<readonly (() => void)[]> {
    const { metadata, position } = event;
    const span = startProcessSpan(contextFromHeaders(event.message.headers), {
      ...position,
      group: this.deps.consumer,
      eventId: metadata.id,
      eventType: metadata.type,
      attempt,
    });
    const eventContext = new EventContext({
      metadata,
      position,
      attempt,
      tx,
      source: this.deps.source,
      outbox,
    });
    const stopTimer = PipelineMetrics.handlerDuration.startTimer(labelsOf(event));
    try {
      await withEventLogContext(
        event,
        () => this.deps.invoke(metadata.type, event.payload, eventContext),
        trace.setSpan(context.active(), span),
      );
      endSpan(span);
      return eventContext.afterCommitEffects;
    } catch (error) {
      endSpan(span, { error });
      throw error;
    } finally {
      stopTimer();
    }
  }
}

export const labelsOf = (event: PendingEvent): { topic: string; type: string } => ({
  topic: event.position.topic,
  type: event.metadata.type,
});

const letterOf = (event: PendingEvent): Pick<DeadLetter, 'topic' | 'partition' | 'message'> => ({
  topic: event.position.topic,
  partition: event.position.partition,
  message: event.message,
});

export const describe = (event: PendingEvent): string =>
  `${event.metadata.type} ${event.metadata.id} (${event.position.topic}/${event.position.partition}@${event.position.offset})`;
