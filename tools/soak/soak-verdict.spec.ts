import { describe, expect, it } from 'vitest';
import type { LoadReport } from '@pipeline/load';
import {
  clock,
  lagBoundOf,
  judgeSoak,
  lagCheck,
  median,
  ordersCheck,
  rssCheck,
  type SoakPolicy,
  type SoakSample,
} from './soak-verdict';

const policy: SoakPolicy = { warmupSeconds: 300, windowSeconds: 120, maxRssGrowth: 0.1, lagBound: 500 };

/** A 30-minute soak sampled every 10 s, RSS and lag given as functions of the time. */
function soak(
  rss: (t: number, name: string) => number | null,
  lag: (t: number) => number | null = () => 3,
  pid: (t: number) => number = () => 100,
  seconds = 1800,
): SoakSample[] {
  const samples: SoakSample[] = [];
  for (let t = 10; t <= seconds; t += 10)
    samples.push({
      t,
      placedPerSecond: 50,
      e2eP99Ms: 40,
      lag: { 'payment-service': lag(t), 'email-service': 3 },
      outboxBacklog: { order: 0, payment: 0 },
      rssMiB: { order: rss(t, 'order'), payment: rss(t, 'payment') },
      pids: { order: 100, payment: pid(t) },
    });
  return samples;
}

/** A sawtooth like a GC's: +-10 MiB around the level, period 60 s. */
const gc = (t: number): number => ((t % 60) / 60 - 0.5) * 20;

const load = (totals: Partial<LoadReport['totals']>, result: 'PASS' | 'FAIL' = 'PASS') =>
  ({
    totals: { placed: 9000, lost: 0, duplicated: 0, ...totals } as LoadReport['totals'],
    verdict: { result, reasons: [result === 'PASS' ? 'ok' : 'lost'] },
  }) satisfies Pick<LoadReport, 'totals' | 'verdict'>;

describe('median and clock', () => {
  it('takes the middle value, or the mean of the two middle ones', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('writes seconds as minutes:seconds', () => {
    expect(clock(330)).toBe('5:30');
    expect(clock(1800)).toBe('30:00');
  });
});

describe('rssCheck', () => {
  it('passes a flat RSS under GC noise, and names the windows it compared', () => {
    const check = rssCheck(
      soak((t) => 150 + gc(t)),
      policy,
    );
    expect(check.pass).toBe(true);
    expect(check.summary).toContain('5:00-7:00 and 28:00-30:00');
    expect(check.details).toHaveLength(2);
  });

  it('fails a process that grows by 10 % or more after the warm-up, and names it', () => {
    const leak = (t: number, name: string) => (name === 'payment' ? 150 + (t - 300) * 0.012 : 150) + gc(t);
    const check = rssCheck(soak(leak), policy);
    expect(check.pass).toBe(false);
    expect(check.summary).toMatch(/^payment grew 1\d\.\d %/);
    expect(check.summary).not.toContain('order');
  });

  it('ignores what happens during the warm-up: caches and the JIT fill then', () => {
    const rising = (t: number) => (t < 300 ? 80 + t * 0.25 : 155) + gc(t);
    expect(rssCheck(soak(rising), policy).pass).toBe(true);
  });

  it('is not moved by one outlier in a window (a GC peak)', () => {
    const spike = (t: number) => (t === 1790 ? 400 : 150);
    expect(rssCheck(soak(spike), policy).pass).toBe(true);
  });

  it('fails a process that was restarted (its pid changed) or went missing', () => {
    expect(
      rssCheck(
        soak(
          () => 150,
          undefined,
          (t) => (t < 900 ? 100 : 200),
        ),
        policy,
      ).summary,
    ).toContain('payment restarted (pids 100 -> 200)');
    const gone = rssCheck(
      soak((t, name) => (name === 'order' && t === 1000 ? null : 150)),
      policy,
    );
    expect(gone.pass).toBe(false);
    expect(gone.summary).toContain('order not running in 1 of 180 samples');
  });

  it('narrows the windows to a third of the time after the warm-up in a short run', () => {
    const check = rssCheck(
      soak(() => 150, undefined, undefined, 180),
      { ...policy, warmupSeconds: 60 },
    );
    expect(check.pass).toBe(true);
    expect(check.summary).toContain('1:00-1:40 and 2:20-3:00');
  });

  it('does not judge a run with nothing after the warm-up', () => {
    const check = rssCheck(
      soak(() => 150, undefined, undefined, 200),
      policy,
    );
    expect(check.pass).toBe(false);
    expect(check.summary).toMatch(/^not judged/);
  });
});

describe('lagCheck', () => {
  it('passes a lag that stays low, with spikes under the bound', () => {
    expect(
      lagCheck(
        soak(
          () => 150,
          (t) => (t % 300 === 0 ? 400 : 5),
        ),
        policy,
      ).pass,
    ).toBe(true);
  });

  it('fails a lag over the bound in the last third', () => {
    const check = lagCheck(
      soak(
        () => 150,
        (t) => (t === 1500 ? 800 : 5),
      ),
      policy,
    );
    expect(check.pass).toBe(false);
    expect(check.summary).toContain('payment-service reached 800 > 500 records');
  });

  it('fails a lag that keeps growing, even below the bound', () => {
    const check = lagCheck(
      soak(
        () => 150,
        (t) => Math.round(t / 6),
      ),
      policy,
    );
    expect(check.pass).toBe(false);
    expect(check.summary).toMatch(/payment-service growing \(median 149 -> 250 records\)/);
  });

  it('leaves out the first third, where a backlog from before may drain', () => {
    expect(
      lagCheck(
        soak(
          () => 150,
          (t) => (t < 600 ? 450 : 5),
        ),
        policy,
      ).pass,
    ).toBe(true);
  });

  it('calls small lags not growing: one order in flight quadruples a median of 3', () => {
    expect(
      lagCheck(
        soak(
          () => 150,
          (t) => (t < 1200 ? 3 : 12),
        ),
        policy,
      ).pass,
    ).toBe(true);
  });

  it('fails a group whose lag could not be read', () => {
    const check = lagCheck(
      soak(
        () => 150,
        () => null,
      ),
      policy,
    );
    expect(check.pass).toBe(false);
    expect(check.summary).toContain('payment-service not read');
  });

  it("bounds lag at ten seconds of a group's input by default, at least 100 records", () => {
    expect(lagBoundOf(8)).toBe(100);
    expect(lagBoundOf(150)).toBe(1500);
  });

  it('without --lag-bound, bounds each group by ten seconds of what its own topics receive', () => {
    // 50 orders/s; email-service reads two records an order (100/s), payment-service one (50/s).
    const samples = soak(
      () => 150,
      (t) => (t === 1500 ? 700 : 100),
    ).map((sample) => ({
      ...sample,
      lag: { ...sample.lag, 'email-service': sample.t === 1500 ? 700 : 150 },
      topicEnds: { 'payment-service': 50 * sample.t, 'email-service': 100 * sample.t },
    }));
    const { lagBound: _explicit, ...perGroup } = policy;
    const check = lagCheck(samples, perGroup);
    expect(check.pass).toBe(false);
    expect(check.summary).toContain('payment-service reached 700 > 500 records (10 s of 50 records/s)');
    expect(check.summary).not.toContain('email-service');
    expect(check.details.find((line) => line.startsWith('email-service'))).toContain('bound 1000');
  });
});

describe('ordersCheck and judgeSoak', () => {
  const flat = soak(() => 150);

  it('fails on any lost or duplicated order', () => {
    expect(ordersCheck(load({})).pass).toBe(true);
    expect(ordersCheck(load({ lost: 1 }, 'FAIL')).pass).toBe(false);
    expect(ordersCheck(load({ duplicated: 2 }, 'FAIL')).summary).toBe(
      '9000 orders placed, 0 lost, 2 duplicated',
    );
  });

  it('passes only when every check passes', () => {
    expect(judgeSoak(flat, load({}), policy).result).toBe('PASS');
    expect(judgeSoak(flat, load({ lost: 1 }, 'FAIL'), policy).result).toBe('FAIL');
    expect(
      judgeSoak(
        soak(
          () => 150,
          () => 900,
        ),
        load({}),
        policy,
      ).result,
    ).toBe('FAIL');
  });

  it('does not judge a stopped run', () => {
    const stopped = { ...load({}), stopped: { afterSeconds: 60, unfinished: 3 } };
    expect(judgeSoak(flat, stopped, policy).result).toBe('STOPPED');
  });
});
