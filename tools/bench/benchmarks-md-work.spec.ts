import { describe, expect, it } from 'vitest';
import type { BenchResults, StepResult } from './bench-results';
import {
  countsTable,
  cpuPerStepTable,
  headline,
  perServiceCountsTable,
  rampSteps,
  speedCheckLine,
  stepName,
  sustainableStep,
} from './benchmarks-md-work';
import type { StepCounts } from './work-counts';

const counts = (requests: number): StepCounts => ({
  orders: 100,
  seconds: 10,
  kafkaRequests: {
    total: requests,
    byApi: { Fetch: requests / 2, Produce: requests / 4, OffsetCommit: requests / 4 },
    byService: { order: requests / 2, payment: requests / 2 },
  },
  dbStatements: { total: 20, byService: { order: 12, payment: 8 } },
  dbCommits: { total: 5, byService: { order: 3, payment: 2 } },
  aboveIdle: { kafkaRequests: requests - 1, dbStatements: 19, dbCommits: 4.5 },
});

const step = (label: StepResult['label'], offered: number, requests: number): StepResult =>
  ({
    label,
    offered,
    e2e: { count: 100, p50: 40 + offered / 10, p90: 60, p99: 120 + offered, p999: 200, max: 250, mean: 45 },
    counts: counts(requests),
    cpuMsPerOrder: { total: 70 / offered, byProcess: { 'order-service': 9, kafka: 13.1 } },
  }) as unknown as StepResult;

const results = {
  sustainableRate: 25,
  steps: [step('warm-up', 20, 12), step('step', 10, 12), step('step', 25, 8), step('step', 50, 6)],
  normalised: { pgbenchTps: 1050, pgbenchClients: 4, ordersPerSecondPer1000Tps: 23.8 },
  warmup: {
    settled: true,
    seconds: 45,
    tolerance: 0.2,
    measure: 'kafka',
    windows: [
      { rate: 20, settleMsPerOrder: 47.7 },
      { rate: 20, settleMsPerOrder: 14 },
      { rate: 20, settleMsPerOrder: 13.1 },
    ],
  },
  ramp: { steppedDown: [], floorReached: false },
  idleCounts: { kafkaRequests: 40, dbStatements: 2, dbCommits: 1 },
} as unknown as BenchResults;

describe('the comparable parts of the results section', () => {
  it('leads with the normalised rate, the calibration and the reference', () => {
    const text = headline(results).join('\n');
    expect(text).toContain(
      '**Highest sustainable rate: 25 orders/s = 24 orders/s per 1,000 pgbench one-hop tps.**',
    );
    expect(text).toContain('pgbench one-hop 1050 tps (best, 4 clients)');
    expect(text).toContain('300 orders/s on 3,067 tps = 98 per 1,000 tps');
    expect(text).toContain('10/s 7.0, 25/s 2.8, 50/s 1.4');
    expect(text).toContain('47.70 → 14.00 → 13.10');
  });

  it('says when the ramp stepped down', () => {
    const down = { ...results, ramp: { steppedDown: [5, 2], floorReached: true } } as BenchResults;
    expect(headline(down).join('\n')).toContain('stepped down to 5, 2 orders/s, and not even the floor');
  });

  it('has a row of counts per step, warm-up included, with e2e p50 and p99 beside them', () => {
    const rows = countsTable(results).filter((l) => l.startsWith('| '));
    expect(rows).toHaveLength(2 + 4);
    expect(rows[0]).toMatch(/^\| step \| e2e p50 ms \| e2e p99 ms \| Kafka requests \|/);
    expect(rows[1]!.split('|')).toHaveLength(rows[0]!.split('|').length);
    expect(rows[3]).toBe(
      '| step 10/s | 41.0 | 130.0 | 12.00 | 11.00 | 3.00 | 6.00 | 3.00 | 0.00 | 0.00 | 0.00 | 5.00 | 4.50 | 20.00 | 19.00 |',
    );
  });

  it('shows per-service counts at 10, 25 and 100/s and the sustainable rate', () => {
    const table = perServiceCountsTable(results);
    expect(table).toContain('| service | step 10/s | step 25/s |');
    expect(table).toContain('| order | 6.00 / 12.00 / 3.00 | 4.00 / 12.00 / 3.00 |');
  });

  it('has CPU ms per order per process at every step', () => {
    const table = cpuPerStepTable(results);
    expect(table[0]).toBe('| step | order | kafka | total |');
    expect(table).toHaveLength(2 + 4);
    expect(speedCheckLine(results)).toBe('');
  });

  describe('with a speed check during each step', () => {
    const checked = (...checks: number[]) =>
      ({
        ...results,
        steps: results.steps.map((s, i) => ({ ...s, speedCheckMs: checks[i] })),
      }) as BenchResults;

    it('shows each step’s check beside its CPU figures', () => {
      const table = cpuPerStepTable(checked(14, 14.2, 13.9, 20.3));
      expect(table[0]).toBe('| step | order | kafka | total | speed check ms |');
      expect(table[5]).toBe('| step 50/s | 9.00 | 13.10 | 1.40 | 20.3 |');
    });

    it('says when the machine’s speed moved during the run, and when it did not', () => {
      expect(speedCheckLine(checked(14, 14.2, 13.9, 20.3))).toContain(
        "13.9-20.3 ms, the machine's speed moved by 46 % during the run",
      );
      expect(speedCheckLine(checked(14, 14.2, 13.9, 14.5))).toContain(
        '13.9-14.5 ms, within 4 % of each other: the machine kept its speed',
      );
    });
  });

  describe('a rate run again after its first run was not kept up with', () => {
    const judged = (s: StepResult, sustainable: boolean, again = false): StepResult => ({
      ...s,
      verdict: { sustainable, reasons: [] },
      ...(again ? { again: true as const } : {}),
    });
    const twice = {
      ...results,
      sustainableRate: 50,
      steps: [
        judged(step('step', 25, 8), true),
        judged(step('step', 50, 7), false),
        judged(step('step', 50, 6), true, true),
        judged(step('step', 100, 5), false),
        judged(step('step', 100, 5), false, true),
      ],
    } as BenchResults;

    it('is named as the second run', () => {
      expect(twice.steps.map(stepName)).toEqual([
        'step 25/s',
        'step 50/s',
        'step 50/s (again)',
        'step 100/s',
        'step 100/s (again)',
      ]);
    });

    it('is the run the sustainable rate is reported from, and the ramp keeps only each rate’s last run', () => {
      expect(sustainableStep(twice)).toBe(twice.steps[2]);
      expect(rampSteps(twice.steps).map(stepName)).toEqual([
        'step 25/s',
        'step 50/s (again)',
        'step 100/s (again)',
      ]);
      expect(perServiceCountsTable(twice)).toContain(
        '| service | step 25/s | step 50/s (again) | step 100/s (again) |',
      );
    });
  });
});
