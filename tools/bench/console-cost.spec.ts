import { describe, expect, it } from 'vitest';
import type { BenchResults, StepResult } from './bench-results';
import { ConsoleGroup, consoleCost, splitGroup } from './assemble-results';
import { consoleCostTable, consoleCpuRow, servicesMsPerOrder } from './benchmarks-md-work';
import type { CpuUsage } from './proc-stats';

const usage: CpuUsage = {
  seconds: 20,
  byGroup: { 'order-service': 2, kafka: 3, [ConsoleGroup]: 0.5 },
  wakeupsByGroup: { 'order-service': 4000, kafka: 9000, [ConsoleGroup]: 700 },
  other: 1,
  machineBusy: 0.4,
};

describe('the console’s CPU, apart from the pipeline’s', () => {
  it('is split out of the usage, so no total counts it', () => {
    const { rest, seconds } = splitGroup(usage, ConsoleGroup);
    expect(seconds).toBe(0.5);
    expect(rest.byGroup).toEqual({ 'order-service': 2, kafka: 3 });
    expect(rest.wakeupsByGroup).toEqual({ 'order-service': 4000, kafka: 9000 });
    expect(rest.seconds).toBe(20);
    expect(splitGroup(rest, ConsoleGroup).seconds).toBeUndefined();
  });

  it('is per order and per core over the window, and above idle when idle was measured', () => {
    const page = { streamEvents: 40, streamBytes: 9000, pollsOk: 4, pollsFailed: 0 };
    // 0.5 CPU s over 20 s and 2,000 orders; idle 1 % of a core = 0.2 s of it.
    expect(consoleCost(0.5, { seconds: 20, orders: 2000 }, page, 0.01)).toEqual({
      cpuMsPerOrder: 0.25,
      aboveIdleMsPerOrder: 0.15,
      coreShare: 0.025,
      page,
    });
    expect(consoleCost(0.5, { seconds: 20, orders: 2000 }, undefined, undefined)).toEqual({
      cpuMsPerOrder: 0.25,
      coreShare: 0.025,
    });
  });
});

const step = (offered: number, consoleMs: number): StepResult =>
  ({
    label: 'step',
    offered,
    cpuMsPerOrder: { total: 6, byProcess: { 'order-service': 1.2, 'payment-service': 0.8, kafka: 3 } },
    console: {
      cpuMsPerOrder: consoleMs,
      aboveIdleMsPerOrder: consoleMs / 2,
      coreShare: 0.05,
      page: { streamEvents: 30, streamBytes: 1, pollsOk: 6, pollsFailed: 1 },
    },
  }) as unknown as StepResult;

const results = {
  steps: [step(25, 2.4), step(100, 0.8)],
  console: { stream: '/flow/stream', polls: [{ path: '/flow/metrics', everyMs: 5000 }], idleCoreShare: 0.02 },
} as unknown as BenchResults;

describe('the console’s row in BENCHMARKS.md', () => {
  it('has the console at every step beside the five services’ total and everything’s', () => {
    const table = consoleCostTable(results);
    expect(table[0]).toContain('a server-sent-events client on `/flow/stream`');
    expect(table[0]).toContain('`GET /flow/metrics` every 5 s');
    expect(table[0]).toContain('Idle, with the page open and no load: 2.0 % of one core.');
    expect(table).toContain('| step 100/s | 0.80 | 0.40 | 5.0 % | 2.00 | 6.00 | 30 | 6 / 1 |');
    expect(table.filter((l) => /^\| step \d/.test(l))).toHaveLength(2);
  });

  it('says so when the console did not run', () => {
    expect(consoleCostTable({ steps: [] } as unknown as BenchResults)[0]).toMatch(/not measured/);
  });

  it('adds the console to “where the CPU goes” as its own row, outside the total', () => {
    expect(consoleCpuRow(results.steps[1], results)).toEqual([
      '| console, a flow page open (not in the total) | 0.8 | 0.4 | 5.0 % | 2.0 % |',
    ]);
    expect(consoleCpuRow(undefined, results)).toEqual([]);
  });

  it('sums the five services only', () => {
    expect(servicesMsPerOrder(results.steps[0]!)).toBe(2);
  });
});
