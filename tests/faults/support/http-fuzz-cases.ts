// Bad HTTP input, case by case. `reject`: must answer 4xx with a message; `survive`: strange but
// possibly valid (unicode edge cases), must answer without a 5xx.
import { randomUUID } from 'node:crypto';
import type { RawRequest } from './raw-http';

export interface FuzzCase {
  readonly name: string;
  readonly service: 'order' | 'inventory' | 'analytics';
  readonly request: RawRequest;
  readonly expect: 'reject' | 'survive';
}

const json: readonly (readonly [string, string])[] = [['Content-Type', 'application/json']];
const item = { sku: 'SKU-APPLE', quantity: 1, unitPrice: '1.00' };
// A recipient per request: a bad request that is accepted after all is audited like any order.
const order = (overrides: Record<string, unknown>) =>
  JSON.stringify({
    customerId: 'fuzz-c1',
    customerEmail: `fuzz-${randomUUID()}@example.test`,
    items: [item],
    ...overrides,
  });
const post = (
  name: string,
  body: string | Buffer,
  expect: FuzzCase['expect'] = 'reject',
  headers = json,
): FuzzCase => ({
  name,
  service: 'order',
  request: { method: 'POST', path: '/orders', headers, body },
  expect,
});
const get = (
  name: string,
  service: FuzzCase['service'],
  path: string,
  expect: FuzzCase['expect'] = 'reject',
): FuzzCase => ({ name, service, request: { method: 'GET', path }, expect });
const putStock = (name: string, body: string): FuzzCase => ({
  name,
  service: 'inventory',
  request: { method: 'PUT', path: '/inventory/SKU-FUZZ', headers: json, body },
  expect: 'reject',
});
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

export const HTTP_FUZZ_CASES: readonly FuzzCase[] = [
  post('malformed JSON', '{"customerId": "c1", '),
  post('trailing garbage after JSON', `${order({})} garbage`),
  post('JSON null', 'null'),
  post('JSON array', '[]'),
  post('JSON string', '"order"'),
  post('JSON number', '42'),
  post('empty body', ''),
  post('empty object', '{}'),
  post('customerId a number', order({ customerId: 123 })),
  post('items a string', order({ items: 'SKU-APPLE' })),
  post('items empty', order({ items: [] })),
  post('quantity a string', order({ items: [{ ...item, quantity: 'two' }] })),
  post('quantity negative', order({ items: [{ ...item, quantity: -1 }] })),
  post('quantity fractional', order({ items: [{ ...item, quantity: 1.5 }] })),
  post('quantity beyond int32', order({ items: [{ ...item, quantity: 2 ** 40 }] })),
  post('unitPrice NaN', order({ items: [{ ...item, unitPrice: 'NaN' }] })),
  post(
    'unitPrice 1e400',
    '{"customerId":"c","customerEmail":"a@b.test","items":[{"sku":"S","quantity":1,"unitPrice":1e400}]}',
  ),
  post('unitPrice three places', order({ items: [{ ...item, unitPrice: '1.005' }] })),
  post('currency lower case', order({ currency: 'eur' })),
  post('unknown field', order({ admin: true })),
  post(
    '__proto__ field',
    '{"__proto__":{"admin":true},"customerId":"c","customerEmail":"a@b.test","items":[]}',
  ),
  post('email without @', order({ customerEmail: 'not-an-email' })),
  post('101 items', order({ items: Array.from({ length: 101 }, () => item) })),
  post('huge body (1 MB)', order({ customerId: 'x'.repeat(1_000_000) })),
  post('deeply nested arrays (30k)', nested(30_000)),
  post('deeply nested objects (5k)', `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`),
  post('invalid UTF-8 bytes', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])),
  post('NUL in customerId', order({ customerId: 'a\u0000b' })),
  post(
    'lone surrogate in customerId',
    '{"customerId":"\\ud800","customerEmail":"a@b.test","items":[{"sku":"SKU-APPLE","quantity":1,"unitPrice":"1.00"}]}',
  ),
  post('right-to-left override in customerId', order({ customerId: 'abc\u202Edef' }), 'survive'),
  post('emoji and combining marks in customerId', order({ customerId: 'c👩‍👩‍👧e\u0301' }), 'survive'),
  post('zero-width space in sku', order({ items: [{ ...item, sku: 'SKU\u200B-APPLE' }] }), 'survive'),
  post('4-byte unicode email', order({ customerEmail: '𝓊@𝓍.test' }), 'survive'),
  post('text/plain content type', order({}), 'reject', [['Content-Type', 'text/plain']]),
  post('no content type', order({}), 'reject', []),
  post('content type lies (form)', order({}), 'reject', [
    ['Content-Type', 'application/x-www-form-urlencoded'],
  ]),
  post('duplicated Idempotency-Key', order({}), 'reject', [
    ...json,
    ['Idempotency-Key', 'k-1'],
    ['Idempotency-Key', 'k-2'],
  ]),
  post('Idempotency-Key of 300 chars', order({}), 'reject', [...json, ['Idempotency-Key', 'k'.repeat(300)]]),
  post('duplicated Content-Type', order({}), 'survive', [...json, ['Content-Type', 'text/plain']]),
  get('GET order with a non-UUID id', 'order', '/orders/not-a-uuid'),
  get('GET order with broken percent-encoding', 'order', '/orders/%ff%fe'),
  get('GET orders with a bad limit', 'order', '/orders?limit=-5'),
  get('GET orders with a garbage cursor', 'order', '/orders?cursor=%00%01'),
  putStock('PUT stock with a string', '{"available":"ten"}'),
  putStock('PUT stock beyond int32', '{"available":4294967296}'),
  putStock('PUT stock malformed JSON', '{"available":'),
  get('GET stock of a 10k-char sku', 'inventory', `/inventory/${'S'.repeat(10_000)}`),
  get('GET analytics of a NUL customer', 'analytics', '/analytics/customers/a%00b/windows'),
  get(
    'GET analytics of a unicode customer',
    'analytics',
    '/analytics/customers/%F0%9F%98%80/windows',
    'survive',
  ),
];
