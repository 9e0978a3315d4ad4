import { describe, expect, it } from 'vitest';
import { OutcomeTracker } from './outcome-tracker';

describe('OutcomeTracker', () => {
  it('counts lost, duplicated and unexpected outcomes, and early events', () => {
    const latencies: number[] = [];
    const tracker = new OutcomeTracker((ms) => latencies.push(ms));
    tracker.accepted('a', 1000, 'confirmed');
    tracker.accepted('b', 1000, 'declined');
    tracker.accepted('c', 1000, 'confirmed');
    tracker.terminal('a', 'order.confirmed', 1100);
    tracker.terminal('a', 'order.confirmed', 1300);
    tracker.terminal('b', 'order.confirmed', 1200);
    tracker.terminal('d', 'order.cancelled', 1150); // before its POST answered
    tracker.accepted('d', 1000, 'out-of-stock');
    tracker.terminal('z', 'order.confirmed', 1000); // not ours
    const totals = tracker.totals();
    expect(latencies).toEqual([100, 200, 150]);
    expect(totals).toMatchObject({
      placed: 4,
      completed: 3,
      lost: 1,
      duplicated: 1,
      unexpectedOutcome: 1,
      foreignEvents: 1,
    });
    expect(totals.terminalEvents).toEqual({ 'order.confirmed': 3, 'order.cancelled': 1 });
    expect(tracker.outstanding).toBe(1);
  });
});
