import { describe, expect, it } from 'vitest';
import { runExperiment, windowsExperiment } from '@pipeline/experiments';
import { KAFKA_BROKERS, testKafka } from '../support/kafka';

describe('the windows experiment, against the real broker', () => {
  it('counts A:3 and B:2 in one window, the old event in its own window, and a new window from zero', async () => {
    // Through the console's runner: it also fails the verdict when a topic or group is left over.
    const { verdict, steps } = await runExperiment(windowsExperiment, {
      kafka: testKafka(),
      brokers: KAFKA_BROKERS,
    });

    expect(verdict.summary).toContain('A:3, B:2');
    expect(verdict.passed).toBe(true);
    const [windows, late] = verdict.evidence;
    if (windows?.kind !== 'table' || late?.kind !== 'table') throw new Error('no window tables');
    const T = windows.rows[0]?.[0] ?? '';
    const next = new Date(Date.parse(T) + 5 * 60_000).toISOString();
    expect(windows.rows.map(([start, , customer, placed]) => [start, customer, placed])).toEqual([
      [T, 'customer-A', '3'],
      [T, 'customer-B', '2'],
      [T, 'customer-C', '1'],
      [next, 'customer-A', '1'],
    ]);
    const earlier = new Date(Date.parse(T) - 5 * 60_000).toISOString();
    expect(late.rows).toEqual([
      [
        'customer-D',
        new Date(Date.parse(T) - 3 * 60_000).toISOString(),
        `${earlier} – ${T}`,
        new Date(Date.parse(next) + 30_000).toISOString(),
      ],
    ]);
    expect(steps.filter((step) => step.evidence?.kind === 'table')).toHaveLength(4);
    expect(steps.at(-1)?.text).toMatch(/^Cleanup verified/);
  });
});
