import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Topics } from '@pipeline/contracts';
import { PipelineUnderTest, SERVICES } from '../e2e/pipeline.harness';
import { uniqueName } from '../support/kafka';
import { eventually } from '../support/processes';
import { emailsTo } from '../support/service-harness';
import { ZIPKIN_URL, zipkinTrace } from '../support/zipkin';
import { launchBrowser, screenshot, signIn, startConsole, type ConsoleUnderTest } from './console.harness';

const CONFIRMED_PATH = 'order.placed → payment.authorized → stock.reserved → order.confirmed';

// The whole pipeline, traced to the local Zipkin, with the console beside it on the same topics.
describe('console: live flow and one order’s journey, in a real browser', () => {
  let pipeline: PipelineUnderTest;
  let consoleApp: ConsoleUnderTest;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    pipeline = await PipelineUnderTest.start('e2e.console-flow', {
      OTEL_TRACES_EXPORTER: 'zipkin',
      OTEL_EXPORTER_ZIPKIN_ENDPOINT: `${ZIPKIN_URL}/api/v2/spans`,
      OTEL_BSP_SCHEDULE_DELAY: '200',
    });
    consoleApp = await startConsole({
      prefix: pipeline.prefix,
      services: Object.fromEntries(SERVICES.map((name) => [name, [pipeline.service(name).baseUrl]])),
      env: { TRACE_UI_URL: ZIPKIN_URL },
    });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  });

  afterAll(async () => {
    // Each step even when another failed: a left-over service would outlive the run.
    await Promise.allSettled([browser?.close(), consoleApp?.stop()]);
    await pipeline?.stop();
  });

  it('places an order from the form; it appears live and turns CONFIRMED without a reload', async () => {
    await signIn(page, consoleApp.baseUrl);
    // Marks this document: a navigation or reload would make a new one without the mark.
    await page.evaluate(() => ((globalThis as unknown as { consoleTestMark: number }).consoleTestMark = 1));
    const recipient = `${uniqueName('console')}@example.test`;
    await page.getByLabel('Outcome').selectOption('confirmed');
    await page.getByLabel('Customer email').fill(recipient);
    await page.getByRole('button', { name: 'Place order' }).click();
    const placedLink = page.locator('#demo-result a');
    await placedLink.waitFor();
    const orderId = (await placedLink.textContent())!.trim();
    expect(orderId).toMatch(/^[0-9a-f-]{36}$/);

    const row = page.locator(`#order-${orderId}`);
    await row.waitFor({ timeout: 60_000 });
    await page.locator(`#order-${orderId}[data-status="CONFIRMED"]`).waitFor({ timeout: 120_000 });
    expect(
      await page.evaluate(() => (globalThis as unknown as { consoleTestMark?: number }).consoleTestMark),
    ).toBe(1);
    await expect(row.textContent()).resolves.toContain('CONFIRMED');
    // The services table is read from /metrics: every service of the pipeline is up.
    for (const name of SERVICES) {
      await expect(
        page.locator(`#service-metrics tr[data-service="${name}"]`).textContent(),
      ).resolves.toContain('up');
    }
    await screenshot(page, 'live-flow');

    // The journey, once the email went out (the page links to it).
    await eventually(async () => ((await emailsTo(recipient)).length > 0 ? true : undefined), {
      timeoutMs: 60_000,
      what: `the confirmation email to ${recipient}`,
    });
    await row.getByRole('link', { name: orderId }).click();
    await page.waitForURL(`${consoleApp.baseUrl}/orders/${orderId}`);
    await expect(page.locator('#journey-path').textContent()).resolves.toBe(CONFIRMED_PATH);
    await expect(page.locator('#order-status').textContent()).resolves.toContain('CONFIRMED');

    // Each row's partition and offset are where the record really is in the log.
    for (const [type, topic] of [
      ['order.placed', Topics.orders],
      ['payment.authorized', Topics.payments],
      ['stock.reserved', Topics.inventory],
      ['order.confirmed', Topics.orders],
    ] as const) {
      const records = await pipeline.records(topic, new Set([orderId]));
      const record = records.find((r) => r.headers?.['ce_type']?.toString() === type);
      expect(record, `${type} on ${topic}`).toBeDefined();
      const cells = page.locator(`#journey-events tr[data-type="${type}"]`);
      await expect(cells.locator('[data-field="partition"]').textContent()).resolves.toBe(
        String(record!.partition),
      );
      await expect(cells.locator('[data-field="offset"]').textContent()).resolves.toBe(record!.offset);
    }

    // The trace link opens this order's trace in Zipkin, and the trace is there.
    const traceHref = await page.locator('a[data-link="trace"]').getAttribute('href');
    const traceId = /\/zipkin\/traces\/([0-9a-f]{32})$/.exec(traceHref ?? '')?.[1];
    expect(traceId, `trace link ${traceHref}`).toBeDefined();
    const spans = await eventually(
      async () => ((await zipkinTrace(traceId!)).length > 0 ? zipkinTrace(traceId!) : undefined),
      {
        what: `trace ${traceId} in Zipkin`,
      },
    );
    expect(spans.every((span) => span.traceId === traceId)).toBe(true);
    expect((await fetch(traceHref!)).status).toBe(200);

    // The email link names the email the mail UI holds for this order.
    const emailHref = await page.locator('a[data-link="email"]').getAttribute('href');
    const emailId = /#\/email\/([^/]+)$/.exec(emailHref ?? '')?.[1];
    expect(emailId, `email link ${emailHref}`).toBeDefined();
    const email = (await (await fetch(`http://127.0.0.1:1080/api/email/${emailId}`)).json()) as {
      subject: string;
    };
    expect(email.subject).toContain(orderId);
    await screenshot(page, 'order-journey');
  }, 180_000); // a whole saga on a machine that may be running other stacks

  it('shows the topics with their partitions, watermarks and cleanup policy, and the groups', async () => {
    await page.goto(`${consoleApp.baseUrl}/topics`);
    const ordersTopic = `${pipeline.prefix}${Topics.orders}`;
    const partitions = page.locator(`#topics tr[data-topic="${ordersTopic}"]`);
    await expect(partitions.count()).resolves.toBe(3);
    await expect(page.locator('#topics').textContent()).resolves.toContain('delete');
    await screenshot(page, 'topics');

    await page.goto(
      `${consoleApp.baseUrl}/groups?q=${encodeURIComponent(pipeline.service('payment').group)}`,
    );
    const group = page.locator(`section[data-group="${pipeline.service('payment').group}"]`);
    await expect(group.locator('[data-field="members"]').textContent()).resolves.toBe('1');
    await screenshot(page, 'consumer-groups');
  });
});
