import { WINDOW_MS, type LateEvent } from '@pipeline/contracts';
import { describe, expect, it } from 'vitest';
import { WindowState } from './window-state';
import { A, B, windowPhases, windowProblems } from './windows-scenario';

const T = 1_800_000_000_000 - (1_800_000_000_000 % WINDOW_MS);

/** Folds the phases as the experiment does, one batch per phase, without a broker. */
function foldPhases(graceMs: number) {
  const state = new WindowState(graceMs);
  const late: LateEvent<number>[] = [];
  const newWindow: number[] = [];
  for (const phase of windowPhases(T)) {
    const fold = state.apply(
      phase.events.map((e, i) => ({
        ref: i,
        topic: 'orders',
        partition: 0,
        customerId: e.customerId,
        eventTime: new Date(e.at),
        change: { placed: 1 as const },
      })),
    );
    late.push(...fold.late);
    if (phase.id === 'new-window') newWindow.push(...fold.counted.map((c) => c.counts.placed));
  }
  return { state, late, newWindow };
}

describe('the windows scenario', () => {
  it('meets its criterion with the analytics fold and a 60 s grace', () => {
    const { state, late, newWindow } = foldPhases(60_000);
    expect(windowProblems(T, state, late, newWindow)).toEqual([]);
    expect(state.rows().map((r) => [r.start.getTime() - T, r.customerId, r.counts.placed])).toEqual([
      [0, A, 3],
      [0, B, 2],
      [0, 'customer-C', 1],
      [WINDOW_MS, A, 1],
    ]);
  });

  it('names what fails: without grace the old event is late too', () => {
    const { state, late, newWindow } = foldPhases(0);
    expect(windowProblems(T, state, late, newWindow)).toEqual([
      `old event in its own window: customer-C has 0 in ${new Date(T).toISOString()}, not 1`,
      'late events: customer-C,customer-D',
    ]);
  });

  it('carries the state from batch to batch as the stored rows do', () => {
    const state = new WindowState(60_000);
    const event = (at: number) => ({
      ref: at,
      topic: 'orders',
      partition: 0,
      customerId: A,
      eventTime: new Date(at),
      change: { placed: 1 as const },
    });
    state.apply([event(T + 1_000)]);
    const second = state.apply([event(T + 2_000)]);
    expect(second.counted[0]?.counts.placed).toBe(2);
    // The watermark moved by the first batch judges the second: far behind it is late.
    state.apply([event(T + 3 * WINDOW_MS)]);
    expect(state.apply([event(T + 3_000)]).late).toHaveLength(1);
    expect(state.placed(A, new Date(T))).toBe(2);
  });
});
