// Liveness of a consumer: its partitions' progress against their lag (PartitionProgress) and its
// crashes in a row (CrashStreak). The consumer reports each finished attempt once (`progressed`);
// the health check reads both.

export interface StalledPartition {
  readonly topic: string;
  readonly partition: number;
  /** The lag last read from the broker. */
  readonly lag: number;
  /** How long it has had lag and no progress. */
  readonly stalledMs: number;
}

/**
 * Which of this member's partitions have had lag and no progress for too long: the liveness
 * signal of a consumer. Progress is an attempt at a partition's records that finished (applied,
 * dead-lettered, or failed and now waiting out its backoff), so a partition retrying through an
 * outage is alive and one whose handler never returns is not. The lag comes from the broker
 * (ConsumerLagReader); a partition not assigned to this member is reported with lag 0.
 */
export class PartitionProgress {
  /** The partitions with lag, by `topic/partition`: since when without progress, and the lag. */
  private readonly lagging = new Map<string, { since: number; lag: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** An attempt at the partition's records finished: its clock starts again. */
  attempted(topic: string, partition: number): void {
    const entry = this.lagging.get(`${topic}/${partition}`);
    if (entry !== undefined) entry.since = this.now();
  }

  lag(topic: string, partition: number, lag: number): void {
    const key = `${topic}/${partition}`;
    const entry = this.lagging.get(key);
    if (lag <= 0) this.lagging.delete(key);
    else if (entry === undefined) this.lagging.set(key, { since: this.now(), lag });
    else entry.lag = lag;
  }

  /**
   * No broker answers (an outage): no clock runs on, since a restart of this process cures no
   * outage. A lag read that fails while a broker answers resets nothing: the partitions are then
   * judged on the lag read last.
   */
  brokerAway(): void {
    const now = this.now();
    for (const entry of this.lagging.values()) entry.since = now;
  }

  stalled(timeoutMs: number, nowMs = this.now()): StalledPartition[] {
    return [...this.lagging]
      .filter(([, entry]) => nowMs - entry.since >= timeoutMs)
      .map(([key, { since, lag }]) => {
        const slash = key.lastIndexOf('/');
        return {
          topic: key.slice(0, slash),
          partition: Number(key.slice(slash + 1)),
          lag,
          stalledMs: nowMs - since,
        };
      });
  }
}

/** What liveness says of a consumer that keeps crashing. */
export interface CrashLoop {
  /** Crashes since the streak began. */
  readonly crashes: number;
  /** How long it has been crashing without an attempt at its records finishing. */
  readonly loopingMs: number;
  readonly lastError: string;
}

/** Errors of a broker that is away or moving: a restart of this process cures none of them. */
const OUTAGE_ERRORS = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSBrokerNotFound',
  'KafkaJSNoBrokerAvailableError',
  'KafkaJSGroupCoordinatorNotFound',
  'KafkaJSMetadataNotLoaded',
  'KafkaJSTopicMetadataNotLoaded',
  'KafkaJSLockTimeout',
]);
/** kafkajs's names (`protocol/error.js`) of the broker's error codes for a coordinator or leader that moves. */
const OUTAGE_PROTOCOL_ERRORS = new Set([
  'GROUP_COORDINATOR_NOT_AVAILABLE',
  'GROUP_LOAD_IN_PROGRESS',
  'NOT_COORDINATOR_FOR_GROUP',
  'LEADER_NOT_AVAILABLE',
  'NOT_LEADER_FOR_PARTITION',
  'NOT_ENOUGH_REPLICAS',
  'NOT_ENOUGH_REPLICAS_AFTER_APPEND',
  'REQUEST_TIMED_OUT',
  'NETWORK_EXCEPTION',
]);

/** Whether an error, or one that caused it, says the broker is away rather than the consumer stuck. */
export function isBrokerOutage(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 8; depth += 1) {
    if (OUTAGE_ERRORS.has(cause.name)) return true;
    const type = (cause as { type?: unknown }).type;
    if (typeof type === 'string' && OUTAGE_PROTOCOL_ERRORS.has(type)) return true;
    cause = cause.cause;
  }
  return false;
}

/**
 * The consumer's crashes in a row. A group that fetches a batch it cannot take, crashes, is
 * restarted, rejoins and fetches the same batch again is stuck, though every single restart
 * "works": liveness must fail (HEALTH_STALL_TIMEOUT_MS), even when the lag cannot be read. The
 * streak ends when an attempt at records finishes, or when no crash came for `gapMs` (longer than
 * the longest restart backoff). Crashes caused by a broker outage are not counted: no restart of
 * this process can cure one (docs/reliability.md#health-endpoints).
 */
export class CrashStreak {
  private since: number | undefined;
  private lastAt = Number.NEGATIVE_INFINITY;
  private crashes = 0;
  private lastError = '';

  constructor(
    private readonly gapMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  crashed(error: Error): void {
    if (isBrokerOutage(error)) return;
    const now = this.now();
    if (this.since === undefined || now - this.lastAt > this.gapMs) {
      this.since = now;
      this.crashes = 0;
    }
    this.crashes += 1;
    this.lastAt = now;
    this.lastError = error.message;
  }

  /** An attempt at records finished: the consumer moves. */
  progressed(): void {
    this.since = undefined;
  }

  /** The streak, when it has gone on for `timeoutMs` and crashes still come. */
  looping(timeoutMs: number, now = this.now()): CrashLoop | undefined {
    if (this.since === undefined || now - this.lastAt > this.gapMs) return undefined;
    const loopingMs = now - this.since;
    if (loopingMs < timeoutMs) return undefined;
    return { crashes: this.crashes, loopingMs, lastError: this.lastError };
  }
}

/** The consumer's side of liveness: after each attempt at a partition's records, both clocks start again. */
export class ConsumerLiveness {
  readonly partitions: PartitionProgress;
  readonly crashes: CrashStreak;

  constructor(crashGapMs: number, now: () => number = Date.now) {
    this.partitions = new PartitionProgress(now);
    this.crashes = new CrashStreak(crashGapMs, now);
  }

  /** An attempt at the partition's records finished, whatever its outcome (a property: passed as it is). */
  readonly progressed = (topic: string, partition: number): void => {
    this.partitions.attempted(topic, partition);
    this.crashes.progressed();
  };
}
