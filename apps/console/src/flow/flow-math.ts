// The arithmetic of the flow page's samples: rates from counters, percentiles, stalls.
import type { InstanceLiveness } from './service-metrics';

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

/** A stall the sampler looked into: its whole reason, and a few words for the picture's node. */
export interface StallVerdict {
  readonly stalled: boolean;
  readonly stalledReason: string | null;
  readonly stalledSummary: string | null;
}

/** A reason keeps at most this many characters (a crash's last error can be long). */
export const MAX_STALL_REASON_CHARS = 400;

const NO_STALL: StallVerdict = { stalled: false, stalledReason: null, stalledSummary: null };
const NO_PROGRESS = 'lag and no committed progress';

/** At most `max` characters, cut at a word when one ends near the limit, with an ellipsis. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * Whether a group is stalled, and why: its committed offsets say it has lag and does not move
 * (`offsetsStalled`), and its up instances' `/health/live` say why, or that the service does not
 * see it yet. A failing liveness marks it stalled on its own: one stuck partition of several is
 * invisible in the group's summed offsets. `probes` is undefined when nobody was asked.
 */
export function stallVerdict(
  offsetsStalled: boolean,
  probes: readonly InstanceLiveness[] | undefined,
): StallVerdict {
  if (probes === undefined) return { ...NO_STALL, stalled: offsetsStalled };
  const named = (p: InstanceLiveness) => (probes.length > 1 ? `${p.url}: ${p.message}` : `${p.message}`);
  const failing = probes.filter((p) => p.state === 'not-live');
  if (failing.length > 0) {
    const crashes = failing.flatMap((p) => (p.crashes === undefined ? [] : [p.crashes]));
    const partitions = [...new Set(failing.flatMap((p) => p.stalledPartitions))];
    const summary =
      crashes.length > 0
        ? `crash loop: ${Math.max(...crashes)} crashes`
        : partitions.length > 0
          ? `no progress: ${partitions.length} partition${partitions.length === 1 ? '' : 's'}`
          : '/health/live fails';
    return {
      stalled: true,
      stalledReason: truncate(failing.map(named).join('; '), MAX_STALL_REASON_CHARS),
      stalledSummary: summary,
    };
  }
  if (!offsetsStalled) return NO_STALL;
  const unanswered = probes.filter((p) => p.state === 'unknown');
  const [reason, summary] =
    probes.length === 0
      ? [`${NO_PROGRESS}; no instance is up to ask /health/live`, 'no instance up']
      : unanswered.length > 0
        ? [
            `${NO_PROGRESS}; /health/live did not answer: ${unanswered.map(named).join('; ')}`,
            '/health/live unanswered',
          ]
        : [
            `${NO_PROGRESS}; /health/live still passes (stall timeout not reached)`,
            '/health/live still passes',
          ];
  return { stalled: true, stalledReason: truncate(reason, MAX_STALL_REASON_CHARS), stalledSummary: summary };
}
