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
