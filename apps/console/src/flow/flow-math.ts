// The arithmetic of the flow page's samples: rates from counters, percentiles, stalls.

/** Per second between two readings of a counter; null when one is missing or it went back (a restart). */
export function ratePerSecond(
  before: number | null | undefined,
  after: number | null | undefined,
  elapsedMs: number,
): number | null {
  if (before == null || after == null || elapsedMs <= 0 || after < before) return null;
  return ((after - before) * 1000) / elapsedMs;
}

/** Nearest-rank percentile of ascending `sorted` values; null when there are none. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** One consumer group's position at one sample. */
export interface GroupReading {
  /** Records between the committed offsets and the high watermarks, over its topics. */
  readonly lag: number | null;
  /** Sum of its committed offsets over its topics. */
  readonly committed: number | null;
}

export interface ConsumerHealth {
  /** It has lag and its committed offsets did not move over the last interval. */
  readonly stalled: boolean;
  /** Its lag rose at each of the last `GROWING_INTERVALS` intervals. */
  readonly growing: boolean;
}

export const GROWING_INTERVALS = 2;

/** Reads a group's recent readings, oldest first, the current one last. */
export function consumerHealth(readings: readonly GroupReading[]): ConsumerHealth {
  const current = readings.at(-1);
  const previous = readings.at(-2);
  const stalled =
    current?.lag != null &&
    current.committed != null &&
    previous?.committed != null &&
    previous.lag != null &&
    current.lag > 0 &&
    previous.lag > 0 &&
    current.committed <= previous.committed;
  const recent = readings.slice(-(GROWING_INTERVALS + 1));
  const growing =
    recent.length === GROWING_INTERVALS + 1 &&
    recent.every((r, i) => r.lag != null && (i === 0 || r.lag > recent[i - 1]!.lag!));
  return { stalled, growing };
}
