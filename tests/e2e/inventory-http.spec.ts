import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventHeaders, Topics, type StockChangedPayload, headerValue } from '@pipeline/contracts';
import { readEvents, testKafka, uniqueName } from '../support/kafka';
import { eventually } from '../support/processes';
import { deletePrefixedTopics, startService, type ServiceUnderTest } from '../support/service-harness';

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
  let service: ServiceUnderTest;
  let baseUrl: string;

  beforeAll(async () => {
    service = await startService('inventory', { prefix, label: 'inventory_http' });
    ({ baseUrl } = service);
  });

  afterAll(async () => {
    await service?.stop();
    await deletePrefixedTopics(kafka, prefix);
  });

  const put = (target: string, body: unknown) =>
    fetch(`${baseUrl}/inventory/${target}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const changelog = async (key: string) =>
    (await readEvents(kafka, prefix + Topics.inventoryStock)).filter((r) => r.key?.toString() === key);

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
