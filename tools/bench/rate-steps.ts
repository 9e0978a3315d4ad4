/**
 * The offered rates a bench run tries, in order, until one is not sustainable. Roughly doubling at
 * first, then finer near and past 1,000 orders/s, the rate the pipeline is meant to reach on a
 * 2-core machine. It starts at 5 orders/s so that a machine ten times slower than the first still
 * finds a rate; below the first step the run steps down (ramp.ts).
 */
export const FullRamp = [5, 10, 25, 50, 100, 200, 400, 700, 1000, 1400] as const;
/** --quick: fewer steps over the same range (the step time is shorter too). */
export const QuickRamp = [10, 25, 100, 400, 1000, 1400] as const;

/** The lowest rate a step-down tries when the ramp's first step is not kept up with. */
export const FloorRate = 2;

export const rateSteps = (quick: boolean): readonly number[] => (quick ? QuickRamp : FullRamp);

/**
 * One step between the last sustainable rate and the first that was not, when they are far apart
 * (more than 25 %): a ramp of 700 then 1,000 otherwise reports 700 for a pipeline that holds 950.
 * Undefined when nothing was sustainable or the gap is already narrow.
 */
export function refineStep(sustainable: number, failed: number): number | undefined {
  if (sustainable <= 0 || failed <= sustainable * 1.25) return undefined;
  const middle = (sustainable + failed) / 2;
  // A round figure: to the nearest 10 orders/s (5 below 100).
  const unit = middle < 100 ? 5 : 10;
  const round = Math.round(middle / unit) * unit;
  return round > sustainable && round < failed ? round : undefined;
}
