import { describe, expect, it } from 'vitest';
import { DefaultGroups, type LoadConfig } from '../load-config';
import { renderHtmlReport } from './html-report';
import type { LoadReport } from './report';
import { judge } from './verdict';
import { lineChart, niceTicks } from './svg-chart';

const summary = { count: 1, p50: 10, p90: 20, p99: 30, p999: 40, max: 50, mean: 12 };
const config: LoadConfig = {
  model: { kind: 'open', rate: 10, durationSeconds: 5 },
  maxInFlight: 100,
  connections: 8,
  baseUrl: 'http://127.0.0.1:3000',
  mix: { confirmed: 1, declined: 0, 'out-of-stock': 0 },
  customers: 10,
  seed: 1,
  traceRatio: 0.01,
  kafkaBrokers: ['127.0.0.1:9092'],
  topicPrefix: '',
  groups: DefaultGroups,
  lagIntervalMs: 5000,
  drainSeconds: 1,
  checkEmails: false,
  maildevUrl: 'http://127.0.0.1:1080',
};
const counted: Omit<LoadReport, 'verdict'> = {
  startedAt: '2026-11-30T10:00:00.000Z',
  config,
  consumerGroup: 'loadgen-x',
  durationSeconds: 5,
  achievedRate: 10,
  totals: {
    offered: 50,
    dropped: 0,
    placed: 50,
    httpErrors: {},
    terminalEvents: { 'order.confirmed': 50, 'order.cancelled': 0 },
    completed: 50,
    lost: 0,
    duplicated: 0,
    unexpectedOutcome: 0,
    foreignEvents: 0,
  },
  latency: { http: summary, e2e: summary, e2eConfirmed: summary, e2eCancelled: summary },
  timeline: Array.from({ length: 5 }, (_, t) => ({
    t,
    offered: 10,
    placed: 10,
    errors: 0,
    terminal: 10,
    http: { p50: 5, p99: 9, max: 12 },
    e2e: { p50: 40 + t, p99: 90, max: 120 },
  })),
  lag: {
    maxByGroup: { 'order-service': 3 },
    samples: [0, 5].map((t) => ({ t, lag: { 'order-service': 3, 'payment-service': null } })),
  },
  generator: {
    cpu: { wallSeconds: 5, userMs: 150, systemMs: 50, msPerOrder: 4, coreShare: 0.04 },
    sendDelay: { ...summary, p99: 0.7 },
  },
};
const report: LoadReport = { ...counted, verdict: judge(counted) };

const polylines = (svg: string) =>
  [...svg.matchAll(/<polyline[^>]*points="([^"]*)"/g)].map((m) => (m[1] ?? '').split(' '));

describe('lineChart', () => {
  it('draws one polyline per series with one point per value, inside the viewBox', () => {
    const svg = lineChart({
      title: 'a <b>',
      xLabel: 's',
      yLabel: 'n',
      width: 400,
      height: 200,
      series: [
        {
          name: 'x',
          color: '#000',
          points: [
            [0, 1],
            [1, 2],
            [2, 3],
          ],
        },
        { name: 'y', color: '#111', points: [[0, 5]] },
      ],
    });
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 400 200"/);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).toContain('<title>a &#60;b&#62;</title>');
    const lines = polylines(svg);
    expect(lines.map((l) => l.length)).toEqual([3, 1]);
    for (const [x, y] of lines.flat().map((p) => p.split(',').map(Number)))
      expect(x! >= 0 && x! <= 400 && y! >= 0 && y! <= 200).toBe(true);
  });

  it('picks round ticks', () => {
    expect(niceTicks(9)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(niceTicks(0)).toEqual([0, 1]);
  });
});

describe('renderHtmlReport', () => {
  const html = renderHtmlReport(report);

  it('is a self-contained page', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org|127\.0\.0\.1)/);
    expect(html).toContain('LOST 0');
    expect(html).toContain('VERDICT PASS: 0 lost, 0 duplicated, 0 unexpected outcomes');
  });

  it("states the generator's own CPU and send delay", () => {
    expect(html).toContain('4.000 CPU ms per order, 4.0 % of a core over 5.0 s of load');
    expect(html).toMatch(/loadgen send delay: p50 10\.0 {2}p90 20\.0 {2}p99 0\.7/);
  });

  it('plots throughput, two latency charts and lag with a point per second / sample', () => {
    expect(html.match(/<svg /g)).toHaveLength(4);
    const lines = polylines(html);
    // throughput 3 + e2e 3 + http 3 series of 5 seconds; lag: 5 groups + total, 2 samples
    expect(lines.slice(0, 9).map((l) => l.length)).toEqual(Array(9).fill(5));
    expect(lines.slice(9).map((l) => l.length)).toEqual(Array(6).fill(2));
  });
});
