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
