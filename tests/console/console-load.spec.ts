import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadReport } from '@pipeline/load';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipelineUnderTest, SERVICES } from '../e2e/pipeline.harness';
import { testKafka } from '../support/kafka';
import { eventually } from '../support/processes';
import {
  launchBrowser,
  screenshot,
  serviceGroupEnv,
  signIn,
  startConsole,
  TOKEN,
  type ConsoleUnderTest,
} from './console.harness';

const start = (baseUrl: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${baseUrl}/load/start`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers },
    body,
  });

const numberIn = async (page: Page, selector: string): Promise<number> =>
  Number.parseFloat((await page.locator(selector).textContent()) ?? 'NaN');

// The five services and the console on one prefix; the console's Load page drives that pipeline.
/** Every consumer group the broker lists now. */
async function groupIds(): Promise<string[]> {
  const admin = testKafka().admin();
  await admin.connect();
  try {
    return (await admin.listGroups()).groups.map((group) => group.groupId);
  } finally {
    await admin.disconnect();
  }
}

describe('console: a load run from the Load page, against the real pipeline', () => {
  let pipeline: PipelineUnderTest;
  let consoleApp: ConsoleUnderTest;
  let browser: Browser;
  let page: Page;
  let reportDir: string;

  beforeAll(async () => {
    reportDir = await mkdtemp(join(tmpdir(), 'console-load-'));
    pipeline = await PipelineUnderTest.start('e2e.console-load');
    // The lag the run samples is that of this pipeline's own (uniquely named) groups.
    const groups = serviceGroupEnv(SERVICES, (name) => pipeline.service(name).group);
    consoleApp = await startConsole({
      prefix: pipeline.prefix,
      services: Object.fromEntries(SERVICES.map((name) => [name, [pipeline.service(name).baseUrl]])),
      env: { CONSOLE_REPORT_DIR: reportDir, ...groups },
    });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    // The machine may be running other stacks: Chromium's first pages can take a while.
    page.setDefaultTimeout(60_000);
    await signIn(page, consoleApp.baseUrl);
  });

  afterAll(async () => {
    await Promise.allSettled([browser?.close(), consoleApp?.stop()]);
    await pipeline?.stop();
    if (reportDir) await rm(reportDir, { recursive: true, force: true });
  });

  it('a short run ends by itself and shows its summary, with nothing lost or duplicated, and its report', async () => {
    await page.goto(`${consoleApp.baseUrl}/load`);
    await page.getByLabel('Rate (orders/s)').fill('5');
    await page.getByLabel('Duration (s)').fill('3');
    await page.getByLabel('Mix').fill('confirmed=8,declined=1,out-of-stock=1');
    await page.getByLabel('Trace ratio').fill('0');
    await page.getByRole('button', { name: 'Start load' }).click();
    await page.waitForURL(`${consoleApp.baseUrl}/load`);
    // Refreshed in place: the same document turns from running to its summary.
    const summary = page.locator('#load-summary');
    await summary.waitFor({ timeout: 60_000 });
    await expect(page.locator('#load-summary [data-field="verdict"]').textContent()).resolves.toBe('PASS');
    await expect(numberIn(page, '#load-summary [data-field="lost"]')).resolves.toBe(0);
    await expect(numberIn(page, '#load-summary [data-field="duplicated"]')).resolves.toBe(0);
    const placed = await numberIn(page, '#load-summary [data-field="placed"]');
    expect(placed).toBeGreaterThanOrEqual(10);
    await expect(numberIn(page, '#load-summary [data-field="offered"]')).resolves.toBe(placed);
    await expect(page.locator('[data-field="summary"]').textContent()).resolves.toContain('VERDICT PASS');
    await screenshot(page, 'load-summary');

    // A finished run's summary is not re-rendered by the page's status refresh: the same node
    // stays (a click on its link is not lost to a swap), and an opened <details> stays open.
    await page.locator('#load-summary details summary').click();
    await page.locator('#load-summary').evaluate((node) => ((node as { marked?: boolean }).marked = true));
    for (let tick = 0; tick < 2; tick += 1)
      await page.waitForResponse((response) => response.url().endsWith('/load/status'));
    await expect(
      page.locator('#load-summary').evaluate((node) => (node as { marked?: boolean }).marked),
    ).resolves.toBe(true);
    await expect(
      page.locator('#load-summary details').evaluate((node) => (node as { open: boolean }).open),
    ).resolves.toBe(true);

    // The JSON report beside the HTML one says the same.
    const href = (await page.locator('a[data-link="report"]').getAttribute('href'))!;
    const name = /^\/load\/reports\/(load-[0-9TZ-]+)\.html$/.exec(href)?.[1];
    expect(name, href).toBeDefined();
    const report = JSON.parse(await readFile(join(reportDir, `${name}.json`), 'utf8')) as LoadReport;
    expect(report.totals).toMatchObject({ placed, lost: 0, duplicated: 0, completed: placed });
    expect(report.stopped).toBeUndefined();
    // The run's own consumer group on `orders` is named as the console's, and is gone afterwards.
    expect(report.consumerGroup.startsWith(`${consoleApp.group}.load-`), report.consumerGroup).toBe(true);
    await expect(groupIds()).resolves.not.toContain(report.consumerGroup);

    // The HTML report renders with its inline styles and charts under its own CSP.
    const violations: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) violations.push(message.text());
    });
    await page.locator('a[data-link="report"]').click();
    await page.waitForURL(`${consoleApp.baseUrl}${href}`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Load generator report');
    await expect(page.locator('svg').count()).resolves.toBe(4);
    // The report's inline stylesheet applied (a blocked one would leave the body unbounded).
    const maxWidth = await page
      .locator('body')
      .evaluate(
        (body) =>
          (globalThis as unknown as { getComputedStyle(e: unknown): { maxWidth: string } }).getComputedStyle(
            body,
          ).maxWidth,
      );
    expect(maxWidth).toBe('900px');
    expect(violations).toEqual([]);
    expect((await fetch(`${consoleApp.baseUrl}/load/reports/..%2F${name}.json`)).status).toBe(404);
  }, 90_000);

  it('a longer run stops at once with the button and shows its stopped summary; a second start is refused', async () => {
    await page.goto(`${consoleApp.baseUrl}/load`);
    await page.getByLabel('Rate (orders/s)').fill('5');
    await page.getByLabel('Duration (s)').fill('300');
    await page.getByRole('button', { name: 'Start load' }).click();
    await page.waitForURL(`${consoleApp.baseUrl}/load`);
    await eventually(
      async () => ((await numberIn(page, '#load-progress [data-field="completed"]')) > 0 ? true : undefined),
      { timeoutMs: 60_000, what: 'terminal events counted on the running page' },
    );
    await screenshot(page, 'load-running');

    const second = await start(consoleApp.baseUrl, 'rate=1&duration=1', { authorization: `Bearer ${TOKEN}` });
    expect(second.status).toBe(409);
    expect(((await second.json()) as { error: string }).error).toMatch(/already running/);

    // The run's own clock when Stop is pressed: the summary's duration must end about there.
    const elapsedAtStop = await numberIn(page, '#load-progress [data-field="elapsed"]');
    const placedAtStop = await numberIn(page, '#load-progress [data-field="placed"]');
    await page.getByRole('button', { name: 'Stop the run' }).click();
    await page.waitForURL(`${consoleApp.baseUrl}/load`);
    // The stop answers once the run has ended: the page it returns to already has the summary.
    await expect(page.locator('#load-summary').getAttribute('data-result')).resolves.toBe('STOPPED');
    await expect(page.locator('#load-running').count()).resolves.toBe(0);
    // Ended at once: within a few seconds of the press (the page's progress refreshes every second).
    const seconds = await numberIn(page, '#load-summary [data-field="duration"]');
    expect(seconds).toBeGreaterThanOrEqual(elapsedAtStop - 1);
    expect(seconds).toBeLessThan(elapsedAtStop + 10);
    // Unfinished = placed without a terminal event yet: at most what was placed (here, after
    // terminal events were seen on the running page, fewer).
    const placed = await numberIn(page, '#load-summary [data-field="placed"]');
    expect(placed).toBeGreaterThanOrEqual(placedAtStop);
    const unfinished = await numberIn(page, '#load-summary [data-field="unfinished"]');
    expect(unfinished).toBeGreaterThanOrEqual(0);
    expect(unfinished).toBeLessThan(placed);
    await expect(page.locator('#load-summary [data-field="lost"]').count()).resolves.toBe(0);
    await expect(page.locator('[data-field="summary"]').textContent()).resolves.toMatch(
      /STOPPED after [\d.]+ s: UNFINISHED \d+ {3}DUPLICATED 0/,
    );
    // Nothing runs any more: a new start is accepted (and stopped again at once).
    const again = await start(consoleApp.baseUrl, 'rate=1&duration=60', { authorization: `Bearer ${TOKEN}` });
    expect(again.status).toBe(200);
    const stop = await fetch(`${consoleApp.baseUrl}/load/stop`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' },
    });
    expect(stop.status).toBe(200);
    await expect(stop.json()).resolves.toMatchObject({ status: 'finished', verdict: 'STOPPED' });
  }, 90_000);

  it('refuses a start without the token (403) and a malformed form (400 naming the field)', async () => {
    const refused = await start(consoleApp.baseUrl, 'rate=1&duration=1');
    expect(refused.status).toBe(403);
    const invalid = await start(consoleApp.baseUrl, 'rate=fast&duration=1', {
      authorization: `Bearer ${TOKEN}`,
    });
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as { error: string }).error).toMatch(/rate: /);
    await expect(fetch(`${consoleApp.baseUrl}/load/status`).then((r) => r.text())).resolves.not.toContain(
      'load-running',
    );
  });

  it('stopping the console aborts a running load and waits for it: nothing keeps running', async () => {
    const started = await start(consoleApp.baseUrl, 'rate=5&duration=300', {
      authorization: `Bearer ${TOKEN}`,
    });
    expect(started.status).toBe(200);
    await eventually(
      async () =>
        (await fetch(`${consoleApp.baseUrl}/load/status`).then((r) => r.text())).includes(
          'data-field="placed"',
        )
          ? true
          : undefined,
      { timeoutMs: 60_000, what: 'the run placing orders' },
    );
    await consoleApp.stop();
    // SIGTERM, not the harness's SIGKILL after 10 s: the console closed cleanly, the run ended first.
    expect(await consoleApp.process.exited).toBe(0);
    expect(consoleApp.process.output()).toMatch(/load run finished: STOPPED/);
  });
});
