import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipelineUnderTest, SERVICES } from '../e2e/pipeline.harness';
import { cpuTimeMs } from '../support/proc-cpu';
import { eventually } from '../support/processes';
import {
  launchBrowser,
  screenshot,
  serviceGroupEnv,
  startConsole,
  type ConsoleUnderTest,
} from './console.harness';

const SAMPLE_MS = 2_000;
const ORDERS_PER_SECOND = 5;
/** The services' HEALTH_STALL_TIMEOUT_MS: a held lock fails payment-service's liveness soon. */
const STALL_TIMEOUT_MS = 4_000;

interface Series {
  readonly points: number;
  readonly t: readonly number[];
  readonly placedPerSecond: readonly (number | null)[];
  readonly lag: Readonly<Record<string, readonly (number | null)[]>>;
  readonly cpuPercent: Readonly<Record<string, readonly (number | null)[]>>;
  readonly picture: {
    readonly services: Readonly<Record<string, { states: string[]; stalledReason: string | null }>>;
  } | null;
}

// The flow page's picture and charts against the real pipeline: orders keep coming while
// payment-service first hangs on a lock (the picture says why, from its /health/live), then is
// killed, and the picture shows its group's lag growing and the stall.
describe('console: the pipeline picture and the charts, in a real browser', () => {
  let pipeline: PipelineUnderTest;
  let consoleApp: ConsoleUnderTest;
  let browser: Browser;
  let page: Page;
  let placing: NodeJS.Timeout | undefined;
  let placed = 0;

  beforeAll(async () => {
    pipeline = await PipelineUnderTest.start('e2e.console-picture', {
      HEALTH_STALL_TIMEOUT_MS: String(STALL_TIMEOUT_MS),
      // The lock below must hang the transaction, not be cancelled by a statement timeout.
      DATABASE_STATEMENT_TIMEOUT_MS: '120000',
    });
    consoleApp = await startConsole({
      prefix: pipeline.prefix,
      token: undefined,
      services: Object.fromEntries(SERVICES.map((name) => [name, [pipeline.service(name).baseUrl]])),
      env: {
        CONSOLE_SAMPLE_INTERVAL_MS: String(SAMPLE_MS),
        CONSOLE_MAX_STREAMS: '2',
        ...serviceGroupEnv(SERVICES, (name) => pipeline.service(name).group),
      },
    });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  }, 120_000);

  afterAll(async () => {
    clearInterval(placing);
    await Promise.allSettled([browser?.close(), consoleApp?.stop()]);
    await pipeline?.stop();
  });

  const paymentNode = () => page.locator('#flow-diagram g[data-service="payment"]');
  const paymentLag = async () => Number(await paymentNode().getAttribute('data-lag'));
  const series = async () => (await (await fetch(`${consoleApp.baseUrl}/flow/series`)).json()) as Series;

  const paymentReason = async () => (await paymentNode().getAttribute('data-stalled-reason')) ?? '';

  /** Orders keep coming from the first test on; the page is open and the saga flows. */
  async function ordersFlowing(): Promise<void> {
    if (placing !== undefined) return;
    placing = setInterval(() => {
      placed += 1;
      void pipeline
        .placeOrder('demo-customer', [{ sku: 'SKU-APPLE', quantity: 1, unitPrice: '4.20' }])
        .catch(() => undefined);
    }, 1000 / ORDERS_PER_SECOND);
    await page.goto(consoleApp.baseUrl);
    await eventually(
      async () => {
        const data = await series();
        return data.placedPerSecond.some((rate) => (rate ?? 0) > 0) ? data : undefined;
      },
      { timeoutMs: 60_000, what: 'placed orders in the series' },
    );
  }

  it('says why a hung consumer is stalled, from its /health/live, and clears it once it moves', async () => {
    await ordersFlowing();
    await expect(paymentNode().getAttribute('data-state')).resolves.toBe('ok');
    // Every consumer transaction starts by claiming its events in the inbox: it waits for this lock.
    const locker = await pipeline.service('payment').database.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE inbox IN SHARE MODE');
      // The console sees lag and no committed progress, asks payment-service's /health/live, and
      // once the stall timeout has passed carries its 503's reason into the picture.
      await eventually(
        async () => ((await paymentReason()).includes('no progress with lag on') ? true : undefined),
        { timeoutMs: 40_000, what: 'payment stalled with its liveness reason' },
      );
      await expect(paymentNode().getAttribute('data-state')).resolves.toContain('stalled');
      await expect(paymentNode().getAttribute('data-state')).resolves.not.toContain('dead');
      await expect(paymentNode().locator('text.reason').textContent()).resolves.toMatch(
        /no progress: \d+ partitions?/,
      );
      await expect(paymentNode().locator('title').textContent()).resolves.toContain(
        `stalled: no progress with lag on ${pipeline.prefix}orders/`,
      );
      await expect(page.locator('#flow-diagram-desc').textContent()).resolves.toContain('payment: STALLED');
      const marks = (await series()).picture?.services.payment;
      expect(marks?.stalledReason).toContain('no progress with lag on');
      await screenshot(page, 'flow-diagram-stalled-reason');
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    // It moves again: no stall, no reason.
    await eventually(async () => ((await paymentReason()) === '' ? true : undefined), {
      timeoutMs: 30_000,
      what: 'payment no longer stalled',
    });
    await expect(paymentNode().getAttribute('data-state')).resolves.not.toContain('stalled');
  }, 120_000);

  it('shows a killed consumer’s lag growing and the stall, while orders keep coming', async () => {
    await ordersFlowing();

    const cpuBefore = cpuTimeMs(consoleApp.process.child.pid!);
    const placedBefore = placed;
    const since = performance.now();
    pipeline.service('payment').process.child.kill('SIGKILL');
    await pipeline.service('payment').process.exited;

    // The picture refreshes itself (no reload): the stall and the death appear, in words.
    await page
      .locator('#flow-diagram g[data-service="payment"][data-state~="stalled"]')
      .waitFor({ timeout: 30_000 });
    await expect(paymentNode().getAttribute('data-state')).resolves.toContain('dead');
    await expect(paymentNode().textContent()).resolves.toContain('STALLED');
    // Nobody is left to ask /health/live: the picture says so.
    await expect(paymentReason()).resolves.toContain('no instance is up to ask /health/live');
    const first = await paymentLag();
    expect(first).toBeGreaterThan(0);
    // The next refreshes show more: the lag grows while orders keep coming.
    await eventually(async () => ((await paymentLag()) > first ? true : undefined), {
      timeoutMs: 20_000,
      what: `payment's lag above ${first}`,
    });
    await page
      .locator('#flow-diagram g[data-service="payment"][data-state~="growing"]')
      .waitFor({ timeout: 20_000 });
    await expect(page.locator('#flow-diagram-desc').textContent()).resolves.toContain('payment: DEAD');
    // The others keep up: order-service is neither dead nor stalled.
    await expect(
      page.locator('#flow-diagram g[data-service="order"]').getAttribute('data-state'),
    ).resolves.not.toContain('dead');
    await screenshot(page, 'flow-diagram-under-load');

    const cpuMs = cpuTimeMs(consoleApp.process.child.pid!) - cpuBefore;
    const seconds = (performance.now() - since) / 1000;
    process.stdout.write(
      `console CPU: ${cpuMs} ms over ${seconds.toFixed(1)} s, ${placed - placedBefore} orders placed (${(cpuMs / Math.max(1, placed - placedBefore)).toFixed(2)} CPU ms per order), page open\n`,
    );
  }, 120_000);

  it('draws the charts from the sampler’s series', async () => {
    const data = await series();
    expect(data.points).toBeGreaterThanOrEqual(3);
    expect(data.t).toHaveLength(data.points);
    expect(data.lag.payment!.at(-1)).toBeGreaterThan(0);
    expect(data.cpuPercent.order!.some((value) => value !== null)).toBe(true);
    // The page's script rendered them: one uPlot canvas per chart, and the point count it drew.
    await eventually(
      async () =>
        Number(await page.locator('#flow-charts').getAttribute('data-points')) >= 3 ? true : undefined,
      { timeoutMs: 10_000, what: 'the charts drawing at least 3 points' },
    );
    await expect(page.locator('#flow-charts figure.flow-chart canvas').count()).resolves.toBe(6);
    await page.locator('#flow-charts').scrollIntoViewIfNeeded();
    await screenshot(page, 'flow-charts');
  });

  it('refuses a live stream beyond CONSOLE_MAX_STREAMS with 503 and the reason', async () => {
    // The page holds one stream; one more fits, the next is refused.
    const held = new AbortController();
    try {
      const second = await fetch(`${consoleApp.baseUrl}/flow/stream`, { signal: held.signal });
      expect(second.status).toBe(200);
      const third = await fetch(`${consoleApp.baseUrl}/flow/stream`);
      expect(third.status).toBe(503);
      const refusal = (await third.json()) as { reason?: string };
      expect(refusal.reason).toContain('CONSOLE_MAX_STREAMS');
    } finally {
      held.abort();
    }
  });
});
