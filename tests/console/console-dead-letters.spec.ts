import { randomUUID } from 'node:crypto';
import type { Admin } from 'kafkajs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailMessageIdFor, OrderConfirmedPayloadSchema, Topics } from '@pipeline/contracts';
import { createTestDatabase, type TestDatabase } from '../support/db';
import { caughtUp, produceEvent, testProducer } from '../support/events';
import { testKafka, uniqueName } from '../support/kafka';
import { eventually, freePort } from '../support/processes';
import { scrape, sum } from '../support/prometheus';
import {
  deletePrefixedTopics,
  emailsTo,
  SMTP_URL,
  startService,
  type ServiceUnderTest,
} from '../support/service-harness';
import { launchBrowser, screenshot, signIn, startConsole, type ConsoleUnderTest } from './console.harness';

// payment-service and email-service on topics of their own; email-service starts with its SMTP
// server unreachable, so a confirmation exhausts its retries and is dead-lettered: a record that
// can succeed later, once the server is back.
describe('console: dead letters, and redriving them from the UI', () => {
  const kafka = testKafka();
  const prefix = `${uniqueName('e2e.console-dlt')}.`;
  const emailGroup = uniqueName('console_dlt_email.group');
  let admin: Admin;
  let payment: ServiceUnderTest;
  let email: ServiceUnderTest | undefined;
  let emailDatabase: TestDatabase;
  let consoleApp: ConsoleUnderTest;
  let browser: Browser;
  let page: Page;

  const startEmail = async (smtpUrl: string) => {
    email = await startService('email', {
      prefix,
      group: emailGroup,
      database: emailDatabase,
      env: {
        SMTP_URL: smtpUrl,
        CONSUMER_RETRY_INITIAL_BACKOFF_MS: '100',
        CONSUMER_RETRY_MAX_BACKOFF_MS: '400',
        // An SMTP server that never answers: the outage window is cut short to see the dead letter.
        CONSUMER_RETRY_OUTAGE_WINDOW_MS: '1500',
      },
    });
    return email;
  };

  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
    emailDatabase = await createTestDatabase('e2e_console_dlt_email');
    const [paymentService] = await Promise.all([
      startService('payment', { prefix, label: 'console_dlt_payment' }),
      startEmail(`smtp://127.0.0.1:${await freePort()}`),
    ]);
    payment = paymentService;
    consoleApp = await startConsole({
      prefix,
      services: { payment: [payment.baseUrl], email: [email!.baseUrl] },
    });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await signIn(page, consoleApp.baseUrl);
  });

  afterAll(async () => {
    await Promise.allSettled([browser?.close(), consoleApp?.stop(), payment?.stop(), email?.stop()]);
    await emailDatabase?.drop();
    await admin?.disconnect();
    await deletePrefixedTopics(kafka, prefix);
  });

  /** The dead-letter page of `service`, reloaded until `row` is on it. */
  async function deadLetterRow(service: 'payment' | 'email', selector: string) {
    return eventually(
      async () => {
        await page.goto(`${consoleApp.baseUrl}/dead-letters/${service}`);
        const row = page.locator(`#dead-letters tr${selector}`);
        return (await row.count()) === 1 ? row : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 1_000, what: `a dead letter ${selector} on ${service}'s page` },
    );
  }

  it("shows a poison record on the service's dead-letter page with its diagnostic headers", async () => {
    const producer = testProducer(kafka);
    await producer.connect();
    const [sent] = await producer.send({
      topic: prefix + Topics.orders,
      acks: -1,
      messages: [{ key: uniqueName('poison'), value: Buffer.from([0xde, 0xad, 0xbe, 0xef]) }],
    });
    await producer.disconnect();
    const original = `${prefix}${Topics.orders}/${sent!.partition}/${sent!.baseOffset}`;

    const row = await deadLetterRow('payment', `[data-original="${original}"]`);
    await expect(row.locator('[data-field="error-class"]').textContent()).resolves.toBe('fatal');
    await expect(row.locator('[data-field="attempts"]').textContent()).resolves.toBe('1');
    await expect(row.locator('[data-field="group"]').textContent()).resolves.toBe(payment.group);
    await expect(row.locator('[data-field="error"]').textContent()).resolves.toMatch(
      /missing required headers|not JSON/,
    );
    expect(Date.parse((await row.locator('[data-field="failed-at"]').textContent()) ?? '')).not.toBeNaN();
    await row.getByText('payload').click();
    await expect(row.locator('pre').textContent()).resolves.toContain('deadbeef');
    await screenshot(page, 'dead-letters');
  });

  it('redrives a dead letter that can now succeed: processed once, and once only when redriven again', async () => {
    const recipient = `${uniqueName('redrive')}@example.test`;
    const order = OrderConfirmedPayloadSchema.parse({
      orderId: randomUUID(),
      customerId: 'c-console-redrive',
      customerEmail: recipient,
      items: [{ sku: 'SKU-APPLE', quantity: 1, unitPrice: '4.20' }],
      total: '4.20',
      currency: 'EUR',
      confirmedAt: new Date().toISOString(),
    });
    const event = await produceEvent(kafka, {
      topic: prefix + Topics.orders,
      key: order.orderId,
      type: 'order.confirmed',
      payload: order,
      correlationId: order.orderId,
    });
    const selector = `[data-event-id="${event.id}"]`;
    const row = await deadLetterRow('email', selector);
    await expect(row.locator('[data-field="error-class"]').textContent()).resolves.toBe('retriable');
    // Its 3 attempts, and as many more as its partition made while it waited out the SMTP outage
    // (CONSUMER_RETRY_OUTAGE_WINDOW_MS): how many depends on how fast each retry comes round.
    expect(Number(await row.locator('[data-field="attempts"]').textContent())).toBeGreaterThanOrEqual(3);

    // The SMTP server is back: email-service restarts on it, same database and group.
    await email!.stop();
    const emailService = await startEmail(SMTP_URL);
    const deduplicated = async () =>
      sum(await scrape(emailService.baseUrl), 'pipeline_events_deduplicated_total');
    const ordersTopic = [prefix + Topics.orders];

    const redrive = async () => {
      const fresh = await deadLetterRow('email', selector);
      await fresh.getByRole('checkbox').check();
      await page.getByRole('button', { name: 'Redrive selected' }).click();
      await expect(page.locator('#redrive-result').innerText()).resolves.toMatch(/Replayed 1 record \(1 to/);
    };

    await redrive();
    const sent = await eventually(
      async () => {
        const emails = await emailsTo(recipient);
        return emails.length > 0 ? emails : undefined;
      },
      { timeoutMs: 60_000, what: `the redriven email to ${recipient}` },
    );
    await caughtUp(admin, emailGroup, ordersTopic);
    expect(sent.map((e) => e.headers['message-id'])).toEqual([emailMessageIdFor(event.id)]);
    await screenshot(page, 'dead-letters-redriven');

    const before = await deduplicated();
    await redrive();
    await eventually(async () => ((await deduplicated()) > before ? true : undefined), {
      what: 'email-service dropping the second redrive as a duplicate',
    });
    await caughtUp(admin, emailGroup, ordersTopic);
    expect(await emailsTo(recipient)).toHaveLength(1);
    // The dead-letter topic keeps the record (it is a log): a redrive copies, never moves.
    const depth = await eventually(
      async () => {
        const value = sum(await scrape(emailService.baseUrl), 'pipeline_dead_letter_topic_records');
        return value > 0 ? value : undefined;
      },
      { what: 'the dead-letter depth gauge' },
    );
    expect(depth).toBeGreaterThanOrEqual(1);
  });
});
