import { describe, expect, it } from 'vitest';
import { lagReadDelayMs } from './soak-sampler';
import { lagCheck, type SoakPolicy, type SoakSample } from './soak-verdict';

const policy: SoakPolicy = { warmupSeconds: 300, windowSeconds: 120, maxRssGrowth: 0.1, lagBound: 250 };

/** A deterministic stand-in for Math.random. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/**
 * A steady consumer at 50 events/s committing once a second, so its lag is a sawtooth from 10 to
 * 60 records. Its commit timer drifts against the load's seconds (by 5/6 ms per second here, in
 * phase at minute 10). Sampled every 10 s for 30 minutes, `phaseMs` after each whole second.
 */
function sawtoothSoak(phaseMs: () => number): SoakSample[] {
  const samples: SoakSample[] = [];
  for (let t = 10; t <= 1800; t += 10) {
    const sinceCommitMs = (((t - 600) * 5) / 6 + phaseMs() + 10_000) % 1000;
    const lag = Math.round(10 + (50 * sinceCommitMs) / 1000);
    samples.push({
      t,
      placedPerSecond: 25,
      e2eP99Ms: 300,
      lag: { 'payment-service': lag },
      outboxBacklog: {},
      rssMiB: {},
      pids: {},
    });
  }
  return samples;
}

describe('lagReadDelayMs', () => {
  it('spreads the lag reads over the whole commit interval', () => {
    const random = seeded(7);
    const delays = Array.from({ length: 400 }, () => lagReadDelayMs(random, 1000));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...delays)).toBeLessThan(1000);
    const quarters = new Set(delays.map((ms) => Math.floor(ms / 250)));
    expect([...quarters].sort()).toEqual([0, 1, 2, 3]);
  });

  it('keeps a steady sawtooth lag from looking like growth, which reads on whole seconds do', () => {
    // On whole seconds the middle third reads about 22 records and the last third about 47.
    expect(
      lagCheck(
        sawtoothSoak(() => 0),
        policy,
      ).pass,
    ).toBe(false);
    const random = seeded(11);
    expect(
      lagCheck(
        sawtoothSoak(() => lagReadDelayMs(random, 1000)),
        policy,
      ),
    ).toMatchObject({ pass: true });
  });
});
