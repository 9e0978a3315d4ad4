import { backoffDelay, onOutboxCommitted, sleep, type OutboxHandoff } from '@pipeline/messaging';
import { CompressionTypeOf } from '@pipeline/kafka-codecs';
import { messageOf } from '@pipeline/observability';
import { outboxLockKey, readBacklog, type OutboxRow } from './outbox-table';
import { RelayConnection } from './relay-connection';
import { RelayFailure, attempt } from './relay-failure';
import { RelayPublisher, type Fence } from './relay-publisher';
import { WakeSignal } from './wake-signal';
import {
  consoleLogger,
  type OutboxBacklog,
  type OutboxRelayLogger,
  type OutboxRelayOptions,
  type OutboxRelayStats,
} from './outbox-relay.options';

/**
 * Publishes the `outbox` table to Kafka. Per-key order holds end to end because:
 * - writers of one aggregate are serialised by its row lock, so for one key id order is commit
 *   order (a row committing late behind a higher id always belongs to another key);
 * - the relay reads in id order and publishes each topic's rows in that order, one send after
 *   the other, one relay at a time: it holds an advisory lock, and the statement that reads a
 *   batch also proves that its session still does; a batch's later sends ask again (its producer
 *   never retries on its own, so nothing goes out after a proof that failed). It deletes rows
 *   only after the broker acknowledged them.
 *   Rows are deleted, not tracked by a high-water mark, so a row committing after a higher id
 *   was published is simply read on the next pass: nothing is skipped;
 * - a writer in this process may hand its rows over instead (`OutboxHandoff`): its INSERT proves
 *   the lock and that no row of the same keys waits outside what the relay has in hand, so the
 *   relay sends them after what it has in hand without reading the outbox. Any other wake-up (a
 *   NOTIFY, a writer that could not hand over, the poll) reads the outbox, and the read finds
 *   every row handed over so far, as they are committed;
 * - a crash between the acknowledgement and the DELETE publishes those rows again: delivery is
 *   at-least-once, and consumers' inboxes drop the duplicates by event id.
 */
export class OutboxRelay {
  readonly lockKey: number;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly flushTimeoutMs: number;
  private readonly logger: OutboxRelayLogger;
  private readonly wake = new WakeSignal();
  private readonly stopSignal = new WakeSignal();
  private readonly publisher: RelayPublisher;
  private connection: RelayConnection | undefined;
  private leader = false;
  private loop: Promise<void> | undefined;
  private started: Promise<void> | undefined;
  private stopListening: (() => void) | undefined;
  private markStarted: () => void = () => undefined;
  private stopping: Promise<void> | undefined;
  private stopRequested = false;
  private flushDeadline = Number.POSITIVE_INFINITY;
  /**
   * Rows published or dead-lettered whose DELETE rides with the next SELECT (the poll's at the
   * latest). A crash before that publishes them again: consumers' inboxes drop the copies.
   */
  private published: string[] = [];
  /** Rows writers of this process handed over after their COMMIT, in that order, not sent yet. */
  private handed: OutboxRow[] = [];
  /**
   * Statements run on the relay's session other than proofs of its lock (its reads, DELETEs and
   * `onPublished` hook): any of them may have dropped the lock (`pg_advisory_unlock_all()`) after
   * a writer's INSERT proved it. `handedSince`: the count when the oldest queued row was offered.
   */
  private sessionTurns = 0;
  private handedSince = 0;
  /** The rows of the send in flight. */
  private sending: readonly OutboxRow[] = [];
  /** Something committed that only a read of the outbox finds (a NOTIFY, a writer's wake-up). */
  private readDue = true;
  /** Whether the last read filled a batch: more rows wait, so nothing is handed over. */
  private backlogged = true;
  private lastReadAt = 0;
  /** A follower's NOTIFY to the leader in flight, and whether commits came meanwhile. */
  private notifyingLeader = false;
  private notifyLeaderAgain = false;
  /** Consecutive failures (the backoff), and all since start (the stats). */
  private failures = 0;
  private failedAttempts = 0;

  constructor(private readonly options: OutboxRelayOptions) {
    this.batchSize = options.batchSize ?? 500;
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.flushTimeoutMs = options.flushTimeoutMs ?? 10_000;
    this.lockKey = options.lockKey ?? outboxLockKey(options.service);
    this.logger = options.logger ?? consoleLogger;
    const delivery = {
      acks: options.acks === '1' ? (1 as const) : (-1 as const),
      compression: CompressionTypeOf[options.compression ?? 'none'],
    };
    this.publisher = new RelayPublisher(options, delivery, this.logger, this.name);
  }

  get stats(): OutboxRelayStats {
    return { ...this.publisher.counters, failures: this.failedAttempts };
  }

  isLeader(): boolean {
    return this.leader && this.connection?.alive === true;
  }

  /** Resolves after the first attempt to take the lead (leader or follower, or retrying). */
  start(): Promise<void> {
    if (this.stopping) return Promise.resolve();
    if (this.started) return this.started;
    this.started = new Promise<void>((resolve) => (this.markStarted = resolve));
    // Writers in this process wake the relay as they commit, without NOTIFY's round trip.
    this.stopListening = onOutboxCommitted(
      `${this.options.service}-service`,
      () => this.committedInProcess(),
      () => this.offerHandoff(),
    );
    this.loop = this.run()
      .catch((error: unknown) => {
        this.logger.error(`${this.name}: stopped unexpectedly: ${messageOf(error)}`);
      })
      .finally(() => this.markStarted());
    return this.started;
  }

  /** Stops waking, publishes what is committed, releases the lock, disconnects. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  backlog(): Promise<OutboxBacklog> {
    return readBacklog(
      this.options.databaseUrl,
      `outbox-relay:${this.options.service}:backlog`,
      this.publishedIds(),
    );
  }

  /** Rows this relay published whose DELETE has not been sent yet: not backlog any more. */
  publishedIds(): readonly string[] {
    return this.published;
  }

  /**
   * A writer of this process committed outbox rows. Its session sent no NOTIFY (the service's pool
   * opts out), so the leader hears of them from here: at once when this relay leads, and through
   * one NOTIFY from this relay's session when another instance does (several commits meanwhile,
   * one more NOTIFY). Without a session, or when that NOTIFY fails, the leader's poll finds the
   * rows: they are committed, so nothing is lost, only later.
   */
  private committedInProcess(): void {
    if (this.leader) {
      this.readSoon();
      return;
    }
    if (this.notifyingLeader) {
      this.notifyLeaderAgain = true;
      return;
    }
    const connection = this.connection;
    if (!connection?.alive) return;
    this.notifyingLeader = true;
    void connection
      .notifyOutbox()
      .catch(() => undefined)
      .finally(() => {
        this.notifyingLeader = false;
        if (!this.notifyLeaderAgain) return;
        this.notifyLeaderAgain = false;
        this.committedInProcess();
      });
  }

  /**
   * What a writer of this process may hand over to this relay while it leads with nothing else
   * waiting: the writer's INSERT proves the rest (`insertOutboxRows`). Nothing while the outbox
   * holds more than a batch, so a writer never scans a backlog.
   */
  private offerHandoff(): OutboxHandoff | undefined {
    const relayPid = this.connection?.backendPid;
    if (!this.isLeader() || relayPid === undefined || this.backlogged || this.readDue || this.stopRequested)
      return undefined;
    const inHand = [
      ...this.published,
      ...this.sending.map((row) => row.id),
      ...this.handed.map((row) => row.id),
    ];
    if (inHand.length > this.batchSize) return undefined;
    const offeredAt = this.sessionTurns;
    return { relayPid, lockKey: this.lockKey, inHand, take: (rows) => this.take(rows, offeredAt) };
  }

  /**
   * Rows a writer handed over after its COMMIT: sent next, unless a read comes first and finds them.
   * `false` when this relay no longer leads: the writer wakes whoever does instead.
   */
  private take(rows: readonly OutboxRow[], offeredAt: number): boolean {
    if (!this.leader) return false;
    if (this.handed.length === 0) this.handedSince = offeredAt;
    this.handed.push(...rows);
    if (this.handed.length > this.batchSize) this.readSoon();
    this.wake.notify();
    return true;
  }

  private readSoon(): void {
    this.readDue = true;
    this.wake.notify();
  }

  private async run(): Promise<void> {
    while (Date.now() < this.flushDeadline) {
      try {
        const connection = await this.connect();
        if (!this.leader) {
          this.leader = await this.acquire(connection);
          this.markStarted();
          if (!this.leader) {
            if (this.stopRequested) return;
            await this.sleep(this.pollIntervalMs);
            continue;
          }
        }
        if (await this.publishUntilIdle(connection)) return;
      } catch (error) {
        this.markStarted();
        await this.recover(error);
      }
    }
    this.logger.warn(
      `${this.name}: flush gave up after ${this.flushTimeoutMs} ms; what is left stays in the outbox`,
    );
  }

  /** Returns `true` once a pass that began after `stop()` was called has emptied the outbox. */
  private async publishUntilIdle(connection: RelayConnection): Promise<boolean> {
    for (;;) {
      const flushing = this.stopRequested;
      this.wake.clear();
      if (flushing || this.readDue || this.untilPoll() === 0) {
        this.readDue = false;
        while ((await this.publishBatch(connection)) === this.batchSize) {
          if (Date.now() >= this.flushDeadline) return false;
          await this.report(connection);
        }
      }
      await this.publishHanded(connection);
      await this.report(connection, flushing);
      if (flushing) {
        await this.deletePublished(connection);
        return true;
      }
      // No linger: what is handed over or committed while the last send was in flight goes next, at once.
      const reportDue = this.publisher.reportDueIn();
      await this.wake.wait(Math.min(this.untilPoll(), reportDue ?? Infinity));
    }
  }

  private async report(connection: RelayConnection, now = false): Promise<void> {
    if (await this.publisher.report(connection.sql, now)) this.sessionTurns += 1;
  }

  /** Milliseconds until the poll reads the outbox (and deletes what was published since the last read). */
  private untilPoll(): number {
    return Math.max(0, this.lastReadAt + this.pollIntervalMs - Date.now());
  }

  /**
   * Sends the rows handed over, in the order they came, without a read: their writers' INSERTs
   * proved the lock and that nothing of their keys waited outside what this relay had in hand;
   * once this relay's session ran anything since, the first send asks for the lock again. A row
   * the last read published already is not sent again.
   */
  private async publishHanded(connection: RelayConnection): Promise<void> {
    while (this.handed.length > 0 && !this.readDue) {
      const proven = this.handedSince === this.sessionTurns;
      const done = new Set(this.published);
      const rows = this.handed.splice(0, this.batchSize).filter((row) => !done.has(row.id));
      if (rows.length > 0) await this.publishRows(connection, rows, proven);
    }
  }

  private async deletePublished(connection: RelayConnection): Promise<void> {
    if (this.published.length === 0) return;
    this.sessionTurns += 1;
    const ids = this.published;
    await attempt('database', () => connection.deleteRows(ids));
    this.published = [];
  }

  /**
   * Reads up to `batchSize` rows and publishes them in byte-bounded sends, in id order: one
   * statement and one send per wake-up for a batch that fits in one send.
   */
  private async publishBatch(connection: RelayConnection): Promise<number> {
    const deleting = this.published;
    // The read finds every row handed over so far: they are committed.
    this.handed = [];
    this.sessionTurns += 1;
    this.lastReadAt = Date.now();
    const rows = await attempt('database', () =>
      connection.readBatch(this.lockKey, this.batchSize, deleting),
    );
    this.published = [];
    this.backlogged = rows.length === this.batchSize;
    // Handed over during the read, behind rows the read could not carry: the next read finds them.
    if (this.backlogged) this.handed = [];
    await this.publishRows(connection, rows, true);
    return rows.length;
  }

  /** Publishes `rows` (in hand meanwhile), behind the fence; `proven`: the lock was just proven. */
  private async publishRows(connection: RelayConnection, rows: readonly OutboxRow[], proven: boolean) {
    this.sending = rows;
    try {
      await this.publisher.publish(rows, this.fence(connection, proven), this.published);
    } finally {
      this.sending = [];
    }
    this.failures = 0;
  }

  /**
   * A relay deposed while it read or sent must not publish after its successor. The read (or the
   * INSERT of rows handed over) proved the lock, and a ready producer sends right behind it, so the
   * first send asks nothing more; every later send of the batch asks its session again, as does a
   * first send that had to wait for the producer to connect.
   */
  private fence(connection: RelayConnection, lockProven: boolean): Fence {
    let proven = lockProven && this.publisher.producer.ready;
    return async () => {
      if (proven) {
        proven = false;
        return;
      }
      await attempt('database', () => connection.assertHoldsLock(this.lockKey));
    };
  }

  private async connect(): Promise<RelayConnection> {
    if (this.connection?.alive) return this.connection;
    await this.dropConnection();
    this.connection = await attempt('database', () =>
      RelayConnection.open({
        databaseUrl: this.options.databaseUrl,
        applicationName: `outbox-relay:${this.options.service}`,
        onNotify: () => this.readSoon(),
        onLost: (error) => {
          if (this.leader) this.logger.warn(`${this.name}: lost its database session (${error.message})`);
          this.leader = false;
          this.handed = [];
          this.wake.notify();
        },
      }),
    );
    return this.connection;
  }

  private async acquire(connection: RelayConnection): Promise<boolean> {
    if (!(await attempt('database', () => connection.tryLock(this.lockKey)))) return false;
    await attempt('database', () => connection.listen());
    this.logger.log(`${this.name}: leader (advisory lock ${this.lockKey})`);
    this.readSoon();
    return true;
  }

  private async recover(error: unknown): Promise<void> {
    const failure = error instanceof RelayFailure ? error : new RelayFailure('database', error);
    this.failures += 1;
    this.failedAttempts += 1;
    const wait = backoffDelay(this.failures, RELAY_BACKOFF);
    // What was handed over and not sent is committed: the next read finds it, in order.
    this.handed = [];
    this.readDue = true;
    // A database error may mean the session (and the lock with it) is gone: start over from the
    // lock. A broker error keeps the lock and the producer; the rows are read and sent again.
    // After repeated failures the producer starts afresh, in case its own state is what fails.
    if (failure.side === 'database') await this.dropConnection();
    else if (this.failures % 3 === 0) await this.publisher.producer.drop();
    this.logger.warn(
      `${this.name}: ${failure.side} failure (${failure.message}); rows stay in the outbox, retry in ${wait} ms`,
    );
    await this.sleep(wait);
  }

  private async shutdown(): Promise<void> {
    this.stopListening?.();
    this.stopRequested = true;
    this.flushDeadline = Date.now() + this.flushTimeoutMs;
    this.stopSignal.notify();
    this.wake.notify();
    await this.loop;
    const wasLeader = this.leader;
    await this.dropConnection();
    await this.publisher.producer.drop();
    if (wasLeader) this.logger.log(`${this.name}: stopped, lock released`);
  }

  private async dropConnection(): Promise<void> {
    const connection = this.connection;
    const wasLeader = this.leader;
    this.connection = undefined;
    this.leader = false;
    this.handed = [];
    // A new session reads before it offers anything.
    this.backlogged = true;
    await connection?.close(wasLeader ? this.lockKey : undefined);
  }

  /** Waits `ms`, cut short by `stop()`; while stopping, never past the flush deadline. */
  private async sleep(ms: number): Promise<void> {
    if (this.stopRequested) await sleep(Math.max(0, Math.min(ms, this.flushDeadline - Date.now())));
    else await this.stopSignal.wait(ms);
  }

  private get name(): string {
    return `outbox relay (${this.options.service})`;
  }
}

/** After a failed read or send: 100 ms doubling, capped at 5 s. */
const RELAY_BACKOFF = { attempts: Number.POSITIVE_INFINITY, initialBackoffMs: 100, maxBackoffMs: 5_000 };
