import { LatencyHistogram } from './latency-stats';

/** One second of the run. Latency percentiles are of the values recorded in that second. */
export interface SecondPoint {
  readonly t: number;
  readonly offered: number;
  readonly placed: number;
  readonly errors: number;
  readonly terminal: number;
  readonly http: { readonly p50: number; readonly p99: number; readonly max: number };
  readonly e2e: { readonly p50: number; readonly p99: number; readonly max: number };
}

interface Bucket {
  offered: number;
  placed: number;
  errors: number;
  terminal: number;
  readonly http: LatencyHistogram;
  readonly e2e: LatencyHistogram;
}

const point = (h: LatencyHistogram): SecondPoint['http'] => h.headline();

/** Per-second counters and interval histograms, keyed by seconds since `start`. */
export class Timeline {
  private readonly buckets: Bucket[] = [];

  constructor(
    private readonly start: number,
    private readonly now: () => number,
  ) {}

  private bucket(at = this.now()): Bucket {
    const index = Math.max(0, Math.floor((at - this.start) / 1000));
    for (let i = this.buckets.length; i <= index; i++) {
      this.buckets.push({
        offered: 0,
        placed: 0,
        errors: 0,
        terminal: 0,
        http: new LatencyHistogram(),
        e2e: new LatencyHistogram(),
      });
    }
    return this.buckets[index] as Bucket;
  }

  offered(scheduledAt: number): void {
    this.bucket(scheduledAt).offered++;
  }

  placed(httpMs: number): void {
    const bucket = this.bucket();
    bucket.placed++;
    bucket.http.record(httpMs);
  }

  error(): void {
    this.bucket().errors++;
  }

  terminal(e2eMs: number): void {
    const bucket = this.bucket();
    bucket.terminal++;
    bucket.e2e.record(e2eMs);
  }

  /** The last complete second, for the progress line. */
  lastSecond(): SecondPoint | undefined {
    const index = Math.floor((this.now() - this.start) / 1000) - 1;
    return index < 0 || index >= this.buckets.length ? undefined : this.pointAt(index);
  }

  private pointAt(t: number): SecondPoint {
    const b = this.buckets[t] as Bucket;
    return {
      t,
      offered: b.offered,
      placed: b.placed,
      errors: b.errors,
      terminal: b.terminal,
      http: point(b.http),
      e2e: point(b.e2e),
    };
  }

  points(): SecondPoint[] {
    return this.buckets.map((_, t) => this.pointAt(t));
  }
}
