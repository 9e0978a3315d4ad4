import { describe, expect, it } from 'vitest';
import type { BrokerLossResult } from './broker-loss';
import { durabilityProblems, lingerRatios } from './durability-evidence';
import type { PerfResult } from './producer-perf';

const pairs = [{ label: 'max', records: 100, recordBytes: 512, throughput: -1 }];
const run = (lingerMs: number, recordsPerSec: number, produceRequests: number): PerfResult => ({
  lingerMs,
  throughput: -1,
  records: 100,
  recordsPerSec,
  mbPerSec: 1,
  avgLatencyMs: 1,
  p99LatencyMs: 1,
  produceRequests,
  recordsPerRequest: 100 / produceRequests,
  batchSizeAvgBytes: 1,
  summaryLine: '',
});
const loss: BrokerLossResult = {
  topic: 't',
  killedNode: 1,
  brokersWhileDown: [2, 3],
  acknowledged: 600,
  unacknowledged: 0,
  acknowledgedWhileDown: 400,
  read: 600,
  missing: [],
  resolvedUnanswered: 0,
  resolvedUnansweredInLog: 0,
  duplicates: 0,
  isrRestored: true,
  log: [],
};

describe('the durability criterion', () => {
  it('shows linger.ms 20 over 0 for each pair', () => {
    const ratios = lingerRatios([run(0, 1000, 40), run(20, 1500, 10)], pairs);
    expect(ratios.kind === 'values' && ratios.entries).toEqual([
      ['max: records/s', '1.50×'],
      ['max: produce requests', '0.25×'],
    ]);
  });

  it('judges completeness and the broker loss, never a speed', () => {
    expect(durabilityProblems([run(0, 1, 40), run(20, 1_000_000, 10)], pairs, undefined)).toEqual([]);
    expect(durabilityProblems([run(0, 1, 40)], pairs, loss)).toEqual(['no perf run max, linger.ms=20']);
    expect(
      durabilityProblems([run(0, 1, 40), run(20, 1, 10)], pairs, {
        ...loss,
        missing: ['record-7'],
        acknowledgedWhileDown: 0,
        isrRestored: false,
      }),
    ).toEqual([
      '1 acknowledged records missing after the broker loss',
      'nothing was acknowledged while the broker was down',
      'the restarted broker did not rejoin the ISR',
    ]);
  });
});
