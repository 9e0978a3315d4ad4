import type { Admin } from 'kafkajs';

export interface LagSample {
  /** Seconds since the start of the load. */
  readonly t: number;
  /** Group -> total lag over its topics; null when it could not be read. */
  readonly lag: Readonly<Record<string, number | null>>;
}

/** Sum over partitions of (end offset - committed offset); an uncommitted partition counts from 0. */
export async function readGroupLag(
  admin: Admin,
  groupId: string,
  topics: readonly string[],
): Promise<number> {
  return (await readGroupPosition(admin, groupId, topics)).lag;
}

/** The group's lag, and the sum of its topics' end offsets (what was ever written to them). */
export async function readGroupPosition(
  admin: Admin,
  groupId: string,
  topics: readonly string[],
): Promise<{ lag: number; end: number }> {
  const committed = await admin.fetchOffsets({ groupId, topics: [...topics] });
  let [lag, total] = [0, 0];
  for (const { topic, partitions } of committed) {
    const ends = await admin.fetchTopicOffsets(topic);
    const endOf = new Map(ends.map((p) => [p.partition, Number(p.high)]));
    for (const { partition, offset } of partitions) {
      const end = endOf.get(partition) ?? 0;
      const at = Number(offset) < 0 ? 0 : Number(offset);
      lag += Math.max(0, end - at);
      total += end;
    }
  }
  return { lag, end: total };
}

export class LagMonitor {
  readonly samples: LagSample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> = Promise.resolve();

  constructor(
    private readonly admin: Admin,
    private readonly groups: Readonly<Record<string, readonly string[]>>,
    private readonly topicPrefix: string,
    private readonly elapsedSeconds: () => number,
  ) {}

  start(intervalMs = 5000): void {
    const tick = (): void => {
      this.reading = this.reading.then(() => this.sample());
    };
    tick();
    this.timer = setInterval(tick, intervalMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.reading;
  }

  /** Latest total lag over all groups (for the progress line). */
  get latest(): number | undefined {
    const last = this.samples.at(-1);
    return last === undefined ? undefined : totalLag(last);
  }

  maxByGroup(): Record<string, number> {
    const max: Record<string, number> = {};
    for (const sample of this.samples)
      for (const [group, lag] of Object.entries(sample.lag))
        if (lag !== null) max[group] = Math.max(max[group] ?? 0, lag);
    return max;
  }

  async sample(): Promise<void> {
    const t = this.elapsedSeconds();
    const lag: Record<string, number | null> = {};
    for (const [group, topics] of Object.entries(this.groups)) {
      try {
        lag[group] = await readGroupLag(
          this.admin,
          group,
          topics.map((topic) => `${this.topicPrefix}${topic}`),
        );
      } catch {
        lag[group] = null;
      }
    }
    this.samples.push({ t, lag });
  }
}

export const totalLag = (sample: LagSample): number =>
  Object.values(sample.lag).reduce<number>((sum, lag) => sum + (lag ?? 0), 0);
