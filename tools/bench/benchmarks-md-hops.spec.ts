import { describe, expect, it } from 'vitest';
import type { BenchResults, StepResult } from './bench-results';
import { hopsSection } from './benchmarks-md-hops';
import type { HopBreakdown } from './hop-breakdown';

const at = (p50: number) => ({ p50, p90: p50 * 2 });

const breakdown: HopBreakdown = {
  traces: 84,
  hops: [
    {
      hop: 'order.placed → payment-service',
      n: 84,
      relayWait: at(2),
      produce: at(4),
      fetch: at(30),
      transaction: at(12),
    },
    {
      hop: 'stock.reserved → order-service',
      n: 80,
      relayWait: at(6),
      produce: at(5),
      fetch: at(65),
      transaction: at(13),
    },
  ],
  path: {
    n: 80,
    hops: 3,
    request: at(8),
    relayWait: at(30),
    produce: at(18),
    fetch: at(129),
    transaction: at(39),
    total: at(224),
  },
};

const step = (offered: number, hops?: HopBreakdown): StepResult =>
  ({
    label: 'step',
    offered,
    e2e: { count: 100, p50: 250, p90: 300, p99: 400, p999: 500, max: 600, mean: 260 },
    ...(hops ? { hops } : {}),
  }) as unknown as StepResult;

describe('the per-hop section of BENCHMARKS.md', () => {
  it('has the path per step and every hop’s p50 / p90', () => {
    const lines = hopsSection({ steps: [step(25, breakdown), step(5)] } as unknown as BenchResults, 'docs/b');
    expect(lines).toContain('| step 25/s | 84 | 3 | 8.0 | 30.0 | 18.0 | 129.0 | 39.0 | 224.0 | 250.0 |');
    expect(lines).toContain(
      '| step 25/s (84 traces) | order.placed → payment-service | 84 | 2.0 / 4.0 | 4.0 / 8.0 | 30.0 / 60.0 | 12.0 / 24.0 |',
    );
    expect(lines).toContain(
      '|  | stock.reserved → order-service | 80 | 6.0 / 12.0 | 5.0 / 10.0 | 65.0 / 130.0 | 13.0 / 26.0 |',
    );
    expect(lines).toContain('![where the milliseconds go](docs/b/hops-by-rate.svg)');
  });

  it('marks a step with few traces', () => {
    const few = { ...breakdown, traces: 4 };
    const lines = hopsSection({ steps: [step(5, few)] } as unknown as BenchResults, 'docs/b');
    expect(lines.some((l) => l.startsWith('| step 5/s | 4 (few: rough) |'))).toBe(true);
    expect(lines.at(-1)).toBe('(no step had 20 traces or more for the hop-by-hop table)');
  });

  it('says why there is none', () => {
    const results = {
      steps: [step(25)],
      hopsUnavailable: 'Zipkin did not answer',
    } as unknown as BenchResults;
    expect(hopsSection(results, 'docs/b')).toEqual(['(unavailable in this run: Zipkin did not answer)']);
    expect(hopsSection({ steps: [step(25)] } as unknown as BenchResults, 'docs/b')).toEqual([
      '(not measured in this run)',
    ]);
  });
});
