/**
 * How a run finds its rates: a warm-up that lasts until the broker's CPU per order settles, then a
 * ramp that climbs until a step is not kept up with, and steps down when even the first is not.
 */
import { refineStep } from './rate-steps';

export interface WarmupPolicy {
  readonly rate: number;
  /** Seconds of load per warm-up window. */
  readonly windowSeconds: number;
  /** Stop warming after this long (wall time), settled or not. */
  readonly maxSeconds: number;
  /** Settled when two consecutive windows differ by less than this share of the larger one. */
  readonly tolerance: number;
}

export interface WarmupWindow {
  readonly rate: number;
  /** The broker's CPU ms per order (the pipeline's total when the broker's process is not ours to see). */
  readonly settleMsPerOrder?: number;
}

export interface WarmupSummary {
  readonly settled: boolean;
  /** Wall time from the first window's start to the last one's end, catch-up included. */
  readonly seconds: number;
  readonly tolerance: number;
  /** What the rule compared: the broker's CPU ms per order, or the whole pipeline's. */
  readonly measure: 'kafka' | 'pipeline';
  readonly windows: readonly WarmupWindow[];
}

/** Below this, two windows' figures differ only by /proc's 10 ms clock ticks: call them equal. */
const ABSOLUTE_SLACK_MS = 0.1;

/** True once the last two windows' CPU ms per order differ by less than `tolerance` of the larger. */
export function warmupSettled(msPerOrder: readonly (number | undefined)[], tolerance: number): boolean {
  const [a, b] = msPerOrder.slice(-2);
  if (msPerOrder.length < 2 || a === undefined || b === undefined) return false;
  return Math.abs(a - b) <= Math.max(tolerance * Math.max(a, b), ABSOLUTE_SLACK_MS);
}

/**
 * Repeats a short load window until the broker's CPU per order settles, or `maxSeconds` have
 * passed. A broker that has just started spends its first minutes compiling (JIT); measured
 * then, it costs several times its steady figure per order.
 */
export async function warmUp(
  policy: WarmupPolicy,
  runWindow: (rate: number, seconds: number) => Promise<WarmupWindow>,
  measure: WarmupSummary['measure'],
  now: () => number = () => performance.now(),
): Promise<WarmupSummary> {
  const started = now();
  const windows: WarmupWindow[] = [];
  let settled = false;
  do {
    windows.push(await runWindow(policy.rate, policy.windowSeconds));
    settled = warmupSettled(
      windows.map((w) => w.settleMsPerOrder),
      policy.tolerance,
    );
  } while (!settled && now() - started < policy.maxSeconds * 1000);
  return {
    settled,
    seconds: Math.round((now() - started) / 1000),
    tolerance: policy.tolerance,
    measure,
    windows,
  };
}

/** The next rate down after `rate` failed: half of it, never below the floor; undefined at the floor. */
export function stepDown(rate: number, floor: number): number | undefined {
  const next = Math.max(floor, Math.floor(rate / 2));
  return next < rate ? next : undefined;
}

/** The half rate the bench measures latency at, and the soak runs at: half the sustainable rate. */
export const halfRate = (sustainable: number, floor: number): number =>
  Math.max(1, Math.round((sustainable || floor) / 2));

export interface RampOutcome {
  /** The highest rate kept up with; 0 only when not even the floor was. */
  readonly sustainable: number;
  /** Rates tried below the ramp's first step because it was not kept up with. */
  readonly steppedDown: readonly number[];
  /** Stepped down to the floor and even that was not kept up with. */
  readonly floorReached: boolean;
}

export interface RampPolicy {
  readonly steps: readonly number[];
  /** After the first failed step, try once between it and the last sustainable one. */
  readonly refine: boolean;
  /**
   * Run a step that was not kept up with once more before it counts as failed: a short step's
   * verdict can turn on one group's lag for a few seconds (the same code gave 150 and 300
   * orders/s a few minutes apart, BENCHMARKS.md).
   */
  readonly confirm: boolean;
  /** The lowest rate a step-down tries. */
  readonly floor: number;
}

/**
 * Climbs the ramp until a step is not kept up with, then refines once; when the very first step
 * fails, halves the rate until one holds or the floor fails too, so a slow machine still gets a
 * rate rather than "0 orders/s". With `confirm`, a rate fails only when two runs of it in a row
 * do (`runRate`'s `again` says which run it is).
 */
export async function climb(
  policy: RampPolicy,
  runRate: (rate: number, again: boolean) => Promise<boolean>,
): Promise<RampOutcome> {
  const tryRate = async (rate: number): Promise<boolean> =>
    (await runRate(rate, false)) || (policy.confirm && (await runRate(rate, true)));
  let sustainable = 0;
  let failed: number | undefined;
  for (const rate of policy.steps) {
    if (!(await tryRate(rate))) {
      failed = rate;
      break;
    }
    sustainable = rate;
  }
  const steppedDown: number[] = [];
  for (let rate = sustainable === 0 ? failed : undefined; rate !== undefined;) {
    const next = stepDown(rate, policy.floor);
    if (next === undefined) return { sustainable: 0, steppedDown, floorReached: true };
    steppedDown.push(next);
    if (await tryRate(next)) {
      sustainable = next;
      break;
    }
    failed = next;
    rate = next;
  }
  const between = policy.refine && failed !== undefined ? refineStep(sustainable, failed) : undefined;
  if (between !== undefined && (await tryRate(between))) sustainable = between;
  return { sustainable, steppedDown, floorReached: false };
}
