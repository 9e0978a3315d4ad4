import { build, type Histogram } from 'hdr-histogram-js';

export interface PercentileSummary {
  readonly count: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
  readonly mean: number;
}

/** Latencies in milliseconds, recorded in microseconds (HDR histograms hold integers). */
export class LatencyHistogram {
  private readonly histogram: Histogram = build({ numberOfSignificantValueDigits: 3 });

  record(milliseconds: number): void {
    this.histogram.recordValue(Math.max(0, Math.round(milliseconds * 1000)));
  }

  get count(): number {
    return this.histogram.totalCount;
  }

  percentile(percentile: number): number {
    return this.count === 0 ? 0 : this.histogram.getValueAtPercentile(percentile) / 1000;
  }

  summary(): PercentileSummary {
    return summarise(this.histogram);
  }

  /** p50, p99 and max only: each percentile walks the histogram, and the timeline needs no more. */
  headline(): Pick<PercentileSummary, 'p50' | 'p99' | 'max'> {
    const h = this.histogram;
    if (h.totalCount === 0) return { p50: 0, p99: 0, max: 0 };
    const at = (percentile: number): number =>
      micros(Math.min(h.getValueAtPercentile(percentile), h.maxValue));
    return { p50: at(50), p99: at(99), max: micros(h.maxValue) };
  }

  reset(): void {
    this.histogram.reset();
  }
}

const micros = (value: number): number => Math.round(value) / 1000;

export function summarise(histogram: Histogram): PercentileSummary {
  const ms = micros;
  if (histogram.totalCount === 0) return { count: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0, mean: 0 };
  // A percentile is reported as its bucket's upper bound, which can exceed the exact max.
  const at = (percentile: number): number =>
    ms(Math.min(histogram.getValueAtPercentile(percentile), histogram.maxValue));
  return {
    count: histogram.totalCount,
    p50: at(50),
    p90: at(90),
    p99: at(99),
    p999: at(99.9),
    max: ms(histogram.maxValue),
    mean: ms(histogram.mean),
  };
}

export const formatSummary = (name: string, s: PercentileSummary): string =>
  `${name.padEnd(14)} n=${s.count}  p50 ${s.p50.toFixed(1)} ms  p90 ${s.p90.toFixed(1)}  p99 ${s.p99.toFixed(1)}  p99.9 ${s.p999.toFixed(1)}  max ${s.max.toFixed(1)}`;
