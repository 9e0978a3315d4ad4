import { describe, expect, it } from 'vitest';
import { idleRates, parseServiceCounters, stepCounts, type CountersReading } from './work-counts';

const metrics = (
  produce: number,
  fetch: number,
  statements: number,
): string => `# HELP pipeline_kafka_requests_total Requests
# TYPE pipeline_kafka_requests_total counter
pipeline_kafka_requests_total{api="Produce",service="order-service"} ${produce}
pipeline_kafka_requests_total{api="Fetch",service="order-service"} ${fetch}
pipeline_kafka_requests_total_other{api="Fetch"} 999
pipeline_kafka_response_bytes_total{api="Fetch",service="order-service"} ${fetch * 1000}
# TYPE pipeline_db_statements_total counter
pipeline_db_statements_total{service="order-service"} ${statements}
process_cpu_seconds_total 12.5
`;

const reading = (order: string, payment: string, commits: [number, number]): CountersReading => ({
  services: { order: parseServiceCounters(order), payment: parseServiceCounters(payment) },
  commits: { order: commits[0], payment: commits[1] },
});

describe('parseServiceCounters', () => {
  it('reads requests by API and statements, ignoring other metrics', () => {
    expect(parseServiceCounters(metrics(97, 87, 1215))).toEqual({
      kafkaRequests: { Produce: 97, Fetch: 87 },
      kafkaResponseBytes: { Fetch: 87_000 },
      dbStatements: 1215,
    });
  });

  it('reads a service without the counters as zero', () => {
    expect(parseServiceCounters('up 1\n')).toEqual({
      kafkaRequests: {},
      kafkaResponseBytes: {},
      dbStatements: 0,
    });
  });
});

describe('stepCounts', () => {
  const from = reading(metrics(100, 50, 1000), metrics(10, 20, 300), [500, 100]);
  const to = reading(metrics(300, 150, 1800), metrics(60, 120, 500), [900, 200]);

  it('gives per-order deltas by API, by service and in total', () => {
    const counts = stepCounts(from, to, { orders: 100, seconds: 10 });
    expect(counts.kafkaRequests).toEqual({
      total: 4.5,
      byApi: { Fetch: 2, Produce: 2.5 },
      byService: { order: 3, payment: 1.5 },
    });
    expect(counts.dbStatements).toEqual({ total: 10, byService: { order: 8, payment: 2 } });
    expect(counts.dbCommits).toEqual({ total: 5, byService: { order: 4, payment: 1 } });
    expect(counts.aboveIdle).toBeUndefined();
    // 200 Fetch responses of 1,000 bytes each over 100 orders.
    expect(counts.kafkaResponseBytes).toEqual({ byApi: { Fetch: 2000 } });
  });

  it('takes the idle rate out of the totals when it was measured', () => {
    const idle = idleRates(from, reading(metrics(110, 60, 1010), metrics(10, 30, 300), [510, 100]), 10);
    expect(idle).toEqual({ kafkaRequests: 3, dbStatements: 1, dbCommits: 1 });
    expect(stepCounts(from, to, { orders: 100, seconds: 10 }, idle).aboveIdle).toEqual({
      kafkaRequests: 4.2,
      dbStatements: 9.9,
      dbCommits: 4.9,
    });
  });

  it('counts a service that restarted from zero rather than negative', () => {
    const restarted = reading(metrics(30, 10, 100), metrics(60, 120, 500), [900, 200]);
    expect(stepCounts(from, restarted, { orders: 10, seconds: 10 }).kafkaRequests.total).toBe(19);
  });
});
