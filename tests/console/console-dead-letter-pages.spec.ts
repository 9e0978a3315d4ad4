import type { Admin, Message } from 'kafkajs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadLetterTopic, DeadLetterHeaders, EventHeaders, ReplayHeaders, Topics } from '@pipeline/contracts';
import { createTestTopics, readTopic, testKafka, uniqueName } from '../support/kafka';
import { launchBrowser, signIn, startConsole, TOKEN, type ConsoleUnderTest } from './console.harness';
import { testProducer } from '../support/events';

const PAGE_SIZE = 8;
const PAGE_BYTES = 1024 * 1024;
const SMALL = 40;
const BIG = 5;
const BIG_BYTES = 300 * 1024;
/** Timestamps one second apart from here: the newest records are the last produced. */
const T0 = Date.parse('2026-12-01T10:00:00.000Z');

// Dead letters written straight to a console's dead-letter topics (no service needed): more than
// a page of them, over two partitions, and a few of 300 KiB each. The console reads one bounded
// page per view, newest first, and "Load more" continues where the page ended.
describe('console: dead letters read a page at a time', () => {
  const kafka = testKafka();
  const prefix = `${uniqueName('e2e.console-dlt-pages')}.`;
  const paymentTopic = prefix + deadLetterTopic('payment');
  const emailTopic = prefix + deadLetterTopic('email');
  const ordersTopic = prefix + Topics.orders;
  let admin: Admin;
  let deleteTopics: () => Promise<void>;
  let consoleApp: ConsoleUnderTest;
  let browser: Browser;
  let page: Page;

  const deadLetter = (id: string, n: number, value: Buffer): Message => ({
    key: `key-${n % 3}`,
    value,
    timestamp: String(T0 + n * 1_000),
    headers: {
      [EventHeaders.id]: id,
      [EventHeaders.type]: 'order.placed',
      [DeadLetterHeaders.originalTopic]: ordersTopic,
      [DeadLetterHeaders.originalPartition]: '0',
      [DeadLetterHeaders.originalOffset]: String(n),
      [DeadLetterHeaders.error]: `failure ${n}`,
      [DeadLetterHeaders.errorClass]: 'fatal',
      [DeadLetterHeaders.attempts]: '1',
      [DeadLetterHeaders.failedAt]: new Date(T0 + n * 1_000).toISOString(),
      [DeadLetterHeaders.consumerGroup]: 'payment-service',
    },
  });

  beforeAll(async () => {
    ({ admin, deleteTopics } = await createTestTopics(kafka, [
      { name: paymentTopic, partitions: 2 },
      { name: emailTopic, configEntries: [{ name: 'max.message.bytes', value: String(2 * 1024 * 1024) }] },
      { name: ordersTopic },
    ]));
    const producer = testProducer(kafka);
    await producer.connect();
    await producer.send({
      topic: paymentTopic,
      acks: -1,
      messages: Array.from({ length: SMALL }, (_, n) => ({
        ...deadLetter(`small-${n}`, n, Buffer.from(JSON.stringify({ n }))),
        partition: n % 2,
      })),
    });
    for (let n = 0; n < BIG; n++)
      await producer.send({
        topic: emailTopic,
        acks: -1,
        messages: [deadLetter(`big-${n}`, n, Buffer.alloc(BIG_BYTES, 0x78))],
      });
    await producer.disconnect();
    consoleApp = await startConsole({
      prefix,
      env: {
        CONSOLE_DEAD_LETTER_PAGE_SIZE: String(PAGE_SIZE),
        CONSOLE_DEAD_LETTER_PAGE_BYTES: String(PAGE_BYTES),
      },
    });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await signIn(page, consoleApp.baseUrl);
  });

  afterAll(async () => {
    await Promise.allSettled([browser?.close(), consoleApp?.stop()]);
    await deleteTopics?.();
  });

  const shownIds = () =>
    page
      .locator('#dead-letters tbody tr')
      .evaluateAll((rows: { getAttribute(name: string): string | null }[]) =>
        rows.map((row) => row.getAttribute('data-event-id')),
      );
  const recordsRead = async () => Number(await page.locator('#dead-letters').getAttribute('data-read'));
  const loadMore = () => page.getByRole('link', { name: /Load more/ });

  /** Every page of a service's dead letters, following "Load more" until there is none. */
  async function walkPages(service: string): Promise<{ ids: string[][]; read: number[] }> {
    await page.goto(`${consoleApp.baseUrl}/dead-letters/${service}`);
    const pages = { ids: [] as string[][], read: [] as number[] };
    for (;;) {
      pages.ids.push((await shownIds()).map(String));
      pages.read.push(await recordsRead());
      if ((await loadMore().count()) === 0) return pages;
      await loadMore().click();
      await page.waitForLoadState();
    }
  }

  const newestFirst = (kind: string, from: number, to: number) =>
    Array.from({ length: from - to + 1 }, (_, i) => `${kind}-${from - i}`);

  it('shows the newest page first, and "Load more" continues without overlap or gap', async () => {
    const { ids, read } = await walkPages('payment');
    expect(ids[0]).toEqual(newestFirst('small', SMALL - 1, SMALL - PAGE_SIZE));
    expect(ids[1]).toEqual(newestFirst('small', SMALL - PAGE_SIZE - 1, SMALL - 2 * PAGE_SIZE));
    expect(ids).toHaveLength(SMALL / PAGE_SIZE);
    expect(ids.flat()).toEqual(newestFirst('small', SMALL - 1, 0));
    // Each view reads at most a page per partition, never the whole topic.
    expect(read[0]).toBe(2 * PAGE_SIZE);
    expect(Math.max(...read)).toBeLessThanOrEqual(2 * PAGE_SIZE);
    await expect(page.locator('[data-field="total"]').textContent()).resolves.toBe(String(SMALL));
  });

  it('cuts a page at CONSOLE_DEAD_LETTER_PAGE_BYTES, and still shows a record larger than that', async () => {
    const { ids } = await walkPages('email');
    // 3 x 300 KiB fit in 1 MiB, a 4th does not.
    expect(ids).toEqual([newestFirst('big', 4, 2), newestFirst('big', 1, 0)]);
  });

  it('leaves no consumer group behind', async () => {
    await walkPages('payment');
    const groups = (await admin.listGroups()).groups.map((group) => group.groupId);
    expect(groups.filter((id) => id.startsWith(consoleApp.group))).toEqual([]);
  });

  it('refuses a malformed cursor with 400, naming it', async () => {
    const answer = await fetch(`${consoleApp.baseUrl}/dead-letters/payment?before=zero`, {
      headers: { accept: 'application/json' },
    });
    expect(answer.status).toBe(400);
    const body = (await answer.json()) as { error?: string };
    expect(body.error).toMatch(/^before: /);
  });

  it('redrives all shown: the page on screen, not the topic; a script without a page redrives the topic', async () => {
    await page.goto(`${consoleApp.baseUrl}/dead-letters/payment`);
    await loadMore().click();
    await page.waitForLoadState();
    const second = (await shownIds()).map(String);
    await page.getByRole('button', { name: `Redrive all ${PAGE_SIZE} shown` }).click();
    await expect(page.locator('#redrive-result').innerText()).resolves.toMatch(
      new RegExp(`Replayed ${PAGE_SIZE} records`),
    );
    const replayedIds = async () =>
      (await readTopic(kafka, ordersTopic)).map((record) => String(record.headers?.[EventHeaders.id]));
    expect((await replayedIds()).sort()).toEqual([...second].sort());

    const scripted = await fetch(`${consoleApp.baseUrl}/dead-letters/payment/redrive`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        accept: 'application/json',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'scope=all',
    });
    expect(scripted.status).toBe(200);
    await expect(scripted.json()).resolves.toMatchObject({ replayed: SMALL, skipped: [] });
    const replayed = await readTopic(kafka, ordersTopic);
    expect(replayed).toHaveLength(PAGE_SIZE + SMALL);
    expect(new Set(replayed.map((record) => String(record.headers?.[ReplayHeaders.replayedFrom]))).size).toBe(
      SMALL,
    );
  });
});
