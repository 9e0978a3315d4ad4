import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventHeaders, Topics, type StockChangedPayload } from '@pipeline/contracts';
import { headerValue } from '@pipeline/messaging';
import { createTestDatabase, type TestDatabase } from '../support/db';
import { KAFKA_BROKERS, readTopic, testKafka, uniqueName } from '../support/kafka';
import { eventually, freePort, REPO_ROOT, type RunningProcess, startNode } from '../support/processes';

interface ErrorBody {
  readonly statusCode: number;
  readonly message: string;
  readonly issues?: readonly { readonly field: string; readonly message: string }[];
}

// GET / PUT / DELETE /inventory/:sku against a real inventory-service: every write lands on the
// inventory.stock changelog (key = SKU), a delete as a tombstone.
describe('inventory-service HTTP API', () => {
  const kafka = testKafka();
  const prefix = `${uniqueName('e2e')}.`;
  const sku = `T-${randomUUID().slice(0, 8).toUpperCase()}`;
  let database: TestDatabase;
  let service: RunningProcess;
  let admin: Admin;
  let baseUrl: string;

  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
    database = await createTestDatabase('e2e_inventory_http');
    execFileSync(
      process.execPath,
      ['scripts/db/migrate.mjs', 'deploy', '--service', 'inventory', '--url', database.url],
      {
        cwd: REPO_ROOT,
        stdio: 'pipe',
      },
    );
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    service = startNode(join(REPO_ROOT, 'dist/apps/inventory-service/src/main.js'), {
      PORT: String(port),
      DATABASE_URL: database.url,
      KAFKA_BROKERS: KAFKA_BROKERS.join(','),
      KAFKA_TOPIC_PREFIX: prefix,
      KAFKA_TOPIC_PARTITIONS: '3',
      KAFKA_CONSUMER_GROUP: uniqueName('e2e.inventory-http'),
      LOG_FORMAT: 'json',
    });
    await eventually(async () => ((await fetch(`${baseUrl}/health/ready`)).ok ? true : undefined), {
      timeoutMs: 60_000,
      what: 'inventory-service ready',
    }).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${service.output().slice(-3000)}`);
    });
  });

  afterAll(async () => {
    service?.child.kill('SIGTERM');
    await service?.exited;
    if (!admin) return;
    const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics });
    await admin.disconnect();
    await database?.drop();
  });

  const put = (target: string, body: unknown) =>
    fetch(`${baseUrl}/inventory/${target}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const changelog = async (key: string) =>
    (await readTopic(kafka, prefix + Topics.inventoryStock)).filter((r) => r.key?.toString() === key);

  it('answers 404 for an unknown SKU on GET and DELETE', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${baseUrl}/inventory/NOPE-${sku}`, { method });
      expect(response.status).toBe(404);
      expect(((await response.json()) as ErrorBody).message).toContain(`NOPE-${sku}`);
    }
  });

  it('PUT creates (201) then restocks (200) a SKU, each change on inventory.stock', async () => {
    const created = await put(sku, { available: 5 });
    expect(created.status).toBe(201);
    const first = (await created.json()) as StockChangedPayload;
    expect(first).toEqual({
      sku,
      available: 5,
      reserved: 0,
      updatedAt: expect.stringMatching(/Z$/) as unknown,
    });

    const updated = await put(sku, { available: 8 });
    expect(updated.status).toBe(200);
    expect(await updated.json()).toMatchObject({ sku, available: 8, reserved: 0 });
    const got = await fetch(`${baseUrl}/inventory/${sku}`);
    expect(got.status).toBe(200);
    expect(await got.json()).toMatchObject({ sku, available: 8, reserved: 0 });

    const records = await eventually(async () => {
      const found = await changelog(sku);
      return found.length >= 2 ? found : undefined;
    });
    expect(records.map((r) => (JSON.parse(r.value!.toString()) as StockChangedPayload).available)).toEqual([
      5, 8,
    ]);
    expect(JSON.parse(records[0]!.value!.toString())).toEqual(first);
    const header = (name: string) => headerValue(records[1]!.headers, name);
    expect(header(EventHeaders.type)).toBe('stock.changed');
    expect(header(EventHeaders.source)).toBe('inventory-service');
    expect(header(EventHeaders.causationId)).toBeUndefined();
  });

  it.each([
    ['a negative count', { available: -1 }],
    ['a fraction', { available: 1.5 }],
    ['a string', { available: '3' }],
    ['a missing field', { reserved: 3 }],
    ['a count beyond a Postgres integer', { available: 2_147_483_648 }],
  ])('answers 400 naming `available` for %s', async (_what, body) => {
    const response = await put(sku, body);
    expect(response.status).toBe(400);
    const error = (await response.json()) as ErrorBody;
    expect(error.issues?.map((issue) => issue.field)).toEqual(['available']);
    expect(error.message).toContain('available');
  });

  it('DELETE answers 204, removes the SKU and publishes a tombstone', async () => {
    const target = `${sku}-DEL`;
    expect((await put(target, { available: 3 })).status).toBe(201);
    const deleted = await fetch(`${baseUrl}/inventory/${target}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    expect((await fetch(`${baseUrl}/inventory/${target}`)).status).toBe(404);

    const records = await eventually(async () => {
      const found = await changelog(target);
      return found.length >= 2 ? found : undefined;
    });
    expect(records).toHaveLength(2);
    expect(records[1]!.value).toBeNull();
    expect(headerValue(records[1]!.headers, EventHeaders.type)).toBe('stock.changed');
    expect((await fetch(`${baseUrl}/inventory/${target}`, { method: 'DELETE' })).status).toBe(404);
  });
});
