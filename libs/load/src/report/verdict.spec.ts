import { describe, expect, it } from 'vitest';
import type { OutcomeTotals } from '../run/outcome-tracker';
import type { LoadReport } from './report';
import { formatVerdict, judge } from './verdict';

const totals = (over: Partial<OutcomeTotals> = {}): OutcomeTotals => ({
  offered: 100,
  dropped: 0,
  placed: 100,
  httpErrors: {},
  terminalEvents: { 'order.confirmed': 100, 'order.cancelled': 0 },
  completed: 100,
  lost: 0,
  duplicated: 0,
  unexpectedOutcome: 0,
  foreignEvents: 0,
  ...over,
});

/** Only what the verdict reads; the rest of a report does not matter to it. */
const run = (over: Partial<Omit<LoadReport, 'verdict'>> = {}): Omit<LoadReport, 'verdict'> =>
  ({ durationSeconds: 10, achievedRate: 10, totals: totals(), ...over }) as Omit<LoadReport, 'verdict'>;

describe('judge', () => {
  it('passes a run with nothing lost, duplicated or unexpected at the offered rate', () => {
    const verdict = judge(run());
    expect(verdict.result).toBe('PASS');
    expect(formatVerdict(verdict)).toBe(
      'VERDICT PASS: 0 lost, 0 duplicated, 0 unexpected outcomes; achieved 10.0 of 10.0 offered orders/s (100.0 %, at least 97 % needed)',
    );
  });

  it('fails on lost, duplicated or unexpected orders and says which', () => {
    const verdict = judge(run({ totals: totals({ lost: 2, duplicated: 1, unexpectedOutcome: 3 }) }));
    expect(verdict).toEqual({
      result: 'FAIL',
      reasons: ['2 lost', '1 duplicated', '3 unexpected outcomes'],
    });
  });

  it('fails when the placed orders fall more than 3 % below the offered ones', () => {
    const verdict = judge(run({ achievedRate: 9.5, totals: totals({ placed: 95, dropped: 5 }) }));
    expect(verdict.result).toBe('FAIL');
    expect(verdict.reasons[0]).toMatch(/^achieved 9\.5 of 10\.0 offered orders\/s \(95\.0 %/);
  });

  it('fails on missing emails only when they were checked', () => {
    const emails = { checked: 100, missing: 1, duplicated: 0 };
    expect(judge(run({ emails })).result).toBe('FAIL');
    expect(judge(run({ emails: { ...emails, error: 'maildev down' } })).result).toBe('PASS');
  });

  it('does not judge a stopped run: its orders without a terminal event are unfinished', () => {
    const verdict = judge(run({ stopped: { afterSeconds: 4.2, unfinished: 7 } }));
    expect(verdict.result).toBe('STOPPED');
    expect(verdict.reasons).toEqual(['stopped after 4.2 s, 7 orders unfinished: not judged']);
  });
});
