import { BaseRpcContext } from '@nestjs/microservices';
import type { SqlClient } from '../database/sql-client';
import type { EventMetadata, OutgoingEvent } from '../envelope/event-envelope';
import { draftOutboxRows, type OutboxRowDraft } from '../outbox/outbox-writer';

/** Where a consumed record came from. */
export interface RecordPosition {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: string | null;
}

/** An event published from a handler: correlation and causation come from the consumed event. */
export type PublishedEvent<Payload = unknown> = Omit<
  OutgoingEvent<Payload>,
  'correlationId' | 'causationId'
> & {
  readonly correlationId?: string;
};

export interface EventContextInit<Tx extends SqlClient> {
  readonly metadata: EventMetadata;
  readonly position: RecordPosition;
  readonly attempt: number;
  readonly tx: Tx;
  /** CloudEvents `source` of what this service publishes, e.g. `payment-service`. */
  readonly source: string;
  /**
   * Where `publish` puts its rows: the runner inserts a whole transaction's rows in one statement
   * before COMMIT, instead of one round trip per handler call.
   */
  readonly outbox: OutboxRowDraft[];
}

/**
 * The `@Ctx()` of an event handler. `tx` is the transaction the inbox row is written in: the
 * handler's effects and the events it publishes commit with it, or not at all.
 */
export class EventContext<Tx extends SqlClient = SqlClient> extends BaseRpcContext<
  [EventMetadata, RecordPosition]
> {
  private readonly committed: (() => void)[] = [];

  constructor(private readonly init: EventContextInit<Tx>) {
    super([init.metadata, init.position]);
  }

  get metadata(): EventMetadata {
    return this.init.metadata;
  }
  get topic(): string {
    return this.init.position.topic;
  }
  get partition(): number {
    return this.init.position.partition;
  }
  get offset(): string {
    return this.init.position.offset;
  }
  get key(): string | null {
    return this.init.position.key;
  }
  /** 1 on first delivery to the handler, 2 and up on retries. */
  get attempt(): number {
    return this.init.attempt;
  }
  get tx(): Tx {
    return this.init.tx;
  }

  /**
   * Runs `effect` once this event's transaction has committed: for process-local side effects
   * that must not happen for a rolled-back attempt (metrics, caches). It never runs on failure,
   * and an exception it throws is logged and ignored; anything durable belongs in `tx`.
   */
  afterCommit(effect: () => void): void {
    this.committed.push(effect);
  }

  /** The effects registered with `afterCommit`, for the runner to run after COMMIT. */
  get afterCommitEffects(): readonly (() => void)[] {
    return this.committed;
  }

  /**
   * Adds events to the outbox of this transaction; the relay publishes them after commit. The
   * rows are inserted (together with those of the other events of the transaction) before
   * COMMIT, so they commit or roll back with the handler's effects.
   */
  publish(events: PublishedEvent | readonly PublishedEvent[]): Promise<EventMetadata[]> {
    const list: readonly PublishedEvent[] = isList(events) ? events : [events];
    const { metadata, source, outbox } = this.init;
    const drafts = draftOutboxRows(
      list.map((event) => ({
        ...event,
        correlationId: event.correlationId ?? metadata.correlationId,
        causationId: metadata.id,
      })),
      // The trace context is the active one: this event's `process` span, so the next hop is
      // its child.
      { source },
    );
    outbox.push(...drafts);
    return Promise.resolve(drafts.map((draft) => draft.metadata));
  }
}

const isList = (events: PublishedEvent | readonly PublishedEvent[]): events is readonly PublishedEvent[] =>
  Array.isArray(events);
