import { RpcException } from '@nestjs/microservices';
import { PrismaPg } from '@prisma/adapter-pg';
import {
  FatalError,
  PipelineError,
  RetriableError,
  classifyError,
  isConcurrencyConflict,
  isUnavailable,
} from '@pipeline/messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PrismaClient } from '../support/generated/prisma/client';
import { createMessagingTestDatabase, type MessagingTestDatabase } from '../support/messaging-database';

describe('classifyError', () => {
  it('lets explicit flags win', () => {
    expect(classifyError(new RetriableError('later'))).toBe('retriable');
    expect(classifyError(new FatalError('never'))).toBe('fatal');
    expect(classifyError(new FatalError('wrapped', { cause: new Error('io') }))).toBe('fatal');
    expect(classifyError(Object.assign(new TypeError('flagged'), { retriable: true }))).toBe('retriable');
    expect(classifyError(Object.assign(new Error('flagged'), { retriable: false }))).toBe('fatal');
  });

  it('never retries programmer errors or schema violations', () => {
    expect(classifyError(new TypeError('x is undefined'))).toBe('fatal');
    expect(classifyError(new ReferenceError('y is not defined'))).toBe('fatal');
    expect(classifyError(new SyntaxError('Unexpected token'))).toBe('fatal');
    expect(classifyError(new RangeError('Invalid array length'))).toBe('fatal');
    const parsed = z.strictObject({ n: z.int() }).safeParse({ n: 'one' });
    expect(parsed.success).toBe(false);
    expect(classifyError(parsed.error)).toBe('fatal');
  });

  it('retries what it does not know, and connection or timeout failures', () => {
    expect(classifyError(new Error('socket hang up'))).toBe('retriable');
    expect(classifyError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(
      'retriable',
    );
    expect(classifyError('a string')).toBe('retriable');
    expect(classifyError(undefined)).toBe('retriable');
  });

  it('counts an exhausted connection pool as the database being unavailable, a closed transaction not', () => {
    const prismaError = (message: string) =>
      Object.assign(new Error(`Transaction API error: ${message}`), {
        name: 'PrismaClientKnownRequestError',
        code: 'P2028',
      });
    expect(isUnavailable(prismaError('Unable to start a transaction in the given time.'))).toBe(true);
    expect(
      isUnavailable(
        prismaError('Transaction already closed: the timeout for this transaction was 30000 ms.'),
      ),
    ).toBe(false);
  });

  it('gives pipeline errors a stable code, a cause and a JSON form, and survives Nest RPC filters', () => {
    const error = new RetriableError('payment gateway timed out', {
      code: 'GATEWAY_TIMEOUT',
      cause: new Error('ETIMEDOUT'),
    });
    expect(error).toBeInstanceOf(PipelineError);
    expect(error).toBeInstanceOf(RpcException);
    expect(error.getError()).toBe(error);
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      name: 'RetriableError',
      code: 'GATEWAY_TIMEOUT',
      message: 'payment gateway timed out',
      retriable: true,
      cause: { name: 'Error', message: 'ETIMEDOUT' },
    });
    expect(new FatalError('bad').code).toBe('FATAL');
  });

  describe('with Prisma errors from a real database', () => {
    let db: MessagingTestDatabase;
    const inboxRow = {
      consumer: 'c',
      eventId: '0d9c1d9e-8a8e-4a4e-9d3e-5b7c4b1e2f10',
      topic: 't',
      partition: 0,
      offset: 0n,
    };

    beforeAll(async () => {
      db = await createMessagingTestDatabase('classify');
      await db.prisma.inbox.create({ data: inboxRow });
    });
    afterAll(async () => db.close());

    it('treats constraint violations as fatal, through the model API and raw SQL alike', async () => {
      const viaModel = await db.prisma.inbox.create({ data: inboxRow }).catch((error: unknown) => error);
      expect(viaModel).toMatchObject({ name: 'PrismaClientKnownRequestError', code: 'P2002' });
      expect(classifyError(viaModel)).toBe('fatal');
      const viaSql = await db.prisma
        .$executeRawUnsafe(
          `INSERT INTO inbox (consumer, event_id, topic, partition, "offset") VALUES ('c', $1::uuid, 't', 0, 0)`,
          inboxRow.eventId,
        )
        .catch((error: unknown) => error);
      expect(classifyError(viaSql)).toBe('fatal');
      const notNull = await db.prisma
        .$executeRawUnsafe(`INSERT INTO effect (consumer, event_id) VALUES (NULL, gen_random_uuid())`)
        .catch((error: unknown) => error);
      expect(classifyError(notNull)).toBe('fatal');
    });

    it('recognises a database that cannot be reached as unavailable, not as the record failing', async () => {
      const down = new PrismaClient({
        adapter: new PrismaPg({ connectionString: 'postgresql://postgres@127.0.0.1:1/down' }),
      });
      const error = await down.$transaction((tx) => tx.$queryRawUnsafe('SELECT 1')).catch((e: unknown) => e);
      expect(classifyError(error)).toBe('retriable');
      expect(isUnavailable(error)).toBe(true);
      expect(isUnavailable(new RetriableError('gateway said 503'))).toBe(false);
      // A refused connection of the handler's own (not the database's) is the record's failure.
      const elsewhere = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), {
        code: 'ECONNREFUSED',
      });
      expect(isUnavailable(elsewhere)).toBe(false);
      expect(isUnavailable(new RetriableError('payment gateway unreachable', { cause: elsewhere }))).toBe(
        false,
      );
      expect(isUnavailable(new TypeError('x'))).toBe(false);
    });

    it('recognises a deadlock as a concurrency conflict (retried until it passes, never dead-lettered)', async () => {
      await db.prisma.$executeRawUnsafe(`CREATE TABLE lock_pair (id int PRIMARY KEY)`);
      await db.prisma.$executeRawUnsafe(`INSERT INTO lock_pair VALUES (1), (2)`);
      let bothLocked!: () => void;
      const firstLocks = new Promise<void>((resolve) => (bothLocked = resolve));
      let count = 0;
      const lockThenLock = (first: number, second: number) =>
        db.prisma
          .$transaction(async (tx) => {
            await tx.$queryRawUnsafe(`SELECT id FROM lock_pair WHERE id = $1 FOR UPDATE`, first);
            if (++count === 2) bothLocked();
            await firstLocks;
            await tx.$queryRawUnsafe(`SELECT id FROM lock_pair WHERE id = $1 FOR UPDATE`, second);
          })
          .then(() => undefined)
          .catch((error: unknown) => error);
      const outcomes = await Promise.all([lockThenLock(1, 2), lockThenLock(2, 1)]);
      const deadlock = outcomes.find((outcome) => outcome !== undefined);
      expect(deadlock).toBeInstanceOf(Error);
      expect(classifyError(deadlock)).toBe('retriable');
      expect(isConcurrencyConflict(deadlock)).toBe(true);
      expect(isConcurrencyConflict(new Error('deadlock detected'))).toBe(false);
      expect(isUnavailable(deadlock)).toBe(false);
    });

    it('treats a query cancelled by a statement timeout as retriable', async () => {
      const timedOut = await db.prisma
        .$transaction(async (tx) => {
          await tx.$executeRawUnsafe(`SET LOCAL statement_timeout = '50ms'`);
          await tx.$queryRawUnsafe('SELECT pg_sleep(1)');
        })
        .catch((error: unknown) => error);
      expect(timedOut).toBeInstanceOf(Error);
      expect(classifyError(timedOut)).toBe('retriable');
    });
  });
});
