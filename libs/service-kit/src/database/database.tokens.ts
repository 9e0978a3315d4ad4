import type { PrismaPg } from '@prisma/adapter-pg';
import type { TransactionalSqlClient } from '@pipeline/messaging';

export const DATABASE = Symbol('DATABASE');

/** What the kit needs from a service's generated Prisma client. */
export interface DatabaseClient extends TransactionalSqlClient {
  $disconnect(): Promise<void>;
}

/** A generated PrismaClient class (Prisma 7: a driver adapter is mandatory). */
export type PrismaClientClass = new (options: { adapter: PrismaPg }) => DatabaseClient;
