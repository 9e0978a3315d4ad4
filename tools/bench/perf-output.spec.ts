import { describe, expect, it } from 'vitest';
import { parseConsumerPerf, parseEndToEndLatency, parsePgbench, parseProducerPerf } from './perf-output';

describe('perf tool output', () => {
  it('reads the producer summary, not the interim lines', () => {
    const out = [
      '250001 records sent, 50000.2 records/sec (24.41 MB/sec), 300.1 ms avg latency, 500.0 ms max latency.',
      '500000 records sent, 52910.052910 records/sec (25.83 MB/sec), 533.13 ms avg latency, 862.00 ms max latency, 530 ms 50th, 800 ms 95th, 850 ms 99th, 860 ms 99.9th.',
    ].join('\n');
    expect(parseProducerPerf(out)).toEqual({
      records: 500000,
      recordsPerSecond: 52910.05291,
      mbPerSecond: 25.83,
      avgLatencyMs: 533.13,
      maxLatencyMs: 862,
      p50Ms: 530,
      p99Ms: 850,
    });
  });

  it('reads the consumer CSV', () => {
    const out = [
      'start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec',
      '2026-11-30 10:00:00:000, 2026-11-30 10:00:05:000, 48.8281, 9.7656, 100000, 20000.0000, 3000, 2000, 24.4141, 50000.0000',
    ].join('\n');
    expect(parseConsumerPerf(out)).toEqual({
      records: 100000,
      recordsPerSecond: 20000,
      mbPerSecond: 9.7656,
      fetchRecordsPerSecond: 50000,
    });
  });

  it('reads pgbench', () => {
    const out = `number of clients: 4\nnumber of transactions actually processed: 12345\nlatency average = 3.241 ms\ntps = 1234.567890 (without initial connection time)\n`;
    expect(parsePgbench(out)).toEqual({
      clients: 4,
      transactions: 12345,
      tps: 1234.56789,
      latencyAvgMs: 3.241,
    });
  });

  it('fails loudly when there is no summary', () => {
    expect(() => parseProducerPerf('ERROR')).toThrow(/no producer perf summary/);
    expect(() => parsePgbench('ERROR')).toThrow(/no pgbench summary/);
  });

  it('reads the end-to-end latency summary, not the progress lines', () => {
    const out = [
      '0\t169.75838',
      '1000\t1.318921',
      'Avg latency: 1.7636 ms',
      'Percentiles: 50th = 1, 99th = 9, 99.9th = 22',
    ].join('\n');
    expect(parseEndToEndLatency(out)).toEqual({ avgMs: 1.7636, p50Ms: 1, p99Ms: 9, p999Ms: 22 });
    expect(() => parseEndToEndLatency('0\t169.7')).toThrow(/no end-to-end latency summary/);
  });
});
