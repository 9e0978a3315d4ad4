import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployService } from '../../scripts/db/migrate.mjs';
import { Supervisor, type SupervisedProcess } from '@pipeline/supervisor';
import { createTestDatabase, type TestDatabase } from '../support/db';
import { KAFKA_BROKERS, testKafka, uniqueName } from '../support/kafka';
import { eventually, freePort, REPO_ROOT } from '../support/processes';
import { deletePrefixedTopics } from '../support/service-harness';
import { caughtUp, testProducer } from '../support/events';
import { launchBrowser, screenshot, signIn, startConsole, type ConsoleUnderTest } from './console.harness';

const PARTITIONS = 6;

interface GroupOnPage {
  readonly state: string;
  readonly members: readonly {
    readonly id: string;
    readonly clientId: string;
    readonly orders: readonly number[];
  }[];
}

// Two payment-service instances in one group, run by the stack's supervisor (tools/stack), with
// the console's groups page watching: a join moves partitions, a kill -9 is restarted and the
// group settles again.
describe('console: consumer groups as instances join, die and come back', () => {
  const kafka = testKafka();
  const prefix = `${uniqueName('e2e.console-groups')}.`;
  // The pipeline's own name for payment-service's group under this test's prefix, so the page
  // counts it among the pipeline's groups.
  const group = `${prefix}payment-service`;
  // A group a tool left behind: offsets, no members; its name sorts before the pipeline's.
  const leftover = `aaa-leftover-${randomBytes(4).toString('hex')}`;
  const supervisor = new Supervisor({ initialBackoffMs: 200, maxBackoffMs: 1_000, log: () => undefined });
  const logDir = mkdtempSync(join(tmpdir(), 'console-groups-'));
  let database: TestDatabase;
  let consoleApp: ConsoleUnderTest;
  let browser: Browser;
  let page: Page;
  const urls: string[] = [];

  async function startPayment(instance: number): Promise<SupervisedProcess> {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    urls.push(url);
    const supervised = supervisor.start({
      name: `payment-${instance}`,
      command: process.execPath,
      args: [join(REPO_ROOT, 'dist/apps/payment-service/src/main.js')],
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        PORT: String(port),
        DATABASE_URL: database.url,
        KAFKA_BROKERS: KAFKA_BROKERS.join(','),
        KAFKA_TOPIC_PREFIX: prefix,
        KAFKA_TOPIC_PARTITIONS: String(PARTITIONS),
        KAFKA_CONSUMER_GROUP: group,
        KAFKA_CLIENT_ID: `payment-service-${instance}`,
        OTEL_TRACES_EXPORTER: 'none',
        LOG_FORMAT: 'json',
      },
      logFile: join(logDir, `payment-${instance}.log`),
    });
    await eventually(async () => (await fetch(`${url}/health/ready`)).ok || undefined, {
      timeoutMs: 60_000,
      what: `payment-${instance} ready`,
    });
    return supervised;
  }

  /** The group as the page shows it now (the page refreshes itself every 2 s). */
  async function groupOnPage(): Promise<GroupOnPage | undefined> {
    const section = page.locator(`section[data-group="${group}"]`);
    if ((await section.count()) === 0) return undefined;
    const items = await section.locator('li[data-member]').all();
    const members = await Promise.all(
      items.map(async (item) => ({
        id: (await item.getAttribute('data-member')) ?? '',
        clientId: (await item.locator('code').first().textContent()) ?? '',
        text: (await item.textContent()) ?? '',
      })),
    );
    return {
      state: (await section.locator('[data-field="state"]').textContent()) ?? '',
      members: members.map(({ id, clientId, text }) => ({
        id,
        clientId,
        orders: (new RegExp(`${prefix.replace(/\./g, '\\.')}orders \\[([0-9, ]*)\\]`).exec(text)?.[1] ?? '')
          .split(',')
          .filter((p) => p.trim() !== '')
          .map(Number),
      })),
    };
  }

  /** Waits until the page shows a stable group of `count` members sharing every orders partition. */
  function settled(count: number, check: (group: GroupOnPage) => boolean = () => true): Promise<GroupOnPage> {
    return eventually(
      async () => {
        const shown = await groupOnPage();
        if (shown === undefined || shown.state !== 'Stable' || shown.members.length !== count)
          return undefined;
        const partitions = shown.members.flatMap((m) => m.orders).sort((a, b) => a - b);
        if (partitions.join() !== [...Array(PARTITIONS).keys()].join()) return undefined;
        return check(shown) ? shown : undefined;
      },
      {
        timeoutMs: 90_000,
        intervalMs: 500,
        what: `group ${group} stable with ${count} member(s) on the page`,
      },
    );
  }

  beforeAll(async () => {
    database = await createTestDatabase('e2e_console_groups');
    await deployService('payment', { url: database.url, log: () => undefined });
    await startPayment(1);
    consoleApp = await startConsole({ prefix, services: { payment: urls } });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  });

  afterAll(async () => {
    await Promise.allSettled([browser?.close(), consoleApp?.stop(), supervisor.stop()]);
    await database?.drop();
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteGroups([leftover]).catch(() => undefined);
    await admin.disconnect();
    await deletePrefixedTopics(kafka, prefix);
  });

  it('shows the members and their partitions change when a second instance joins', async () => {
    await page.goto(`${consoleApp.baseUrl}/groups?filter=${encodeURIComponent(group)}`);
    const alone = await settled(1);
    expect(alone.members[0]).toMatchObject({ clientId: 'payment-service-1', orders: [0, 1, 2, 3, 4, 5] });

    await startPayment(2);
    const shared = await settled(2);
    expect(shared.members.map((m) => m.clientId).sort()).toEqual(['payment-service-1', 'payment-service-2']);
    for (const member of shared.members) expect(member.orders.length).toBeGreaterThan(0);
    await screenshot(page, 'consumer-groups-two-instances');
  });

  it('lists the pipeline’s groups first and folds a leftover empty group, with a filter', async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.setOffsets({
        groupId: leftover,
        topic: `${prefix}orders`,
        partitions: [{ partition: 0, offset: '0' }],
      });
    } finally {
      await admin.disconnect();
    }
    const other = page.locator('details#other-groups');
    const leftoverSection = other.locator(`section.group[data-group="${leftover}"]`);
    const pipelineSection = page.locator(
      `section[data-kind="pipeline"] section.group[data-group="${group}"]`,
    );
    await page.goto(`${consoleApp.baseUrl}/groups`);
    await eventually(
      async () => {
        await page.reload();
        return (await leftoverSection.count()) === 1 && (await pipelineSection.count()) === 1
          ? true
          : undefined;
      },
      { what: `${leftover} folded and ${group} among the pipeline's groups` },
    );
    // Folded: closed by default, with a count; the leftover is marked empty, with the way to delete it.
    expect((await other.getAttribute('open')) !== null).toBe(false);
    expect(await leftoverSection.isVisible()).toBe(false);
    expect(Number(await other.locator('[data-field="other-count"]').textContent())).toBeGreaterThanOrEqual(1);
    expect(await leftoverSection.getAttribute('data-empty')).toBe('true');
    expect(await leftoverSection.locator('[data-field="empty"]').textContent()).toMatch(
      new RegExp(`empty.*npm run kafka:groups -- --delete --group ${leftover.replace(/\./g, '\\.')}`, 's'),
    );
    expect(await pipelineSection.getAttribute('data-empty')).toBeNull();
    // In the page's order the pipeline's group comes before the leftover, although it sorts after it.
    const order = await Promise.all(
      (await page.locator('section.group[data-group]').all()).map((s) => s.getAttribute('data-group')),
    );
    expect(order.indexOf(group)).toBeGreaterThanOrEqual(0);
    expect(order.indexOf(group)).toBeLessThan(order.indexOf(leftover));
    expect([group, leftover].sort()[0]).toBe(leftover);
    await screenshot(page, 'consumer-groups-pipeline-first');

    // The filter without JavaScript: the server keeps the matching group only, unfolded.
    await page.goto(`${consoleApp.baseUrl}/groups?filter=${encodeURIComponent(leftover)}`);
    expect(await page.locator('section.group[data-group]').count()).toBe(1);
    expect((await other.getAttribute('open')) !== null).toBe(true);
    expect(await leftoverSection.isVisible()).toBe(true);
    expect(await page.locator('section[data-kind="pipeline"]').textContent()).toContain(
      'None of the five services’ groups',
    );

    // And live, as it is typed: the page narrows itself and unfolds what matches.
    await page.goto(`${consoleApp.baseUrl}/groups`);
    await page.locator('#group-filter').fill(leftover);
    await eventually(
      async () =>
        (await leftoverSection.isVisible()) && !(await pipelineSection.isVisible()) ? true : undefined,
      { what: 'the live filter showing the leftover only' },
    );
  });

  it('after a kill -9 the supervisor restarts the instance and the page shows the group settle again', async () => {
    const victim = supervisor.processes().find((p) => p.name === 'payment-2')!;
    const before = (await settled(2)).members.find((m) => m.clientId === 'payment-service-2')!;
    const oldPid = victim.pid()!;
    const respawned = once(supervisor, 'spawn');
    process.kill(oldPid, 'SIGKILL');
    const [, newPid] = (await respawned) as [SupervisedProcess, number];
    expect(newPid).not.toBe(oldPid);
    expect(victim.restarts).toBe(1);

    // The dead member leaves when its session times out; the restarted one has joined by then.
    const after = await settled(2, (shown) => shown.members.every((m) => m.id !== before.id));
    expect(after.members.map((m) => m.clientId).sort()).toEqual(['payment-service-1', 'payment-service-2']);
    await screenshot(page, 'consumer-groups-after-kill');
    // The dead member's 30 s session timeout, a rejoin and the page's 2 s refresh, on a loaded machine.
  }, 120_000);

  it('resets the group to the earliest offsets after a confirmation, and only once it has no members', async () => {
    const ordersTopic = `${prefix}orders`;
    const producer = testProducer(kafka);
    await producer.connect();
    await producer.send({
      topic: ordersTopic,
      acks: -1,
      messages: [1, 2, 3].map((n) => ({ key: `poison-${n}`, value: Buffer.from('not an event') })),
    });
    await producer.disconnect();
    const admin = kafka.admin();
    await admin.connect();
    try {
      await caughtUp(admin, group, [ordersTopic]);
      await signIn(page, consoleApp.baseUrl);
      const reset = async () => {
        await page.goto(`${consoleApp.baseUrl}/groups/${encodeURIComponent(group)}/reset`);
        // The page says how far back the inbox protects a reread: longer than the log holds a record.
        await expect(page.locator('[data-inbox-protects]').textContent()).resolves.toMatch(
          /inbox rows for 8 days 5 minutes by default\s.*retention\.ms\s+7 days \+ segment\.ms\s+1 day/s,
        );
        await page.getByLabel(/will re-read its topics/).check();
        await page.getByRole('button', { name: 'Reset offsets to earliest' }).click();
      };

      // Two live members: Kafka would refuse, and the console says so before trying.
      await reset();
      await expect(page.getByRole('alert').textContent()).resolves.toMatch(
        /2 active members: Kafka resets the offsets of an empty group only/,
      );

      await supervisor.stop();
      await eventually(
        async () => ((await admin.describeGroups([group])).groups[0]?.state === 'Empty' ? true : undefined),
        {
          what: `group ${group} empty`,
        },
      );
      await reset();
      await expect(page.getByRole('status').textContent()).resolves.toContain(
        `Reset ${group} to the earliest offsets`,
      );
      expect(await page.getByRole('heading', { name: 'Before' }).count()).toBe(1);
      expect(await page.getByRole('heading', { name: 'After' }).count()).toBe(1);
      await screenshot(page, 'consumer-group-reset');

      const lows = new Map((await admin.fetchTopicOffsets(ordersTopic)).map((p) => [p.partition, p.low]));
      const [committed] = await admin.fetchOffsets({ groupId: group, topics: [ordersTopic] });
      expect(committed!.partitions).toHaveLength(PARTITIONS);
      for (const { partition, offset } of committed!.partitions) expect(offset).toBe(lows.get(partition));
    } finally {
      await admin.disconnect();
    }
  });
});
