import type { PrismaPg } from '@prisma/adapter-pg';
import type { TransactionalSqlClient } from '@pipeline/database';

/** The service's generated Prisma client: HTTP reads and CRUD. */
export const DATABASE = Symbol('DATABASE');

/**
 * The service's `pg.Pool`: the hot paths (consumer batches, the HTTP group commit) run set-based
 * SQL on it directly. Prisma's driver adapter runs on the same pool, so the service has one pool
 * of `DATABASE_POOL_SIZE` connections, not two.
 */
export const DATABASE_POOL = Symbol('DATABASE_POOL');

/** What the kit needs from a service's generated Prisma client. */
export interface DatabaseClient extends TransactionalSqlClient {
  $disconnect(): Promise<void>;
}

/** A generated PrismaClient class (Prisma 7: a driver adapter is mandatory). */
export type PrismaClientClass = new (options: { adapter: PrismaPg }) => DatabaseClient;
