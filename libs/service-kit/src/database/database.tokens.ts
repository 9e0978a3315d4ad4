import type { PrismaPg } from '@prisma/adapter-pg';

export const DATABASE = Symbol('DATABASE');

/** What the kit needs from a service's generated Prisma client. */
export interface DatabaseClient {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $disconnect(): Promise<void>;
}

/** A generated PrismaClient class (Prisma 7: a driver adapter is mandatory). */
export type PrismaClientClass = new (options: { adapter: PrismaPg }) => DatabaseClient;
