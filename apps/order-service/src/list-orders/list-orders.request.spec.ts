import { describe, expect, it } from 'vitest';
import { ListOrdersQuerySchema } from './list-orders.request';
import { decodeCursor, encodeCursor } from './order-cursor';

const cursor = {
  createdAt: new Date('2026-11-30T01:02:03.456Z'),
  id: '1b4e28ba-2fa1-41d2-883f-0016d3cca427',
};

describe('order cursor', () => {
  it('round-trips (createdAt, id) as base64url', () => {
    const text = encodeCursor(cursor);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(text)).toEqual(cursor);
  });

  it.each([
    ['!!'],
    ['e30'],
    [Buffer.from('["x","y"]').toString('base64url')],
    [Buffer.from('not json').toString('base64url')],
  ])('refuses %s', (text) => {
    expect(decodeCursor(text)).toBeUndefined();
  });
});

describe('GET /orders query', () => {
  it('defaults the limit to 20', () => {
    expect(ListOrdersQuerySchema.parse({})).toEqual({ limit: 20 });
  });

  it('parses every parameter', () => {
    expect(
      ListOrdersQuerySchema.parse({
        customerId: 'c',
        status: 'CONFIRMED',
        limit: '5',
        cursor: encodeCursor(cursor),
      }),
    ).toEqual({
      customerId: 'c',
      status: 'CONFIRMED',
      limit: 5,
      cursor,
    });
  });

  it('names every bad parameter', () => {
    const result = ListOrdersQuerySchema.safeParse({
      status: 'SHIPPED',
      limit: '0',
      cursor: 'nope!',
      customerId: '',
      page: '2',
    });
    expect(result.success).toBe(false);
    const fields = result.error?.issues.map((issue) => issue.path.join('.') || '(root)').sort();
    expect(fields).toEqual(['(root)', 'cursor', 'customerId', 'limit', 'status']);
  });

  it.each([['101'], ['1.5'], ['-1'], ['abc'], ['']])('refuses limit %j', (limit) => {
    expect(ListOrdersQuerySchema.safeParse({ limit }).success).toBe(false);
  });
});
