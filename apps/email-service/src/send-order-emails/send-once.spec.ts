import { describe, expect, it } from 'vitest';
import type { EventContext } from '@pipeline/messaging';
import type { Sql } from '@pipeline/database';
import type pg from 'pg';
import type { MailSender, OutgoingEmail } from '../mail/mail-sender';
import { SendOnce } from './send-once';

// SendOnce against a fake `sent_emails` table and a fake SMTP server: what is under test is the
// decision to send or not, across redeliveries, when either side fails at the worst moment.
// (tests/faults/postgres-restart.spec.ts shows the same against a real Postgres restart.)

const EVENT_ID = '0b9a4a52-3f43-4c0e-9d55-6b1c1c1a0001';
const ORDER_ID = '0b9a4a52-3f43-4c0e-9d55-6b1c1c1a0002';
const email: OutgoingEmail = {
  to: 'ada@example.com',
  subject: 'Your order is confirmed',
  text: 'text',
  html: '<p>html</p>',
  messageId: `<${EVENT_ID}@order-pipeline.local>`,
};

interface SentRow {
  readonly eventId: string;
  readonly recipient: string;
  readonly messageId: string;
}

function harness() {
  const table = new Map<string, SentRow>();
  const accepted: string[] = [];
  const failures = { smtp: 0, record: 0 };
  /** Statements that went through the consumer transaction (`ctx.sql`) and the autocommitted pool. */
  const statements = { inTransaction: [] as string[], autocommitted: [] as string[] };
  // The pool answers only the record-the-send INSERT: anything else there is a bug.
  const pool = {
    // As pg's: a statement with values comes prepared, as a config with its text and values.
    query: ({ text, values }: pg.QueryConfig) => {
      statements.autocommitted.push(text);
      if (!/INSERT INTO sent_emails/.test(text)) return Promise.reject(new Error(`unexpected: ${text}`));
      if (failures.record > 0) {
        failures.record--;
        return Promise.reject(new Error('Server has closed the connection.'));
      }
      // One row per element of the arrays (SentEmailLog writes the sends of a moment together).
      const [eventIds, , , recipients, messageIds] = values as string[][];
      let inserted = 0;
      eventIds!.forEach((eventId, i) => {
        if (table.has(eventId)) return;
        table.set(eventId, { eventId, recipient: recipients![i]!, messageId: messageIds![i]! });
        inserted += 1;
      });
      return Promise.resolve({ rows: [], rowCount: inserted });
    },
  } as unknown as pg.Pool;
  const mail = {
    send: (outgoing: OutgoingEmail) => {
      if (failures.smtp > 0) {
        failures.smtp--;
        return Promise.reject(new Error('connect ECONNREFUSED'));
      }
      accepted.push(outgoing.messageId);
      return Promise.resolve();
    },
  } as unknown as MailSender;
  // The transaction answers only the lookup: the send must never be recorded in it.
  const sql: Sql = {
    query: <Row>(text: string, values: readonly unknown[] = []) => {
      statements.inTransaction.push(text);
      if (!/^SELECT .* FROM sent_emails WHERE event_id = \$1/.test(text))
        return Promise.reject(new Error(`unexpected: ${text}`));
      return Promise.resolve((table.has(values[0] as string) ? [{ '?column?': 1 }] : []) as Row[]);
    },
    execute: (text: string) => Promise.reject(new Error(`unexpected in the transaction: ${text}`)),
  };
  const ctx = { metadata: { id: EVENT_ID }, sql } as unknown as EventContext;
  const sendOnce = new SendOnce(pool, mail);
  const deliver = () => sendOnce.send(ctx, { kind: 'CONFIRMATION', orderId: ORDER_ID, email });
  return { table, accepted, failures, statements, deliver };
}

describe('SendOnce', () => {
  it('sends once and records it outside the transaction; a redelivery sends nothing', async () => {
    const { table, accepted, statements, deliver } = harness();
    await deliver();
    await deliver();
    expect(accepted).toEqual([email.messageId]);
    expect(table.get(EVENT_ID)).toEqual({
      eventId: EVENT_ID,
      messageId: email.messageId,
      recipient: email.to,
    });
    // One lookup per delivery in the transaction; the one send recorded once, autocommitted.
    expect(statements.inTransaction).toHaveLength(2);
    expect(statements.autocommitted).toHaveLength(1);
  });

  it('does not send again when the database failed after the SMTP server accepted the email', async () => {
    const { table, accepted, failures, deliver } = harness();
    failures.record = 2;
    await expect(deliver()).rejects.toThrow('closed the connection');
    await expect(deliver()).rejects.toThrow('closed the connection');
    expect(table.size).toBe(0);
    await deliver();
    expect(accepted).toEqual([email.messageId]);
    expect(table.has(EVENT_ID)).toBe(true);
    await deliver();
    expect(accepted).toHaveLength(1);
  });

  it('records nothing when the SMTP server refused, and sends on the retry', async () => {
    const { table, accepted, failures, deliver } = harness();
    failures.smtp = 1;
    await expect(deliver()).rejects.toThrow('ECONNREFUSED');
    expect(table.size).toBe(0);
    await deliver();
    expect(accepted).toEqual([email.messageId]);
    expect(table.size).toBe(1);
  });
});
