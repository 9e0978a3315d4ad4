/**
 * How fast this machine was while a step ran: the CPU time one round of a fixed piece of work
 * costs the bench's own thread, every 2 s. Machines of this kind change speed within seconds, with
 * no steal time counted: the same round costs about 14 or about 24 ms, flipping between the two on
 * either vCPU (two full runs of the same code, ten minutes apart, cost 38 and 55 CPU ms per order
 * at 25/s with the same requests and commits per order). A check that rose says the machine was
 * slow during the step; it is too coarse to divide CPU figures by (BENCHMARKS.md).
 */
import { createHash } from 'node:crypto';

/** An event's payload, about the size of `order.placed`'s. */
const Sample = JSON.stringify({
  orderId: '0b6f3f0e-5d55-4c4e-9a0e-2f6f6c1f2a11',
  customerId: 'customer-42',
  email: 'customer-42@example.com',
  currency: 'EUR',
  items: Array.from({ length: 8 }, (_, i) => ({
    sku: `SKU-${1000 + i}`,
    quantity: 1 + (i % 3),
    unitPrice: 9.99 + i,
  })),
  placedAt: '2026-12-08T00:00:00.000Z',
});

/**
 * One round: what a consumer does to a record, many times over (parse, re-print, hash). Returns
 * the CPU ms this thread spent on it, not the wall time: during a step the pipeline keeps the
 * cores busy, and a round's wait for a core would be the load's, not the machine's speed.
 */
function round(iterations: number): number {
  const started = process.threadCpuUsage();
  let mixed = 0;
  for (let i = 0; i < iterations; i++) {
    const event = JSON.parse(Sample) as { sequence?: number };
    event.sequence = i;
    mixed ^= createHash('sha256').update(JSON.stringify(event)).digest()[0] ?? 0;
  }
  // Keeps the work observable, so no compiler may drop it.
  if (mixed === -1) throw new Error('unreachable');
  const { user, system } = process.threadCpuUsage(started);
  return (user + system) / 1000;
}

/** One round of the fixed work every this many ms while a step runs: about 1 % of one core. */
export const SpeedSampleEveryMs = 2_000;
/** Iterations per round: 14 ms on the development machine when it is fast, 24 when it is not. */
export const SpeedRoundIterations = 2_000;

/**
 * Times one round of the fixed work every `everyMs` until stopped; `meanMs` is the rounds' mean
 * CPU ms (lower is faster). The machine's speed flips within seconds, so
 * one check before a step would be one draw of it: the rounds run all through the step. The
 * thread's CPU time advances in steps of up to 4 ms here, so one round is rough; the mean of a
 * step's dozen is not.
 */
export class SpeedSampler {
  private readonly rounds: number[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(everyMs = SpeedSampleEveryMs, iterations = SpeedRoundIterations) {
    // The first round only warms the JIT up; the timer's rounds are measured.
    round(iterations);
    this.timer = setInterval(() => this.rounds.push(round(iterations)), everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The rounds' mean CPU ms so far; `undefined` when none ran. */
  get meanMs(): number | undefined {
    if (this.rounds.length === 0) return undefined;
    return this.rounds.reduce((a, b) => a + b, 0) / this.rounds.length;
  }
}

/** Runs `work` with a `SpeedSampler` beside it: its value, and the rounds' mean CPU ms (if any ran). */
export async function withSpeedCheck<T>(
  work: () => Promise<T>,
): Promise<{ value: T; speedCheckMs?: number }> {
  const sampler = new SpeedSampler();
  const value = await work().finally(() => sampler.stop());
  const speedCheckMs = sampler.meanMs;
  return speedCheckMs === undefined ? { value } : { value, speedCheckMs };
}

/** How far the machine's speed moved over the checks: the slowest check over the fastest, minus one. */
export function speedSpread(checksMs: readonly number[]): number | undefined {
  const valid = checksMs.filter((ms) => Number.isFinite(ms) && ms > 0);
  if (valid.length < 2) return undefined;
  return Math.max(...valid) / Math.min(...valid) - 1;
}
