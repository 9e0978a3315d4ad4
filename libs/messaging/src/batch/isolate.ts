import type { LoggerService } from '@nestjs/common';
import { PipelineMetrics, messageOf } from '@pipeline/observability';
import type { DeadLetter } from '../dead-letters/dead-letter';
import {
  classifyError,
  isConcurrencyConflict,
  isDependencyOutage,
  isUnavailable,
} from '../errors/classify-error';
import type { ConsumerCounters } from '../events/consumer-stats';
import {
  culpritOf,
  type ConsumedEvent,
  type PendingEvent,
  type RecordPosition,
} from '../handlers/event-batch';
import { withEventLogContext } from '../handlers/event-handlers';
import { backoffDelay, type RetryOptions } from '../retry/backoff';
import type { ErrorClass } from '../errors/pipeline-error';

export interface IsolationPolicy {
  /** Total attempts per event, the first included. */
  readonly attempts: number;
  classify(error: unknown): ErrorClass;
  /** A failure that is no event's fault (database down, deadlock): nothing is isolated for it. */
  isTransient(error: unknown): boolean;
  /** The event the error names as its cause, if any (see `blame`); otherwise the batch is bisected. */
  culpritOf?(error: unknown): ConsumedEvent | undefined;
  /** A failure that keeps waiting although its attempts are spent (a dependency outage). */
  waitsOut?(failure: Failure<ConsumedEvent>): boolean;
}

export interface Failure<Event> {
  readonly event: Event;
  readonly error: unknown;
  readonly errorClass: ErrorClass;
  /** Attempts that count against the limit, this one included. */
  readonly attempts: number;
}

/** What became of a batch's events. */
export interface Settlement<Event> {
  /** Committed, in the order their transactions committed. */
  readonly done: Event[];
  /** Fatal, or out of attempts: to the dead-letter topic. */
  readonly deadLetters: Failure<Event>[];
  /** Per partition, the first event to try again after a backoff; nothing after it ran. */
  readonly blocked: Map<string, Failure<Event>>;
  /** Set when the whole batch failed for a reason that is no event's fault: nothing ran. */
  readonly transient?: unknown;
}

/**
 * Applies a batch in as few transactions as its failures allow. All events in one transaction
 * first. When that fails and the error names its event (a single-event handler's failure always
 * does), that event fails and the rest run again together. Otherwise the batch is bisected
 * (halves in order, so a partition's events still commit in offset order) until the failing events stand alone; every other event commits with
 * its half. A failing event is dead-lettered when its error is fatal or its attempts are spent;
 * otherwise its partition is blocked there: it and everything after it in that partition wait
 * for the backoff, while the other partitions' events go on. One bad event among n costs about
 * 2·log2(n) extra transactions, and the batch never waits inside this function.
 */
export async function settle<Event extends ConsumedEvent>(
  events: readonly Event[],
  /** One transaction over the events; rejects when it rolled back. */
  run: (events: readonly Event[]) => Promise<void>,
  policy: IsolationPolicy,
): Promise<Settlement<Event>> {
  const done: Event[] = [];
  const deadLetters: Failure<Event>[] = [];
  const blocked = new Map<string, Failure<Event>>();
  // A blocked partition's events from the blocked one on wait; those before it still run.
  const unblocked = (list: readonly Event[]) =>
    list.filter((event) => {
      const failure = blocked.get(partitionOf(event.position));
      return failure === undefined || BigInt(event.position.offset) < BigInt(failure.event.position.offset);
    });

  const fail = (event: Event, error: unknown, counts: boolean): void => {
    const errorClass = policy.classify(error);
    const attempts = counts ? event.attempt : event.attempt - 1;
    const failure = { event, error, errorClass, attempts };
    const spent = attempts >= policy.attempts && policy.waitsOut?.(failure) !== true;
    if (counts && (errorClass === 'fatal' || spent)) deadLetters.push(failure);
    else blocked.set(partitionOf(event.position), failure);
  };

  const isolate = async (failed: readonly Event[], error: unknown): Promise<void> => {
    if (failed.length === 1) return fail(failed[0]!, error, !policy.isTransient(error));
    const culprit = policy.culpritOf?.(error);
    const named = failed.find((event) => event === culprit);
    if (named !== undefined) {
      fail(named, error, true);
      return attempt(failed.filter((event) => event !== named));
    }
    const middle = Math.ceil(failed.length / 2);
    await attempt(failed.slice(0, middle));
    await attempt(failed.slice(middle));
  };

  const attempt = async (candidates: readonly Event[]): Promise<void> => {
    const list = unblocked(candidates);
    if (list.length === 0) return;
    const outcome = await attemptRun(list);
    if (outcome === undefined) done.push(...list);
    else if (policy.isTransient(outcome.error)) {
      // Halfway through isolating: what did not run yet waits, without using up attempts.
      for (const event of list) {
        if (!blocked.has(partitionOf(event.position))) fail(event, outcome.error, false);
      }
    } else await isolate(list, outcome.error);
  };

  const attemptRun = (list: readonly Event[]) =>
    run(list).then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
  const first = await attemptRun(events);
  if (first === undefined) return { done: [...events], deadLetters, blocked };
  if (policy.isTransient(first.error)) return { done, deadLetters, blocked, transient: first.error };
  await isolate(events, first.error);
  // A failure behind its partition's blocked event is not dead-lettered now: its offset cannot move
  // yet, so it is fetched and tried again after the blocked one, and dead-lettered then, once.
  return { done, deadLetters: deadLetters.filter(({ event }) => unblocked([event]).length > 0), blocked };
}

export interface RetriesDeps {
  readonly retry: RetryOptions;
  readonly logger: LoggerService;
  readonly counters: ConsumerCounters;
  /** The failed event's partition waits `ms` from that record on, then it is tried again. */
  block(failure: Failure<PendingEvent>, ms: number): void;
}

/**
 * What becomes of a failure: the policy `settle` applies (how many attempts, what is fatal, what
 * waits out an outage), the backoff of a blocked partition, and the dead letter of a spent one.
 * Attempts are remembered per record (`topic/partition@offset`) until its offset is resolved.
 */
export class Retries {
  private readonly attempts = new Map<string, { count: number; firstFailedAt: number }>();
  private unavailableStreak = 0;
  readonly policy: IsolationPolicy;

  constructor(private readonly deps: RetriesDeps) {
    const { retry } = deps;
    this.policy = {
      attempts: retry.attempts,
      classify: classifyError,
      isTransient: (error) => isUnavailable(error) || isConcurrencyConflict(error),
      culpritOf,
      waitsOut: (failure) => this.outageSoFarMs(failure) < retry.outageWindowMs,
    };
  }

  /** The attempt a delivery of this record is: 1, or one more than its failures so far. */
  attemptOf(topic: string, partition: number, offset: string): number {
    return (this.attempts.get(`${topic}/${partition}@${offset}`)?.count ?? 0) + 1;
  }

  /** A chunk got through: the database is back, and what it resolved has nothing to remember. */
  applied(resolved: readonly ConsumedEvent[]): void {
    this.unavailableStreak = 0;
    for (const event of resolved) this.attempts.delete(attemptKey(event));
  }

  /** Its partition waits for the backoff, then the record is tried again. */
  later(failure: Failure<PendingEvent>): void {
    const { event, error, errorClass, attempts } = failure;
    const { retry, logger, counters } = this.deps;
    const key = attemptKey(event);
    const firstFailedAt = this.attempts.get(key)?.firstFailedAt ?? performance.now();
    this.attempts.set(key, { count: attempts, firstFailedAt });
    const delay = backoffDelay(Math.max(1, attempts), retry);
    const outageMs = this.outageSoFarMs(failure);
    const progress =
      attempts >= retry.attempts && Number.isFinite(outageMs)
        ? `its dependency is down, waiting ${Math.round(outageMs / 1000)} s of ${Math.round(retry.outageWindowMs / 1000)} s`
        : `attempt ${attempts}/${retry.attempts}`;
    withEventLogContext(event, () => {
      logger.warn(
        `${describeEvent(event)} failed (${progress}, ${errorClass}): ` +
          `${messageOf(error)}; its partition waits ${delay} ms`,
      );
    });
    counters.retried += 1;
    PipelineMetrics.eventsRetried.inc({ topic: event.position.topic, type: event.metadata.type });
    this.deps.block(failure, delay);
  }

  /**
   * A transaction failed for a reason that is no event's fault: how long its partitions wait. A
   * deadlock is retried after a short pause. The database being down is retried with backoff a
   * few times, then this throws and the supervisor restarts the consumer (readiness reports it).
   */
  waitOutTransient(partitions: number, error: unknown): number {
    const { retry, logger } = this.deps;
    const unavailable = isUnavailable(error);
    if (unavailable) this.unavailableStreak += 1;
    if (unavailable && this.unavailableStreak >= retry.attempts) {
      this.unavailableStreak = 0;
      throw error;
    }
    const delay = backoffDelay(unavailable ? this.unavailableStreak : 1, retry);
    logger.warn(
      `transaction over ${partitions} partitions not applied (${messageOf(error)}); retry in ${delay} ms`,
    );
    return delay;
  }

  letterOf({ event, error, errorClass, attempts }: Failure<PendingEvent>): DeadLetter {
    withEventLogContext(event, () => {
      this.deps.logger.warn(
        `${describeEvent(event)} dead-lettered after ${attempts} attempt(s) (${errorClass}): ${messageOf(error)}`,
      );
    });
    const { topic, partition } = event.position;
    return { topic, partition, message: event.message, error: messageOf(error), errorClass, attempts };
  }

  /** How long a failing event's dependency has been down (infinite when it is no outage). */
  private outageSoFarMs({ event, error }: Failure<ConsumedEvent>): number {
    if (!isDependencyOutage(error)) return Number.POSITIVE_INFINITY;
    const since = this.attempts.get(attemptKey(event))?.firstFailedAt;
    return since === undefined ? 0 : performance.now() - since;
  }
}

const attemptKey = (event: ConsumedEvent): string =>
  `${partitionOf(event.position)}@${event.position.offset}`;

/** `topic/partition`: the unit of order and of offsets. */
export const partitionOf = (position: Pick<RecordPosition, 'topic' | 'partition'>): string =>
  `${position.topic}/${position.partition}`;

export const describeEvent = (event: ConsumedEvent): string =>
  `${event.metadata.type} ${event.metadata.id} (${partitionOf(event.position)}@${event.position.offset})`;
