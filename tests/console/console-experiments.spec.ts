import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Admin } from 'kafkajs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPERIMENTS, listLabResources, type Experiment } from '@pipeline/experiments';
import { KAFKA_BROKERS, testKafka, uniqueName } from '../support/kafka';
import { eventually } from '../support/processes';
import {
  launchBrowser,
  screenshot,
  signIn,
  startConsole,
  TOKEN,
  type ConsoleUnderTest,
} from './console.harness';

// The Experiments page against the real broker: every experiment of the library's list, run from
// the page as a user would (they need Kafka only, not the pipeline's services).
describe('console: the Experiments page, in a real browser', () => {
  const kafka = testKafka();
  let consoleApp: ConsoleUnderTest;
  let browser: Browser;
  let page: Page;
  let admin: Admin;

  beforeAll(async () => {
    consoleApp = await startConsole({ prefix: `${uniqueName('e2e.experiments')}.` });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    admin = kafka.admin();
    await admin.connect();
    await signIn(page, consoleApp.baseUrl);
    await page.goto(`${consoleApp.baseUrl}/experiments`);
    // Marks this document: a reload would make a new one without the mark.
    await page.evaluate(() => ((globalThis as unknown as { experimentsMark: number }).experimentsMark = 1));
  });

  afterAll(async () => {
    await Promise.allSettled([browser?.close(), consoleApp?.stop(), admin?.disconnect()]);
  });

  const section = (experiment: Experiment) => page.locator(`#experiment-${experiment.id}`);

  for (const experiment of EXPERIMENTS) {
    it(`${experiment.id}: runs from the page and passes, or says why it cannot run here`, async () => {
      const availability = await experiment.availability({ kafka, brokers: KAFKA_BROKERS });
      await expect(section(experiment).locator('h2').textContent()).resolves.toBe(experiment.title);
      if (!availability.available) {
        const note = section(experiment).locator('[data-field="availability"]');
        await expect(note.textContent()).resolves.toContain(availability.reason);
        await expect(note.textContent()).resolves.toContain(availability.howTo);
        return;
      }
      await section(experiment).getByRole('button', { name: 'Run' }).click();
      // The steps arrive while it runs, without a reload.
      await page.locator(`#experiment-${experiment.id}[data-state="running"] .steps li`).first().waitFor();
      const done = page.locator(
        `#experiment-${experiment.id}:is([data-state="passed"], [data-state="failed"])`,
      );
      await done.waitFor({ timeout: 80_000 });
      const verdict = (await section(experiment).locator(`#verdict-${experiment.id}`).textContent()) ?? '';
      expect(verdict, verdict).toContain('PASS');
      expect(
        await section(experiment).locator('.verdict ~ table.evidence, .verdict ~ figure.evidence').count(),
      ).toBeGreaterThan(0);
      expect(
        await page.evaluate(() => (globalThis as unknown as { experimentsMark?: number }).experimentsMark),
      ).toBe(1);
      const prefix = (await section(experiment).locator('[data-field="prefix"]').textContent())!.trim();
      expect(prefix).toMatch(new RegExp(`^lab\\.${experiment.id}\\.[0-9a-f]{8}\\.$`));
      await expect(listLabResources(admin, prefix)).resolves.toEqual({ topics: [], groups: [] });
      await screenshot(page, 'experiment-result');
    }, 90_000);
  }

  it('refuses Run without a token (403) and a second run while one runs (409); Stop ends it, cleaned up', async () => {
    const [first, second] = [EXPERIMENTS[0]!, EXPERIMENTS.at(-1)!];
    const post = (path: string, token?: string) =>
      fetch(`${consoleApp.baseUrl}${path}`, {
        method: 'POST',
        headers: {
          accept: 'application/json',
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        },
      });
    const anonymous = await post(`/experiments/${first.id}/run`);
    expect(anonymous.status).toBe(403);
    await expect(anonymous.json()).resolves.toMatchObject({
      reason: expect.stringContaining('Sign in') as unknown,
    });

    const started = await post(`/experiments/${first.id}/run`, TOKEN);
    expect(started.status).toBe(200);
    const busy = await post(`/experiments/${second.id}/run`, TOKEN);
    expect(busy.status).toBe(409);
    await expect(busy.json()).resolves.toEqual({
      error: `"${first.id}" is running: stop it or wait for it to end.`,
    });
    // The page says so too, in place.
    await section(second).getByRole('button', { name: 'Run' }).click();
    await expect(
      page.locator(`#action-result-${second.id}`).filter({ hasText: 'Refused (409)' }).textContent(),
    ).resolves.toContain('is running');

    expect((await post('/experiments/stop', TOKEN)).status).toBe(200);
    await page.locator(`#experiment-${first.id}[data-state="failed"]`).waitFor({ timeout: 30_000 });
    await expect(section(first).locator(`#verdict-${first.id}`).textContent()).resolves.toContain('Stopped');
    const prefix = (await section(first).locator('[data-field="prefix"]').textContent())!.trim();
    await eventually(
      async () => ((await listLabResources(admin, prefix)).topics.length === 0 ? true : undefined),
      {
        what: `nothing left under ${prefix}`,
      },
    );
    await expect(listLabResources(admin, prefix)).resolves.toEqual({ topics: [], groups: [] });
    expect((await post('/experiments/stop', TOKEN)).status).toBe(409);
    expect((await post('/experiments/no-such-thing/run', TOKEN)).status).toBe(404);
    expect((await post('/experiments/Bad!Id/run', TOKEN)).status).toBe(400);
  }, 60_000);

  it('a read-only console without the Kafka CLI tools: compaction says why and how; Run is refused (403)', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-kafka-cli-'));
    const bare = await startConsole({
      prefix: `${uniqueName('e2e.experiments.bare')}.`,
      token: undefined,
      env: { PIPELINE_CACHE_DIR: empty },
    });
    try {
      const body = await (await fetch(`${bare.baseUrl}/experiments`)).text();
      expect(body).toMatch(/id="experiment-compaction"[^>]*data-state="unavailable"/);
      expect(body).toContain('The Kafka command-line tools are missing');
      expect(body).toContain('npm run kafka:start');
      const refused = await fetch(`${bare.baseUrl}/experiments/compaction/run`, {
        method: 'POST',
        headers: { accept: 'application/json' },
      });
      expect(refused.status).toBe(403);
      await expect(refused.json()).resolves.toMatchObject({
        reason: expect.stringContaining('Read-only') as unknown,
      });
    } finally {
      await bare.stop();
    }
  }, 60_000);

  // Last: it stops the console.
  it('the console’s shutdown aborts a running experiment and awaits its cleanup', async () => {
    const started = await fetch(`${consoleApp.baseUrl}/experiments/${EXPERIMENTS[0]!.id}/run`, {
      method: 'POST',
      headers: { accept: 'application/json', authorization: `Bearer ${TOKEN}` },
    });
    expect(started.status).toBe(200);
    const { namePrefix } = (await started.json()) as { namePrefix: string };
    await eventually(
      async () => ((await listLabResources(admin, namePrefix)).topics.length > 0 ? true : undefined),
      {
        what: `the run's topic under ${namePrefix}`,
        intervalMs: 50,
      },
    );
    await consoleApp.stop();
    await expect(consoleApp.process.exited).resolves.toBe(0);
    await expect(listLabResources(admin, namePrefix)).resolves.toEqual({ topics: [], groups: [] });
  }, 60_000);
});
