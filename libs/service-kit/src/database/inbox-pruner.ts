import { OLDEST_EVENT_RECORD_MS } from '@pipeline/contracts';
import { PipelineMetrics, messageOf } from '@pipeline/observability';
import { type Sql } from '@pipeline/database';

/**
 * As long as the consumed topics can hold a record: 7 days of `retention.ms`, 1 day of
 * `segment.ms` and the broker's 5-minute retention check. A reset to earliest rereads nothing
 * whose inbox row is gone.
 */
export const DEFAULT_INBOX_RETENTION_MS = OLDEST_EVENT_RECORD_MS;
export const DEFAULT_INBOX_PRUNE_INTERVAL_MS = 10 * 60 * 1000;

/** The slice of Nest's `LoggerService` the pruner uses; a Nest `Logger` fits. */
export interface InboxPrunerLogger {
  log(message: string): unknown;
  warn(message: string): unknown;
}

export interface InboxPrunerOptions {
  /** The service's database; `sqlOver(pool)`. Each batch is one autocommitted statement. */
  readonly sql: Sql;
  /** Rows older than this are deleted. Default DEFAULT_INBOX_RETENTION_MS (8 days 5 minutes). */
  readonly retentionMs?: number;
  /** From the end of one pass to the start of the next. Default 10 minutes. */
  readonly intervalMs?: number;
  /** Rows per DELETE. Default 1000. */
  readonly batchSize?: number;
  /** Pause between two batches of a pass, so consumers get the pool and the disk. Default 10. */
  readonly pauseBetweenBatchesMs?: number;
  readonly logger?: InboxPrunerLogger;
  /** Called after every DELETE with the rows it removed. */
  readonly onBatchPruned?: (rows: number) => void;
}

/**
 * Deletes the `inbox` rows whose events can no longer be redelivered: older than the retention
 * of the topics they came from. A pass deletes the oldest rows in batches until one comes back
 * short, each batch a statement of its own, so no lock outlives a batch.
 *
 * Pruners may run concurrently (every instance of a service has one): each DELETE removes rows
 * that are old by definition, and a row another pruner deleted first is skipped by Postgres after
 * waiting for that transaction, so the outcome is the same as with one pruner. Nothing to elect.
 */
export class InboxPruner {
  private readonly retentionMs: number;
  private readonly intervalMs: number;
  private readonly batchSize: number;
  private readonly pauseMs: number;
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<number> | undefined;
  private running = false;
  private aborting = false;
  /** Ends the pauses in progress (a scheduled pass and any of the caller's). */
  private readonly wakers = new Set<() => void>();

  constructor(private readonly options: InboxPrunerOptions) {
    this.retentionMs = options.retentionMs ?? DEFAULT_INBOX_RETENTION_MS;
    this.intervalMs = options.intervalMs ?? DEFAULT_INBOX_PRUNE_INTERVAL_MS;
    this.batchSize = options.batchSize ?? 1_000;
    this.pauseMs = options.pauseBetweenBatchesMs ?? 10;
  }

  /** Prunes now, then every `intervalMs` after the previous pass ended, until `stop()`. */
  start(): void {
    if (this.running) return;
    this.running = true;
    // A pass still ending after a stop() schedules the next one itself.
    if (this.pass === undefined) this.schedule(0);
  }

  /**
   * Cancels the next pass and waits for the scheduled one in flight, which ends after its current
   * batch (as does a `pruneOnce()` of the caller's; that one is not waited for). Idempotent.
   */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.aborting = true;
    for (const wake of this.wakers) wake();
    try {
      await this.pass?.catch(() => undefined);
    } finally {
      this.aborting = false;
    }
  }

  /** One pass: deletes every row older than the retention, in batches. Returns how many. */
  async pruneOnce(): Promise<number> {
    // One cutoff per pass, so a pass ends while rows keep ageing; from the database's clock,
    // which wrote `processed_at`, not this host's.
    const [row] = await this.options.sql.query<{ cutoff: Date }>(
      `SELECT now() - $1::bigint * interval '1 millisecond' AS cutoff`,
      [this.retentionMs],
    );
    if (row === undefined) throw new Error('SELECT now() returned no row');
    let total = 0;
    for (;;) {
      const deleted = await this.deleteBatch(row.cutoff);
      total += deleted;
      if (deleted < this.batchSize) return total;
      if (!(await this.pause())) return total;
    }
  }

  private async deleteBatch(cutoff: Date): Promise<number> {
    // ctid = ANY(ARRAY(...)): a TID scan of exactly the rows the index range found, oldest first.
    const deleted = await this.options.sql.execute(
      `DELETE FROM inbox WHERE ctid = ANY(ARRAY(
         SELECT ctid FROM inbox WHERE processed_at < $1 ORDER BY processed_at LIMIT $2))`,
      [cutoff, this.batchSize],
    );
    if (deleted > 0) PipelineMetrics.inboxPruned.inc(deleted);
    this.options.onBatchPruned?.(deleted);
    return deleted;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pass = this.pruneOnce();
      void this.pass
        .then(
          (rows) => {
            if (rows > 0)
              this.options.logger?.log(`inbox: pruned ${rows} rows older than ${this.retentionMs} ms`);
          },
          (error: unknown) => this.options.logger?.warn(`inbox: prune failed: ${messageOf(error)}`),
        )
        .finally(() => {
          this.pass = undefined;
          if (this.running && this.timer === undefined) this.schedule(this.intervalMs);
        });
    }, delayMs);
  }

  /** Waits between batches; false when `stop()` was called. */
  private pause(): Promise<boolean> {
    if (this.aborting) return Promise.resolve(false);
    if (this.pauseMs === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (proceed: boolean) => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve(proceed);
      };
      const wake = () => done(false);
      const timer = setTimeout(() => done(true), this.pauseMs);
      this.wakers.add(wake);
    });
  }
}
