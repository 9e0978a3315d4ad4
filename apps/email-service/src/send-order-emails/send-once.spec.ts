import { describe, expect, it } from 'vitest';
import type { EventContext } from '@pipeline/messaging';
import type { Prisma, PrismaClient } from '../generated/prisma/client';
import type { MailSender, OutgoingEmail } from '../mail/mail-sender';
import { SendOnce } from './send-once';

// SendOnce against a fake `sent_emails` table and a fake SMTP server: what is under test is the
// decision to send or not, across redeliveries, when either side fails at the worst moment.
// (tests/faults/postgres-restart.spec.ts shows the same against a real Postgres restart.)

const EVENT_ID = '0b9a4a52-3f43-4c0e-9d55-6b1c1c1a0001';
const email: OutgoingEmail = {
  to: 'ada@example.com',
  subject: 'Your order is confirmed',
  text: 'text',
  html: '<p>html</p>',
  messageId: `<${EVENT_ID}@order-pipeline.local>`,
};

function harness() {
  const table = new Map<string, Prisma.SentEmailCreateManyInput>();
  const accepted: string[] = [];
  const failures = { smtp: 0, record: 0 };
  const database = {
    sentEmail: {
      createMany: ({ data }: { data: Prisma.SentEmailCreateManyInput[] }) => {
        if (failures.record > 0) {
          failures.record--;
          return Promise.reject(new Error('Server has closed the connection.'));
        }
        for (const row of data) if (!table.has(row.eventId)) table.set(row.eventId, row);
        return Promise.resolve({ count: data.length });
      },
    },
  } as unknown as PrismaClient;
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
  const ctx = {
    metadata: { id: EVENT_ID },
    tx: {
      sentEmail: {
        findUnique: ({ where }: { where: { eventId: string } }) =>
          Promise.resolve(table.has(where.eventId) ? { sentAt: new Date() } : null),
      },
    },
  } as unknown as EventContext<Prisma.TransactionClient>;
  const sendOnce = new SendOnce(database, mail);
  const deliver = () => sendOnce.send(ctx, { kind: 'CONFIRMATION', orderId: 'order-1', email });
  return { table, accepted, failures, deliver };
}

describe('SendOnce', () => {
  it('sends once and records it; a redelivery sends nothing', async () => {
    const { table, accepted, deliver } = harness();
    await deliver();
    await deliver();
    expect(accepted).toEqual([email.messageId]);
    expect(table.get(EVENT_ID)).toMatchObject({ messageId: email.messageId, recipient: email.to });
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
