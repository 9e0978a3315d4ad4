import { describe, expect, it } from 'vitest';
import type { BenchResults, StepResult } from './bench-results';
import type { HopBreakdown } from './hop-breakdown';
import { aligned, hopLines, runSummaryLines, stepSummaryLines } from './run-summary';

const at = (p50: number) => ({ p50, p90: p50 * 2 });

const hops = (traces: number): HopBreakdown => ({
  traces,
  hops: [
    {
      hop: 'order.placed → payment-service',
      n: traces,
      relayWait: at(2.04),
      produce: at(4),
      fetch: at(30.5),
      transaction: at(12),
    },
  ],
  path: {
    n: traces - 1,
    hops: 3,
    request: at(8),
    relayWait: at(30),
    produce: at(18),
    fetch: at(129),
    transaction: at(39),
    total: at(224),
  },
});

const step = (label: StepResult['label'], offered: number, breakdown?: HopBreakdown): StepResult =>
  ({
    label,
    offered,
    e2e: { count: 100, p50: 41.23, p90: 60, p99: 130.04, p999: 200, max: 250, mean: 45 },
    counts: {
      kafkaRequests: { total: 12.5, byApi: {}, byService: {} },
      dbCommits: { total: 5, byService: {} },
      dbStatements: { total: 20, byService: {} },
    },
    cpuMsPerOrder: { total: 7.25, byProcess: {} },
    wakeupsPerOrder: { total: 212.4, byProcess: {} },
    speedCheckMs: 13.92,
    ...(breakdown ? { hops: breakdown } : {}),
  }) as unknown as StepResult;

describe('the end-of-run summary', () => {
  it('aligns columns', () => {
    expect(
      aligned([
        ['a', 'bb'],
        ['ccc', 'd'],
      ]),
    ).toEqual(['a    bb', 'ccc   d']);
  });

  it('prints e2e p50 and p99 beside the counts per step, and the speed check during it', () => {
    const lines = stepSummaryLines([step('warm-up', 20), step('step', 25)]);
    expect(lines[0]).toMatch(
      /^step +e2e p50 ms +e2e p99 ms +Kafka requests +commits +statements +wake-ups +CPU ms +check ms$/,
    );
    expect(lines[2]!.split(/ {2,}/)).toEqual([
      'step 25/s',
      '41.2',
      '130.0',
      '12.50',
      '5.00',
      '20.00',
      '212',
      '7.25',
      '13.9',
    ]);
  });

  it('prints a step’s hops, p50 of each part, and the path', () => {
    const lines = hopLines(step('step', 25, hops(84)));
    expect(lines[0]).toBe("per hop at step 25/s, p50 ms, from 84 sampled orders' traces:");
    expect(lines[2]!.trim().split(/ {2,}/)).toEqual([
      'order.placed → payment-service',
      '84',
      '2.0',
      '4.0',
      '30.5',
      '12.0',
    ]);
    expect(lines[3]).toContain('(n=83, 3 hops)');
    expect(lines[3]).toContain(
      'request 8.0, relay wait 30.0, produce 18.0, fetch 129.0, transaction 39.0; total 224.0 (e2e p50 41.2)',
    );
  });

  it('says when a step had few traces', () => {
    expect(hopLines(step('step', 5, hops(3)))[0]).toContain(
      "from 3 sampled orders' traces (fewer than 20: rough):",
    );
    expect(hopLines(step('step', 5, { traces: 0, hops: [] }))).toEqual([
      "per hop at step 5/s, p50 ms, from 0 sampled orders' traces: no hop in them",
    ]);
  });

  it('says why there is no breakdown', () => {
    const results = {
      steps: [step('step', 25)],
      hopsUnavailable: 'Zipkin did not answer',
    } as unknown as BenchResults;
    expect(runSummaryLines(results).at(-1)).toBe('per-hop breakdown unavailable: Zipkin did not answer');
  });

  it('ends with the floor under the path from the same run’s Kafka and pgbench tools', () => {
    const results = {
      steps: [step('warm-up', 20), step('step', 5)],
      kafka: { recordSize: 512, hop: { avgMs: 1.75, p50Ms: 1, p99Ms: 9, p999Ms: 22 }, hopRecords: 2000 },
      pgbench: [
        { clients: 1, transactions: 9000, tps: 1111, latencyAvgMs: 0.9 },
        { clients: 4, transactions: 16000, tps: 2000, latencyAvgMs: 2 },
      ],
    } as unknown as BenchResults;
    const last = runSummaryLines(results).at(-1)!;
    // 4 transactions at 0.9 ms and 4 Kafka hops at 1.75 ms: 10.6 ms; e2e p50 at 5/s 41.23.
    expect(last).toContain('avg 1.75 ms (p99 9: the tool prints its percentiles in whole ms)');
    expect(last).toContain('1 client avg 0.90 ms');
    expect(last).toContain(
      '4 transactions and 4 Kafka hops: 10.6 ms; e2e p50 at step 5/s is 41.2 ms, ×3.9 the floor.',
    );
    const without = { ...results, pgbench: [{ clients: 4, transactions: 1, tps: 2000, latencyAvgMs: 2 }] };
    expect(runSummaryLines(without as unknown as BenchResults).join('\n')).not.toContain('floor');
  });
});
