import { describe, expect, it } from 'vitest';
import { renderSampleLine, renderSoakHtml, type SoakResult } from './soak-report';
import type { SoakSample } from './soak-verdict';

const sample = (t: number, rss: number | null): SoakSample => ({
  t,
  placedPerSecond: 20,
  e2eP99Ms: t === 10 ? null : 41.6,
  lag: { 'payment-service': 4, 'email-service': t === 10 ? null : 7 },
  outboxBacklog: { order: 2, payment: 0 },
  rssMiB: { order: rss, console: 120.4 },
  pids: { order: 1, console: 2 },
});

describe('renderSampleLine', () => {
  it('shows elapsed and total time, rate, total lag, p99, backlog and RSS per process', () => {
    expect(renderSampleLine(sample(130, 151.6), 1800)).toBe(
      '[soak  2:10/30:00] 20.0 orders/s | lag 11 | e2e p99 42 ms | outbox 2 | RSS MiB order 152 console 120',
    );
  });

  it('marks what could not be read', () => {
    expect(renderSampleLine(sample(10, null), 180)).toBe(
      '[soak  0:10/3:00] 20.0 orders/s | lag 4+? | e2e p99 – | outbox 2 | RSS MiB order ? console 120',
    );
  });
});

describe('renderSoakHtml', () => {
  it('plots RSS, lag, e2e p99, outbox backlog and throughput over time, and escapes text', () => {
    const result: SoakResult = {
      startedAt: '2026-12-02T10:00:00.000Z',
      minutes: 30,
      sampleSeconds: 10,
      rate: { rate: 150, sustainable: 300, why: 'half of <300>' },
      policy: { warmupSeconds: 300, windowSeconds: 120, maxRssGrowth: 0.1, lagBound: 1500 },
      verdict: { result: 'PASS', checks: [] },
      samples: [sample(10, 150), sample(20, 151)],
      load: ['loadgen: 1800.0 s of load'],
    };
    const html = renderSoakHtml(result);
    for (const title of [
      'RSS per process',
      'Consumer lag per group',
      'e2e p99',
      'Outbox backlog',
      'Orders placed',
    ])
      expect(html).toContain(`<title>${title}`);
    expect(html).toContain('data-series="console"');
    expect(html).toContain('half of &lt;300&gt;');
    expect(html).not.toContain('<300>');
  });
});
