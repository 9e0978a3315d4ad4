import { describe, expect, it } from 'vitest';
import { preparedQuery, statementName } from './sql';

describe('preparedQuery', () => {
  it('names a statement with parameters, the same text always by the same name', () => {
    const text = 'INSERT INTO inbox (consumer, event_id) SELECT $1, e FROM unnest($2::uuid[]) AS e';
    const first = preparedQuery(text, ['payment', []]);
    expect(first).toMatchObject({ name: expect.stringMatching(/^insert_inbox_\d+$/) as string, text });
    expect(preparedQuery(text, ['order', []])).toMatchObject({ name: (first as { name: string }).name });
    expect(preparedQuery('SELECT 1 FROM orders WHERE id = $1', [1])).not.toMatchObject({
      name: (first as { name: string }).name,
    });
  });

  it('leaves a statement without parameters on the simple protocol', () => {
    expect(preparedQuery('BEGIN')).toBe('BEGIN');
  });
});

describe('statementName', () => {
  it("reads the statement's first word and the first table it names", () => {
    expect(statementName('  WITH inserted AS (INSERT INTO outbox (id) VALUES ($1))', 7)).toBe(
      'with_outbox_7',
    );
    expect(statementName('UPDATE stock AS s SET available = 1', 2)).toBe('update_stock_2');
    expect(statementName('SELECT * FROM "Payment" WHERE id = $1', 3)).toBe('select_payment_3');
    expect(statementName('SELECT pg_try_advisory_lock($1)', 4)).toBe('select_4');
    const readBatch = 'WITH lock AS (SELECT 1 FROM pg_locks WHERE pid = $1) SELECT id FROM outbox, lock';
    expect(statementName(readBatch, 5)).toBe('with_outbox_5');
  });
});
