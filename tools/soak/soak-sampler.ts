import type { Admin } from 'kafkajs';
import { setTimeout as sleep } from 'node:timers/promises';
import { readGroupPosition, type LoadProgress, type SecondPoint } from '@pipeline/load';
import { rssMiB } from '../bench/proc-stats';
import { outboxBacklog, stackProcesses } from './local-stack';
import type { SoakSample } from './soak-verdict';

export interface SamplerOptions {
  readonly repoRoot: string;
  readonly admin: Admin;
  /** Consumer group -> its topics, prefixed. */
  readonly groups: Readonly<Record<string, readonly string[]>>;
  readonly intervalSeconds: number;
  readonly onSample: (sample: SoakSample) => void;
}

/**
 * The consumers commit offsets at most once per CONSUMER_COMMIT_INTERVAL_MS (1 s by default), so a
 * group's lag is a sawtooth with that period. Read on the load's whole seconds it would be read at
 * a phase of that sawtooth that drifts only slowly: the samples then sit at one level for minutes
 * and at another later, which looks like growth. A random phase samples the whole tooth instead.
 */
export function lagReadDelayMs(
  random: () => number = Math.random,
  commitIntervalMs = Number(process.env.CONSUMER_COMMIT_INTERVAL_MS ?? 1_000) || 1_000,
): number {
  return random() * commitIntervalMs;
}

/**
 * Samples the stack on the load's own clock: driven by the load engine's progress (once a second),
 * it takes one sample every intervalSeconds of load, and keeps the per-second e2e p99 in between.
 */
export class SoakSampler {
  readonly samples: SoakSample[] = [];
  private readonly seconds = new Map<number, SecondPoint>();
  private next = 0;
  private previous = { t: 0, placed: 0 };
  private taking: Promise<void> | undefined;

  constructor(private readonly options: SamplerOptions) {}

  progress(state: LoadProgress): void {
    if (state.last) this.seconds.set(state.last.t, state.last);
    if (state.phase !== 'load' || this.taking !== undefined || state.elapsedSeconds < this.next) return;
    while (this.next <= state.elapsedSeconds) this.next += this.options.intervalSeconds;
    this.taking = this.take(state).finally(() => (this.taking = undefined));
  }

  /** Waits for a sample still being taken. */
  async flush(): Promise<void> {
    await this.taking;
  }

  private async take(state: LoadProgress): Promise<void> {
    const t = Math.round(state.elapsedSeconds * 10) / 10;
    const processes = stackProcesses(this.options.repoRoot);
    const [{ lag, ends }, backlog] = await Promise.all([
      this.lag(),
      Promise.all(
        processes.map((p) => (p.service === 'console' ? Promise.resolve(undefined) : outboxBacklog(p.port))),
      ),
    ]);
    const sample: SoakSample = {
      t,
      placedPerSecond:
        t > this.previous.t ? (state.placed - this.previous.placed) / (t - this.previous.t) : 0,
      e2eP99Ms: this.worstSecond(t),
      lag,
      topicEnds: ends,
      outboxBacklog: Object.fromEntries(
        processes.flatMap((p, i) => (p.service === 'console' ? [] : [[p.name, backlog[i] ?? null]])),
      ),
      rssMiB: Object.fromEntries(processes.map((p) => [p.name, round(rssMiB(p.pid))])),
      pids: Object.fromEntries(processes.map((p) => [p.name, p.pid])),
    };
    this.previous = { t, placed: state.placed };
    this.samples.push(sample);
    this.options.onSample(sample);
  }

  /** Each group's lag and its topics' end offsets, or null where they could not be read. */
  private async lag(): Promise<{ lag: Record<string, number | null>; ends: Record<string, number | null> }> {
    await sleep(lagReadDelayMs());
    const entries = await Promise.all(
      Object.entries(this.options.groups).map(async ([group, topics]) => {
        const read = await readGroupPosition(this.options.admin, group, topics).catch(() => null);
        return [group, read] as const;
      }),
    );
    return {
      lag: Object.fromEntries(entries.map(([group, read]) => [group, read?.lag ?? null])),
      ends: Object.fromEntries(entries.map(([group, read]) => [group, read?.end ?? null])),
    };
  }

  /** The highest per-second p99 among the seconds since the last sample, which are then dropped. */
  private worstSecond(until: number): number | null {
    let worst: number | null = null;
    for (const [second, point] of this.seconds) {
      if (second >= until) continue;
      if (point.terminal > 0) worst = Math.max(worst ?? 0, point.e2e.p99);
      this.seconds.delete(second);
    }
    return worst;
  }
}

const round = (mib: number | undefined): number | null =>
  mib === undefined ? null : Math.round(mib * 10) / 10;
