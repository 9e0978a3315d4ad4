import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LoadReport } from '@pipeline/load';
import type { Admin } from 'kafkajs';
import type { BenchConfig } from './bench-args';
import type { ZipkinSpan } from './hop-breakdown';
import { runLoadStep, type LoadStepOptions } from './load-step';
import { CpuMeter } from './proc-stats';
import type { StackOptions } from './stack-under-test';
import { runStep, type StepContext } from './step-run';
import { withHopBreakdowns } from './step-traces';

// The load generator is a process of its own against a running stack: here a step "places" its
// sampled orders by putting their traces into a fake Zipkin, and reports its window.
vi.mock('./load-step', () => ({ runLoadStep: vi.fn() }));

const latency = { count: 1, p50: 10, p90: 20, p99: 30, p999: 30, max: 30, mean: 12 };

const report = (rate: number, seconds: number, startedMs: number): LoadReport =>
  ({
    startedAt: new Date(startedMs).toISOString(),
    durationSeconds: seconds,
    achievedRate: rate,
    totals: {
      offered: rate * seconds,
      placed: rate * seconds,
      dropped: 0,
      httpErrors: {},
      lost: 0,
      duplicated: 0,
      terminalEvents: { 'order.confirmed': rate * seconds, 'order.cancelled': 0 },
    },
    latency: { http: latency, e2e: latency, e2eConfirmed: latency, e2eCancelled: latency },
    timeline: [],
    lag: { maxByGroup: {}, samples: [] },
  }) as unknown as LoadReport;

/** A sampled order's trace: its request, and the send of its order.placed 10 ms later. */
const trace = (id: string, atMs: number): ZipkinSpan[] => [
  { traceId: id, id: `${id}1`, parentId: 'loadgen', kind: 'SERVER', timestamp: atMs * 1000, duration: 5000 },
  {
    traceId: id,
    id: `${id}2`,
    parentId: `${id}1`,
    kind: 'PRODUCER',
    timestamp: (atMs + 10) * 1000,
    duration: 3000,
    tags: { 'cloudevents.event_type': 'order.placed' },
  },
];

/** Runs `body` with the bench's tracing variables pointing at `zipkinUrl`, and restores them. */
async function withZipkinEnv<T>(zipkinUrl: string, body: () => Promise<T>): Promise<T> {
  const saved = [process.env.OTEL_EXPORTER_ZIPKIN_ENDPOINT, process.env.BENCH_TRACE_RATIO] as const;
  process.env.OTEL_EXPORTER_ZIPKIN_ENDPOINT = `${zipkinUrl}/api/v2/spans`;
  process.env.BENCH_TRACE_RATIO = '0.1';
  try {
    return await body();
  } finally {
    const restore = (name: string, value: string | undefined) =>
      value === undefined ? delete process.env[name] : (process.env[name] = value);
    restore('OTEL_EXPORTER_ZIPKIN_ENDPOINT', saved[0]);
    restore('BENCH_TRACE_RATIO', saved[1]);
  }
}

/** The span of the consumer's transaction handling that trace's order.placed, 20 ms after the request. */
const late = (id: string, atMs: number): ZipkinSpan => ({
  traceId: id,
  id: `${id}3`,
  parentId: `${id}2`,
  kind: 'CONSUMER',
  timestamp: (atMs + 20) * 1000,
  duration: 4000,
  localEndpoint: { serviceName: 'email-service' },
});

describe('a load step’s traces', () => {
  /** What the fake Zipkin holds: only the last step's traces, as a bounded one does after fast steps. */
  let held: ZipkinSpan[][] = [];
  let queries = 0;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((_request, response) => {
      queries += 1;
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(held));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    [held, queries] = [[], 0];
    // One sampled order per 5 offered a second: each step's traces say which step they were.
    vi.mocked(runLoadStep).mockImplementation((options: LoadStepOptions) => {
      const startedMs = Date.now();
      held = Array.from({ length: options.rate / 5 }, (_, i) => trace(`${options.rate}-${i}`, startedMs + i));
      return Promise.resolve(report(options.rate, options.seconds, startedMs));
    });
  });

  const context = (traces: StepContext['traces']): StepContext => {
    let now = 0;
    return {
      config: { drainSeconds: 5 } as BenchConfig,
      options: { portBase: 3100, topicPrefix: 'p.', groupPrefix: 'p.', kafkaBrokers: '' } as StackOptions,
      outDir: '/nonexistent',
      // No group to read: the catch-up wait finds no lag.
      admin: {} as Admin,
      meter: new CpuMeter([]),
      steps: [],
      onLoadgenStarted: () => undefined,
      ...(traces
        ? {
            traces: {
              ...traces,
              // The wait's clock only moves when it waits: no real time passes.
              settle: { now: () => now, sleep: (ms: number) => Promise.resolve(void (now += ms)) },
            },
          }
        : {}),
    };
  };

  it('breaks each measured step down right after it, before the next step’s traces push its own out', async () => {
    const run = context({ zipkinUrl: url });
    await runStep(run, 'warm-up', 20, 10);
    const slow = await runStep(run, 'step', 5, 20);
    await runStep(run, 'step', 25, 20);
    expect(slow.hops?.traces).toBe(1);
    expect(run.steps.map((s) => s.hops?.traces)).toEqual([undefined, 1, 5]);
    expect(run.steps[1]).toBe(slow);

    // By the end of the run Zipkin holds none of them: nothing is left to read then.
    held = [];
    const asked = queries;
    const { steps, unavailable } = await withZipkinEnv(url, () =>
      withHopBreakdowns(run.steps, 'p.', () => undefined),
    );
    expect(unavailable).toBeUndefined();
    expect(queries).toBe(asked);
    expect(steps.map((s) => s.hops?.traces)).toEqual([undefined, 1, 5]);
  });

  it('waits for every group to catch up first: a consumer behind exports its spans late', async () => {
    // One group is behind after the load: its consumer commits (and exports the spans of its
    // transaction) only after the bench has found it behind once.
    let behind = false;
    const admin = {
      fetchOffsets: ({ topics }: { topics: string[] }) => {
        const offset = behind ? '0' : '1';
        if (behind) {
          behind = false;
          held = held.map((t) => [...t, late(t[0]!.traceId, t[0]!.timestamp! / 1000)]);
        }
        return Promise.resolve(topics.map((topic) => ({ topic, partitions: [{ partition: 0, offset }] })));
      },
      fetchTopicOffsets: () => Promise.resolve([{ partition: 0, high: '1' }]),
    } as unknown as Admin;
    const run = { ...context({ zipkinUrl: url }), admin };
    const load = vi.mocked(runLoadStep).getMockImplementation()!;
    vi.mocked(runLoadStep).mockImplementation((options) => ((behind = true), load(options)));
    const result = await runStep(run, 'step', 25, 20);
    expect(behind).toBe(false);
    expect(result.hops?.hops.map((h) => [h.hop, h.n])).toEqual([['order.placed → email-service', 5]]);
  });

  it('reads no traces when the ramp wants no breakdown (tracing off, the soak)', async () => {
    const run = context(undefined);
    await runStep(run, 'step', 5, 20);
    expect(run.steps[0]?.hops).toBeUndefined();
    expect(queries).toBe(0);
  });
});
