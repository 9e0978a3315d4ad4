import type { Outcome } from '../order-mix';

export type TerminalType = 'order.confirmed' | 'order.cancelled';

interface Placed {
  readonly scheduledAt: number;
  readonly intended: Outcome;
  terminals: number;
}

export interface OutcomeTotals {
  readonly offered: number;
  readonly dropped: number;
  readonly placed: number;
  readonly httpErrors: Readonly<Record<string, number>>;
  readonly terminalEvents: Readonly<Record<TerminalType, number>>;
  readonly completed: number;
  readonly lost: number;
  readonly duplicated: number;
  /** Confirmed orders that were meant to be declined / out of stock, or the reverse. */
  readonly unexpectedOutcome: number;
  /** Terminal events for orders this run did not place (other traffic, or before the run). */
  readonly foreignEvents: number;
}

/** Joins what the HTTP side placed with what the consumer saw on `orders`. */
export class OutcomeTracker {
  private readonly placed = new Map<string, Placed>();
  /** Events that arrived before their POST's response (the saga can beat the HTTP reply). */
  private readonly early = new Map<string, { type: TerminalType; at: number }[]>();
  private readonly httpErrors: Record<string, number> = {};
  private readonly terminalEvents: Record<TerminalType, number> = {
    'order.confirmed': 0,
    'order.cancelled': 0,
  };
  private offered = 0;
  private dropped = 0;
  private unexpected = 0;
  private completedCount = 0;

  constructor(private readonly onLatency: (milliseconds: number, type: TerminalType) => void) {}

  offer(): void {
    this.offered++;
  }

  drop(): void {
    this.dropped++;
  }

  httpError(status: string): void {
    this.httpErrors[status] = (this.httpErrors[status] ?? 0) + 1;
  }

  accepted(orderId: string, scheduledAt: number, intended: Outcome): void {
    const entry: Placed = { scheduledAt, intended, terminals: 0 };
    this.placed.set(orderId, entry);
    for (const event of this.early.get(orderId) ?? []) this.apply(entry, event.type, event.at);
    this.early.delete(orderId);
  }

  terminal(orderId: string, type: TerminalType, at: number): void {
    const entry = this.placed.get(orderId);
    if (entry === undefined) {
      this.early.set(orderId, [...(this.early.get(orderId) ?? []), { type, at }]);
      return;
    }
    this.apply(entry, type, at);
  }

  private apply(entry: Placed, type: TerminalType, at: number): void {
    entry.terminals++;
    this.terminalEvents[type]++;
    if (entry.terminals > 1) return;
    this.completedCount++;
    if ((type === 'order.confirmed') !== (entry.intended === 'confirmed')) this.unexpected++;
    this.onLatency(at - entry.scheduledAt, type);
  }

  /** Orders still waiting for their terminal event. */
  get outstanding(): number {
    return this.placed.size - this.completedCount;
  }

  placedOrderIds(): string[] {
    return [...this.placed.keys()];
  }

  totals(): OutcomeTotals {
    let completed = 0;
    let duplicated = 0;
    for (const entry of this.placed.values()) {
      if (entry.terminals > 0) completed++;
      if (entry.terminals > 1) duplicated++;
    }
    return {
      offered: this.offered,
      dropped: this.dropped,
      placed: this.placed.size,
      httpErrors: { ...this.httpErrors },
      terminalEvents: { ...this.terminalEvents },
      completed,
      lost: this.placed.size - completed,
      duplicated,
      unexpectedOutcome: this.unexpected,
      foreignEvents: [...this.early.values()].reduce((sum, events) => sum + events.length, 0),
    };
  }
}
