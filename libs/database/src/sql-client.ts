/**
 * The slice of a Prisma client the messaging library needs. Every service's generated client
 * (and its interactive-transaction client) satisfies it, and the `outbox`/`inbox` tables are the
 * same in every service's schema, so the library speaks SQL to them without knowing the service.
 */
export interface SqlClient {
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
}

export interface TransactionalSqlClient<Tx extends SqlClient = SqlClient> extends SqlClient {
  $transaction<R>(fn: (tx: Tx) => Promise<R>, options?: { maxWait?: number; timeout?: number }): Promise<R>;
}
