import { describe, expect, it } from 'vitest';
import { climb, halfRate, stepDown, warmUp, warmupSettled, type WarmupPolicy } from './ramp';

describe('warmupSettled', () => {
  it('settles when the last two windows differ by less than the tolerance', () => {
    expect(warmupSettled([47.7, 20, 14, 13.1], 0.2)).toBe(true);
    expect(warmupSettled([47.7, 20], 0.2)).toBe(false);
    expect(warmupSettled([20, 17], 0.2)).toBe(true);
  });

  it('needs two measured windows', () => {
    expect(warmupSettled([13], 0.2)).toBe(false);
    expect(warmupSettled([13, undefined], 0.2)).toBe(false);
  });

  it('calls tiny figures equal: they differ by clock ticks only', () => {
    expect(warmupSettled([0.2, 0.28], 0.2)).toBe(true);
  });
});

describe('warmUp', () => {
  const policy: WarmupPolicy = { rate: 20, windowSeconds: 10, maxSeconds: 100, tolerance: 0.2 };

  /** A clock that advances by each window's length, and windows that report the given figures. */
  const run = (figures: number[], p = policy) => {
    let clock = 0;
    let i = 0;
    return warmUp(
      p,
      (rate, seconds) => {
        clock += seconds * 1000;
        return Promise.resolve({ rate, settleMsPerOrder: figures[Math.min(i++, figures.length - 1)]! });
      },
      'kafka',
      () => clock,
    );
  };

  it('repeats windows until the broker settles, and reports them', async () => {
    const summary = await run([47.7, 25, 15, 13]);
    expect(summary.settled).toBe(true);
    expect(summary.windows.map((w) => w.settleMsPerOrder)).toEqual([47.7, 25, 15, 13]);
    expect(summary.seconds).toBe(40);
  });

  it('stops at the time bound, saying it did not settle', async () => {
    const summary = await run([40, 20, 40, 20, 40, 20], { ...policy, maxSeconds: 60 });
    expect(summary.settled).toBe(false);
    expect(summary.windows).toHaveLength(6);
    expect(summary.seconds).toBe(60);
  });

  it('runs one window when no warm-up time is allowed', async () => {
    expect((await run([40, 20], { ...policy, maxSeconds: 0 })).windows).toHaveLength(1);
  });
});

describe('stepDown', () => {
  it('halves towards the floor and stops there', () => {
    expect(stepDown(10, 2)).toBe(5);
    expect(stepDown(5, 2)).toBe(2);
    expect(stepDown(3, 2)).toBe(2);
    expect(stepDown(2, 2)).toBeUndefined();
  });
});

describe('halfRate', () => {
  it('halves the sustainable rate, rounded, at least 1 order/s', () => {
    expect(halfRate(300, 2)).toBe(150);
    expect(halfRate(25, 2)).toBe(13);
    expect(halfRate(1, 2)).toBe(1);
  });

  it('halves the floor when nothing was sustainable', () => {
    expect(halfRate(0, 4)).toBe(2);
  });
});

describe('climb', () => {
  /** Rates at or below `holds` are kept up with; returns what was tried. */
  const ramp = async (holds: number, steps = [5, 10, 25, 50, 100], refine = true) => {
    const tried: number[] = [];
    const outcome = await climb({ steps, refine, confirm: false, floor: 2 }, (rate) => {
      tried.push(rate);
      return Promise.resolve(rate <= holds);
    });
    return { ...outcome, tried };
  };

  it('climbs until a step fails, then refines once between', async () => {
    const r = await ramp(60);
    expect(r.tried).toEqual([5, 10, 25, 50, 100, 75]);
    expect(r.sustainable).toBe(50);
    expect(r.steppedDown).toEqual([]);
  });

  it('steps down when the first step fails, instead of answering 0', async () => {
    const r = await ramp(8, [10, 25, 100], false);
    expect(r.tried).toEqual([10, 5]);
    expect(r).toMatchObject({ sustainable: 5, steppedDown: [5], floorReached: false });
  });

  it('refines between the rate that held on the way down and the one that failed', async () => {
    const r = await ramp(30, [100, 400], true);
    expect(r.tried).toEqual([100, 50, 25, 40]);
    expect(r.sustainable).toBe(25);
  });

  it('says so when not even the floor holds', async () => {
    const r = await ramp(1, [10, 25], true);
    expect(r.tried).toEqual([10, 5, 2]);
    expect(r).toMatchObject({ sustainable: 0, steppedDown: [5, 2], floorReached: true });
  });

  describe('with confirm', () => {
    /** Rates at or below `holds` are kept up with, and so is a second run of one in `flaky`. */
    const confirmed = async (holds: number, flaky: number[], steps = [5, 10, 25, 50, 100]) => {
      const tried: string[] = [];
      const outcome = await climb({ steps, refine: true, confirm: true, floor: 2 }, (rate, again) => {
        tried.push(again ? `${rate} again` : `${rate}`);
        return Promise.resolve(rate <= holds || (again && flaky.includes(rate)));
      });
      return { ...outcome, tried };
    };

    it('runs a failed step once more, and climbs on when that run holds', async () => {
      const r = await confirmed(10, [25, 50]);
      expect(r.tried).toEqual([
        '5',
        '10',
        '25',
        '25 again',
        '50',
        '50 again',
        '100',
        '100 again',
        '75',
        '75 again',
      ]);
      expect(r.sustainable).toBe(50);
    });

    it('fails a rate only when both runs fail, on the way down too', async () => {
      const r = await confirmed(3, [], [10, 25]);
      expect(r.tried).toEqual(['10', '10 again', '5', '5 again', '2']);
      expect(r).toMatchObject({ sustainable: 2, steppedDown: [5, 2], floorReached: false });
    });

    it('runs a step that holds only once', async () => {
      expect((await confirmed(100, [])).tried).toEqual(['5', '10', '25', '50', '100']);
    });
  });
});
