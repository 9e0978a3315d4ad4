import type { ErrorClass } from '../errors/pipeline-error';
import { partitionOf, type ConsumedEvent } from '../events/consumed-event';

export type RunOutcome = { readonly ok: true } | { readonly ok: false; readonly error: unknown };

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
 * does), that event fails and the rest run again together. Otherwise the batch is bisected (halves in order, so a partition's events still
 * commit in offset order) until the failing events stand alone; every other event commits with
 * its half. A failing event is dead-lettered when its error is fatal or its attempts are spent;
 * otherwise its partition is blocked there: it and everything after it in that partition wait
 * for the backoff, while the other partitions' events go on. One bad event among n costs about
 * 2·log2(n) extra transactions, and the batch never waits inside this function.
 */
export async function settle<Event extends ConsumedEvent>(
  events: readonly Event[],
  run: (events: readonly Event[]) => Promise<RunOutcome>,
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
    const outcome = await run(list);
    if (outcome.ok) done.push(...list);
    else if (policy.isTransient(outcome.error)) {
      // Halfway through isolating: what did not run yet waits, without using up attempts.
      for (const event of list) {
        if (!blocked.has(partitionOf(event.position))) fail(event, outcome.error, false);
      }
    } else await isolate(list, outcome.error);
  };

  const first = await run(events);
  if (first.ok) return { done: [...events], deadLetters, blocked };
  if (policy.isTransient(first.error)) return { done, deadLetters, blocked, transient: first.error };
  await isolate(events, first.error);
  return { done, deadLetters, blocked };
}
