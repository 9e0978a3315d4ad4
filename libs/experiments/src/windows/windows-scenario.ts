import { WINDOW_MS, type LateEvent } from '@pipeline/contracts';
import type { Evidence } from '../experiment';
import type { WindowState } from './window-state';

export const [A, B, C, D] = ['customer-A', 'customer-B', 'customer-C', 'customer-D'] as const;

export interface Phase {
  readonly id: 'same-window' | 'new-window' | 'old-event' | 'too-late';
  readonly text: string;
  /** `at`: the event time (ce_time), ms since the epoch. */
  readonly events: readonly { readonly customerId: string; readonly at: number }[];
}

const S = 1_000;

/** The four steps, in the order they are published to the one partition; `T` is a window start. */
export const windowPhases = (T: number): Phase[] => [
  {
    id: 'same-window',
    text: 'A ×3 and B ×2 within the window starting at T',
    events: [10, 20, 30, 40, 50].map((s, i) => ({ customerId: i % 2 === 0 ? A : B, at: T + s * S })),
  },
  {
    id: 'new-window',
    text: 'A again, 30 s into the next window (the watermark moves there)',
    events: [{ customerId: A, at: T + WINDOW_MS + 30 * S }],
  },
  {
    // Its window ended 30 s before the watermark: inside the grace, so it is still counted there.
    id: 'old-event',
    text: 'C with an old timestamp (T + 4 min), delivered after the later event',
    events: [{ customerId: C, at: T + 4 * 60 * S }],
  },
  {
    // Its window closed 5.5 min before the watermark, beyond the grace: final, so recorded only.
    id: 'too-late',
    text: 'D with a timestamp a window earlier still (T − 3 min)',
    events: [{ customerId: D, at: T - 3 * 60 * S }],
  },
];

export function windowTable(rows: ReturnType<WindowState['rows']>): Evidence {
  return {
    kind: 'table',
    caption: 'Windows (what analytics-service would store)',
    columns: ['window start', 'window end', 'customer', 'placed'],
    rows: rows.map((r) => [
      r.start.toISOString(),
      r.end.toISOString(),
      r.customerId,
      String(r.counts.placed),
    ]),
  };
}

export function lateTable(late: readonly LateEvent<unknown>[]): Evidence {
  return {
    kind: 'table',
    caption: 'Late events (recorded, not counted)',
    columns: ['customer', 'event time', 'its window', 'watermark'],
    rows: late.map((l) => [
      l.customerId,
      l.eventTime.toISOString(),
      `${l.window.start.toISOString()} – ${l.window.end.toISOString()}`,
      l.watermark.toISOString(),
    ]),
  };
}

/** What did not hold; empty when the criterion is met. */
export function windowProblems(
  T: number,
  state: Pick<WindowState, 'placed'>,
  late: readonly LateEvent<unknown>[],
  newWindowCounts: readonly number[],
): string[] {
  const first = new Date(T);
  const next = new Date(T + WINDOW_MS);
  const problems: string[] = [];
  const expect = (customerId: string, start: Date, placed: number, what: string) => {
    const actual = state.placed(customerId, start);
    if (actual !== placed)
      problems.push(`${what}: ${customerId} has ${actual} in ${start.toISOString()}, not ${placed}`);
  };
  expect(A, first, 3, 'same window');
  expect(B, first, 2, 'same window');
  expect(A, next, 1, 'new window');
  if (newWindowCounts.join() !== '1')
    problems.push(`the new window did not start from zero (${newWindowCounts.join()})`);
  expect(C, first, 1, 'old event in its own window');
  expect(D, new Date(T - WINDOW_MS), 0, 'too-late event');
  if (late.map((l) => l.customerId).join() !== D)
    problems.push(`late events: ${late.map((l) => l.customerId).join() || 'none'}`);
  return problems;
}
