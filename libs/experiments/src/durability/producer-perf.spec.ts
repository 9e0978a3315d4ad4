import { describe, expect, it } from 'vitest';
import { parsePerfOutput } from './producer-perf';

// Kafka 4.1.2's ProducerPerformance with --print-metrics (shortened; the spacing as printed).
const OUTPUT = `9911 records sent, 1981.8 records/sec (0.97 MB/sec), 1011.2 ms avg latency, 1800.0 ms max latency.
20000 records sent, 4669.6 records/sec (2.28 MB/sec), 1522.95 ms avg latency, 2368.00 ms max latency, 1553 ms 50th, 2082 ms 95th, 2318 ms 99th, 2365 ms 99.9th.

Metric Name                                                                                             Value
producer-metrics:batch-size-avg:{client-id=perf-producer-client}                                      : 16191.146
producer-metrics:records-per-request-avg:{client-id=perf-producer-client}                             : 30.960
producer-metrics:request-total:{client-id=perf-producer-client}                                       : 650.000
`;

describe('parsePerfOutput', () => {
  it('reads the final summary line and the batching metrics', () => {
    expect(parsePerfOutput(OUTPUT, 0, -1)).toEqual({
      lingerMs: 0,
      throughput: -1,
      records: 20_000,
      recordsPerSec: 4669.6,
      mbPerSec: 2.28,
      avgLatencyMs: 1522.95,
      p99LatencyMs: 2318,
      recordsPerRequest: 30.96,
      produceRequests: 646,
      batchSizeAvgBytes: 16191.146,
      summaryLine: OUTPUT.split('\n')[1],
    });
  });

  it('has no result without the final line, and no request count without the metrics', () => {
    expect(parsePerfOutput(OUTPUT.split('\n')[0] ?? '', 0, -1)).toBeUndefined();
    const noMetrics = parsePerfOutput(OUTPUT.split('\n').slice(0, 2).join('\n'), 20, 2500);
    expect(noMetrics?.produceRequests).toBeUndefined();
    expect(noMetrics?.records).toBe(20_000);
  });
});
