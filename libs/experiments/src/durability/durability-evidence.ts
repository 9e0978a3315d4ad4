import type { Evidence } from '../experiment';
import type { BrokerLossResult } from './broker-loss';
import type { PerfResult } from './producer-perf';

export interface PerfPair {
  readonly label: string;
  readonly records: number;
  readonly recordBytes: number;
  /** Records/s offered; -1 for as fast as it can. */
  readonly throughput: number;
}

const fixed = (value: number | undefined, digits = 0): string =>
  value === undefined ? 'n/a' : value.toFixed(digits);

export const perfTable = (runs: readonly PerfResult[]): Evidence => ({
  kind: 'table',
  caption: 'ProducerPerformance, acks=all',
  columns: [
    'offered',
    'linger.ms',
    'records',
    'records/s',
    'MB/s',
    'avg latency ms',
    'p99 latency ms',
    'produce requests',
    'records/request',
    'avg batch B',
  ],
  rows: runs.map((r) => [
    r.throughput < 0 ? 'max' : `${r.throughput}/s`,
    String(r.lingerMs),
    String(r.records),
    fixed(r.recordsPerSec),
    fixed(r.mbPerSec, 2),
    fixed(r.avgLatencyMs, 1),
    fixed(r.p99LatencyMs),
    fixed(r.produceRequests),
    fixed(r.recordsPerRequest, 1),
    fixed(r.batchSizeAvgBytes),
  ]),
});

const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || b === 0 ? 'n/a' : `${(a / b).toFixed(2)}×`;

/** linger.ms 20 over linger.ms 0, per pair. */
export function lingerRatios(runs: readonly PerfResult[], pairs: readonly PerfPair[]): Evidence {
  const entries = pairs.flatMap((pair): [string, string][] => {
    const of = (lingerMs: number) =>
      runs.find((r) => r.throughput === pair.throughput && r.lingerMs === lingerMs);
    const [zero, twenty] = [of(0), of(20)];
    return [
      [`${pair.label}: records/s`, ratio(twenty?.recordsPerSec, zero?.recordsPerSec)],
      [`${pair.label}: produce requests`, ratio(twenty?.produceRequests, zero?.produceRequests)],
    ];
  });
  return { kind: 'values', caption: 'Ratios, linger.ms 20 over linger.ms 0', entries };
}

export const brokerLossEvidence = (loss: BrokerLossResult): Evidence => ({
  kind: 'values',
  caption: `Broker loss on ${loss.topic} (RF 3, min.insync.replicas 2, acks=all)`,
  entries: [
    ['killed (kill -9), then started again', `node ${loss.killedNode}, leader of partition 0`],
    ['brokers up while it was down', loss.brokersWhileDown.join(', ')],
    ['acknowledged', String(loss.acknowledged)],
    ['acknowledged while it was down', String(loss.acknowledgedWhileDown)],
    ['in failed sends (not acknowledged)', String(loss.unacknowledged)],
    ['read back', String(loss.read)],
    ['acknowledged but missing', loss.missing.length === 0 ? 'none' : loss.missing.slice(0, 10).join(', ')],
    [
      'send() resolved, partition never acknowledged (kafkajs retry gap)',
      loss.resolvedUnanswered === 0
        ? 'none'
        : `${loss.resolvedUnanswered} records, ${loss.resolvedUnansweredInLog} of them in the log`,
    ],
    ['duplicates (retried sends)', String(loss.duplicates)],
    ['ISR back to 3 after the restart', loss.isrRestored ? 'yes' : 'no'],
  ],
});

/** What did not hold; empty when the criterion is met. Speeds are shown, never judged. */
export function durabilityProblems(
  runs: readonly PerfResult[],
  pairs: readonly PerfPair[],
  loss: BrokerLossResult | undefined,
): string[] {
  const problems: string[] = [];
  for (const pair of pairs)
    for (const lingerMs of [0, 20]) {
      const run = runs.find((r) => r.throughput === pair.throughput && r.lingerMs === lingerMs);
      const what = `${pair.label}, linger.ms=${lingerMs}`;
      if (run === undefined) problems.push(`no perf run ${what}`);
      else if (run.records !== pair.records)
        problems.push(`${what} sent ${run.records} of ${pair.records} records`);
      else if (run.produceRequests === undefined)
        problems.push(`${what}: no producer metrics to count requests`);
    }
  if (loss) {
    if (loss.missing.length > 0)
      problems.push(`${loss.missing.length} acknowledged records missing after the broker loss`);
    if (loss.acknowledgedWhileDown === 0) problems.push('nothing was acknowledged while the broker was down');
    if (!loss.isrRestored) problems.push('the restarted broker did not rejoin the ISR');
  }
  return problems;
}
