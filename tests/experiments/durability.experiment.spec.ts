import { describe, expect, it } from 'vitest';
import { createKafka } from '@pipeline/messaging';
import { durabilityExperiment, runExperiment, type Evidence } from '@pipeline/experiments';
import { logLevel } from 'kafkajs';
import { KAFKA_BROKERS, testKafka } from '../support/kafka';

const CLUSTER = (
  process.env.KAFKA_CLUSTER_BROKERS ?? '127.0.0.1:19092,127.0.0.1:19093,127.0.0.1:19094'
).split(',');

/** Whether the three-node cluster of `npm run kafka:cluster:start` answers (CI does not start it). */
async function clusterRunning(): Promise<boolean> {
  const admin = createKafka(
    { brokers: CLUSTER, clientId: 'durability-spec' },
    { connectionTimeout: 1_000, retry: { retries: 1 }, logLevel: logLevel.NOTHING },
  ).admin();
  try {
    await admin.connect();
    return (await admin.describeCluster()).brokers.length === 3;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

const values = (evidence: readonly Evidence[], caption: string): Record<string, string> => {
  const found = evidence.find((e) => e.kind === 'values' && e.caption.startsWith(caption));
  if (found?.kind !== 'values') throw new Error(`no values "${caption}"`);
  return Object.fromEntries(found.entries);
};

describe('the durability experiment, against the real broker', () => {
  it('measures linger.ms 0 against 20 with the producer perf tool, and the broker loss where the cluster runs', async () => {
    const kafka = testKafka();
    expect(await durabilityExperiment.availability({ kafka, brokers: KAFKA_BROKERS })).toEqual({
      available: true,
    });
    const withCluster = await clusterRunning();
    // Through the console's runner: it also fails the verdict when a topic or group is left over.
    const { verdict, steps } = await runExperiment(durabilityExperiment, { kafka, brokers: KAFKA_BROKERS });

    expect(verdict.summary).toContain('linger.ms 20 against 0');
    expect(verdict.passed).toBe(true);
    const perf = verdict.evidence.find((e) => e.kind === 'table');
    expect(perf?.kind === 'table' && perf.rows.map((row) => row.slice(0, 3))).toEqual([
      ['max', '0', '10000'],
      ['max', '20', '10000'],
      ['2500/s', '0', '5000'],
      ['2500/s', '20', '5000'],
    ]);
    // Every run reports its produce requests (from --print-metrics), and each pair its ratios.
    expect(perf?.kind === 'table' && perf.rows.every((row) => Number(row[7]) > 0)).toBe(true);
    const ratios = values(verdict.evidence, 'Ratios');
    expect(Object.keys(ratios)).toHaveLength(4);
    expect(Object.values(ratios).filter((ratio) => !/^\d+\.\d\d×$/.test(ratio))).toEqual([]);
    if (withCluster) {
      const loss = values(verdict.evidence, 'Broker loss on');
      expect(loss['acknowledged but missing']).toBe('none');
      expect(Number(loss['acknowledged while it was down'])).toBeGreaterThan(0);
      expect(loss['ISR back to 3 after the restart']).toBe('yes');
      expect(await clusterRunning()).toBe(true);
    } else {
      expect(verdict.summary).toContain('npm run kafka:cluster:start');
      expect(values(verdict.evidence, 'Broker loss (not run)').needs).toContain(
        'npm run kafka:cluster:start',
      );
    }
    expect(steps.at(-1)?.text).toMatch(/^Cleanup verified/);
  }, 240_000);
});
