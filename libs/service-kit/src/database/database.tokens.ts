export const DATABASE = Symbol('DATABASE');

/** What the kit needs from a service's generated Prisma client. */
export interface DatabaseClient {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $disconnect(): Promise<void>;
}
