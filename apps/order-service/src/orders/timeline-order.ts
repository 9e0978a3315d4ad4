/** What the causal tie-break reads of a timeline entry. */
export interface CausalEntry {
  readonly at: Date;
  readonly eventId: string | null;
  readonly causationId: string | null;
}

/**
 * Entries already sorted by (at, id) with every run of equal `at` put in causal order: an entry
 * whose cause is in the same run comes after it, otherwise id order stays. Id order is the order
 * order-service processed events in, which across topics need not be causal (stock.reserved can
 * be applied before the payment.authorized that caused it). Runs are a few entries long.
 */
export function inCausalOrder<Entry extends CausalEntry>(entries: readonly Entry[]): Entry[] {
  const ordered: Entry[] = [];
  for (let start = 0; start < entries.length;) {
    let end = start + 1;
    while (end < entries.length && entries[end]!.at.getTime() === entries[start]!.at.getTime()) end += 1;
    const run = entries.slice(start, end);
    while (run.length > 0) {
      const free = run.findIndex((entry) => !run.some((other) => causes(other, entry)));
      // No free entry means a causation cycle, which real events cannot form: keep id order.
      ordered.push(...run.splice(Math.max(free, 0), 1));
    }
    start = end;
  }
  return ordered;
}

const causes = (cause: CausalEntry, effect: CausalEntry): boolean =>
  cause !== effect && effect.causationId !== null && cause.eventId === effect.causationId;
