import pg from 'pg';
import {
  countStatements,
  preparedQuery,
  SERVICE_SESSION_OPTIONS,
  sqlOver,
  type Sql,
} from '@pipeline/database';
import { DELETE_OUTBOX_ROWS, HOLDS_LOCK, READ_BATCH_HOLDING_LOCK, type OutboxRow } from './outbox-table';

export interface RelayConnectionOptions {
  readonly databaseUrl: string;
  readonly applicationName: string;
  /** Called once when the session ends unexpectedly: its advisory lock is gone with it. */
  readonly onLost: (error: Error) => void;
  /** Called for every NOTIFY on the `outbox` channel. */
  readonly onNotify: () => void;
}

/**
 * The relay's own session (a plain `pg.Client`, never a pooled or Prisma connection): it holds
 * the session-level advisory lock that makes its owner the only publisher, LISTENs for wake-ups,
 * and runs the relay's SELECT and DELETE, so a relay whose session died cannot read or delete
 * anything more.
 */
export class RelayConnection {
  private lost = false;
  /** The session's backend process id, known once `tryLock` ran: writers check its lock by it. */
  backendPid: number | undefined;
  /** The session as `Sql`, handed to the relay's `onPublished` hook. */
  readonly sql: Sql;

  private constructor(
    private readonly client: pg.Client,
    private readonly options: RelayConnectionOptions,
  ) {
    this.sql = sqlOver(client);
  }

  static async open(options: RelayConnectionOptions): Promise<RelayConnection> {
    const client = new pg.Client({
      connectionString: options.databaseUrl,
      application_name: options.applicationName,
      options: SERVICE_SESSION_OPTIONS,
      keepAlive: true,
      connectionTimeoutMillis: 5_000,
      statement_timeout: 30_000,
      query_timeout: 60_000,
    });
    countStatements(client);
    const connection = new RelayConnection(client, options);
    client.on('error', (error) => connection.markLost(error));
    client.on('end', () => connection.markLost(new Error('database session ended')));
    client.on('notification', (message) => {
      if (message.channel === 'outbox') options.onNotify();
    });
    try {
      await client.connect();
    } catch (error) {
      connection.lost = true;
      await client.end().catch(() => undefined);
      throw error;
    }
    return connection;
  }

  get alive(): boolean {
    return !this.lost;
  }

  async query<Row extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<Row[]> {
    const result = await this.client.query<Row>(preparedQuery(text, values));
    return result.rows;
  }

  /**
   * The next `limit` rows in id order, in one statement with the DELETE of `published` and the
   * proof that this session still holds the advisory lock `key`: throws when it does not.
   */
  async readBatch(key: number, limit: number, published: readonly string[]): Promise<OutboxRow[]> {
    const rows = await this.query<LockedRow>(READ_BATCH_HOLDING_LOCK, [key, limit, published]);
    if (rows[0]?.held !== true) throw lockLost();
    return rows.filter((row): row is LockedRow & OutboxRow => row.id !== null);
  }

  async deleteRows(ids: readonly string[]): Promise<void> {
    await this.query(DELETE_OUTBOX_ROWS, [ids]);
  }

  async tryLock(key: number): Promise<boolean> {
    const [row] = await this.query<{ locked: boolean; pid: number }>(
      'SELECT pg_try_advisory_lock($1::bigint) AS locked, pg_backend_pid() AS pid',
      [key],
    );
    this.backendPid = row?.pid;
    return row?.locked === true;
  }

  /**
   * Whether this session holds the advisory lock `key` now: asked of the server, so a session
   * the server ended (or a network that no longer answers) fails instead of saying yes.
   */
  async holdsLock(key: number): Promise<boolean> {
    const [row] = await this.query<{ held: boolean }>(HOLDS_LOCK, [key]);
    return row?.held === true;
  }

  /** Throws unless the session is alive and holds the lock `key`. */
  async assertHoldsLock(key: number): Promise<void> {
    if (!this.alive || !(await this.holdsLock(key))) throw lockLost();
  }

  /** Wakes the relay that leads, wherever it runs, as the outbox trigger would. */
  async notifyOutbox(): Promise<void> {
    await this.client.query("SELECT pg_notify('outbox', '')");
  }

  async listen(): Promise<void> {
    await this.client.query('LISTEN outbox');
  }

  /** Releases the lock (when given) and ends the session; never throws. */
  async close(lockKey?: number): Promise<void> {
    const wasAlive = !this.lost;
    this.lost = true;
    if (wasAlive && lockKey !== undefined) {
      await this.client.query('SELECT pg_advisory_unlock($1::bigint)', [lockKey]).catch(() => undefined);
    }
    await this.client.end().catch(() => undefined);
  }

  private markLost(error: Error): void {
    if (this.lost) return;
    this.lost = true;
    this.options.onLost(error);
  }
}

/** A row of `READ_BATCH_HOLDING_LOCK`: the lock's answer, then a row of the batch or nulls. */
type LockedRow = { held: boolean } & { [K in keyof OutboxRow]: OutboxRow[K] | null };

const lockLost = () => new Error('the advisory lock is no longer held');
