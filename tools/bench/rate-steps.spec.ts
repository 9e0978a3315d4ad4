import { describe, expect, it } from 'vitest';
import { FloorRate, FullRamp, QuickRamp, rateSteps, refineStep } from './rate-steps';

describe('rateSteps', () => {
  it('climbs past 1,000 orders/s in both modes, always upwards', () => {
    for (const quick of [false, true]) {
      const steps = rateSteps(quick);
      expect(steps.at(-1)).toBeGreaterThan(1000);
      expect(steps).toContain(1000);
      expect([...steps].sort((a, b) => a - b)).toEqual([...steps]);
      expect(new Set(steps).size).toBe(steps.length);
    }
  });

  it('starts at or below 10 orders/s, above the step-down floor', () => {
    expect(FullRamp[0]).toBeLessThanOrEqual(10);
    expect(QuickRamp[0]).toBeLessThanOrEqual(10);
    expect(FloorRate).toBeLessThan(Math.min(FullRamp[0], QuickRamp[0]));
  });

  it('has fewer steps in --quick mode', () => {
    expect(QuickRamp.length).toBeLessThan(FullRamp.length);
    expect(rateSteps(true)).toEqual(QuickRamp);
  });
});

describe('refineStep', () => {
  it('tries the middle of a wide gap, as a round figure', () => {
    expect(refineStep(700, 1000)).toBe(850);
    expect(refineStep(1000, 1400)).toBe(1200);
    expect(refineStep(25, 50)).toBe(40);
    expect(refineStep(400, 700)).toBe(550);
  });

  it('does not refine a narrow gap or when nothing was sustainable', () => {
    expect(refineStep(1000, 1200)).toBeUndefined();
    expect(refineStep(0, 10)).toBeUndefined();
    // 7.5 rounds to 10, the rate that already failed: nothing new to try.
    expect(refineStep(5, 10)).toBeUndefined();
  });
});
