import { halfRate, type RampOutcome } from '../bench/ramp';
import { SustainableLimits } from '../bench/step-verdict';

/** The rate a soak runs at, and the reason, as it prints it and its report says it. */
export interface RateChoice {
  readonly rate: number;
  /** The ramp's result, when the rate came from it. */
  readonly sustainable?: number;
  readonly why: string;
}

/** One ramp step as the bench records it (tools/bench/bench-results.ts StepResult). */
export interface TriedStep {
  readonly label: string;
  readonly offered: number;
  readonly verdict: { readonly sustainable: boolean; readonly reasons: readonly string[] };
}

export class NoSustainableRate extends Error {}

export const givenRate = (rate: number): RateChoice => ({ rate, why: `given with --rate` });

const Rule =
  `e2e p99 <= ${SustainableLimits.maxE2eP99Ms} ms, >= ${SustainableLimits.minAchievedRatio * 100} % of the offered ` +
  'orders placed, consumer lag not growing, 0 lost, duplicated or refused';

/**
 * Half the highest rate the bench's ramp kept up with on this stack (the bench's own half rate),
 * with the step that was not kept up with as the reason it stopped there.
 */
export function chooseRate(ramp: RampOutcome, steps: readonly TriedStep[], floor: number): RateChoice {
  const tried = steps.filter((s) => s.label === 'step');
  const failed = tried.filter((s) => !s.verdict.sustainable);
  if (ramp.sustainable <= 0) {
    const last = failed.at(-1);
    throw new NoSustainableRate(
      `no rate was sustainable on this stack, not even ${floor} orders/s` +
        `${last ? ` (${last.verdict.reasons.join('; ')})` : ''}: pass --rate to soak anyway`,
    );
  }
  const above = failed.filter((s) => s.offered > ramp.sustainable).sort((a, b) => a.offered - b.offered)[0];
  const limit = above
    ? `${above.offered} orders/s was not (${above.verdict.reasons.join('; ')})`
    : `every step up to ${ramp.sustainable} held: the ramp's top (--steps to go higher)`;
  return {
    rate: halfRate(ramp.sustainable, floor),
    sustainable: ramp.sustainable,
    why:
      `half of ${ramp.sustainable} orders/s, the highest rate the bench's ramp kept up with on this ` +
      `stack (${Rule}); ${limit}`,
  };
}
