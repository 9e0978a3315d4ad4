/**
 * Wake-ups of a service's outbox relay from inside its own process: a writer calls
 * `outboxCommitted(source)` right after the COMMIT of a transaction that inserted outbox rows, and
 * the relay of that service, if it runs in this process, reads them at once. No round trip through
 * PostgreSQL's NOTIFY and no timer on the saga's path; LISTEN/NOTIFY stays for the writers of other
 * processes (another instance, a script, psql).
 *
 * Keyed by the CloudEvents `source` of the writer (`payment-service`), so several services in one
 * process (the tests do that) wake only their own relay.
 */
type Listener = () => void;

const listeners = new Map<string, Set<Listener>>();

/** Called after COMMIT by whoever wrote outbox rows for `source`. Never throws. */
export function outboxCommitted(source: string): void {
  for (const listener of listeners.get(source) ?? []) {
    try {
      listener();
    } catch {
      // A listener only sets a flag; one that throws must not fail a committed transaction.
    }
  }
}

/** The relay of `source` listens; the returned function stops listening. */
export function onOutboxCommitted(source: string, listener: Listener): () => void {
  const set = listeners.get(source) ?? new Set<Listener>();
  set.add(listener);
  listeners.set(source, set);
  return () => {
    set.delete(listener);
    // Called twice, the second call must not drop a set a later listener created.
    if (set.size === 0 && listeners.get(source) === set) listeners.delete(source);
  };
}
