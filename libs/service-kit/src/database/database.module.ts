import {
  type DynamicModule,
  Inject,
  Logger,
  Module,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { countStatements, SERVICE_SESSION_OPTIONS } from '@pipeline/database';
import { DatabaseHealthIndicator } from './database.health';
import { DATABASE, DATABASE_POOL, type DatabaseClient, type PrismaClientClass } from './database.tokens';

export interface DatabasePoolOptions {
  readonly url: string;
  readonly poolSize: number;
  /** `application_name` of the pool's sessions, e.g. `payment-service` (seen in pg_stat_activity). */
  readonly applicationName: string;
  /** Opening a connection, or waiting for a free one (DATABASE_CONNECT_TIMEOUT_MS). */
  readonly connectTimeoutMs: number;
  /** Server-side `statement_timeout`; the client gives up at twice it (DATABASE_STATEMENT_TIMEOUT_MS). */
  readonly statementTimeoutMs: number;
}

export interface DatabaseModuleOptions extends DatabasePoolOptions {
  /** The service's own generated Prisma client class (each service owns its database). */
  readonly prismaClient: PrismaClientClass;
}

/** The session setting that keeps the outbox trigger from sending a NOTIFY. */
export const OUTBOX_NOTIFY_OFF = 'outbox.notify=off';

/**
 * The service's one pool (the hot paths' SQL and Prisma's adapter share it). Nothing waits on the
 * database forever: a connection comes within connectTimeoutMs or the query fails; the server
 * cancels a statement (a lock wait included) after statementTimeoutMs; when the server cannot
 * answer at all (a dead network path, a frozen host), the client gives up at twice that; TCP
 * keepalive finds an idle connection whose peer is gone before a query is sent on it.
 */
export function createDatabasePool(options: DatabasePoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    application_name: options.applicationName,
    connectionTimeoutMillis: options.connectTimeoutMs,
    statement_timeout: options.statementTimeoutMs,
    query_timeout: 2 * options.statementTimeoutMs,
    // No transaction waiting on a handler holds its locks forever.
    idle_in_transaction_session_timeout: 60_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    // Its writers wake the service's relay in process after COMMIT (outboxCommitted); the outbox
    // trigger sends no NOTIFY for them (prisma/shared/migrations/outbox_notify_opt_out.sql).
    options: `${SERVICE_SESSION_OPTIONS} -c ${OUTBOX_NOTIFY_OFF}`,
  });
  // An idle connection the server dropped (a Postgres restart) is an 'error' event on the pool:
  // unheard, it would end the process. The pool discards that connection and opens a new one on
  // the next checkout; the transaction in hand fails and is retried.
  pool.on('connect', countStatements);
  pool.on('error', (error) => {
    new Logger('Database').warn(`idle connection lost: ${error.message}`);
  });
  return pool;
}

@Module({})
export class DatabaseModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(DATABASE) private readonly client: DatabaseClient,
    @Inject(DATABASE_POOL) private readonly pool: pg.Pool,
  ) {}

  static forRoot(options: DatabaseModuleOptions): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      imports: [TerminusModule],
      providers: [
        {
          provide: DATABASE_POOL,
          useFactory: () => createDatabasePool(options),
        },
        {
          provide: DATABASE,
          inject: [DATABASE_POOL],
          useFactory: (pool: pg.Pool) => new options.prismaClient({ adapter: new PrismaPg(pool) }),
        },
        DatabaseHealthIndicator,
      ],
      exports: [DATABASE, DATABASE_POOL, DatabaseHealthIndicator],
    };
  }

  async onModuleInit(): Promise<void> {
    // Fail fast at start-up with the driver's own message (bad URL, missing database, refused).
    await this.pool.query('SELECT 1');
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.$disconnect();
    if (!this.pool.ended) await this.pool.end();
  }
}
