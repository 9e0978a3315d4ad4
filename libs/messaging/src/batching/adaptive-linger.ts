/**
 * How long a consumer (before its next fetch) or the relay (before its next read) waits for more
 * records to come along, so that one request carries several. Nothing after a quiet spell: the
 * first record after one goes through at once. While records keep coming the linger doubles,
 * from `firstMs` up to `maxMs`, so at everyday rates a fetch, a transaction, an offset commit and
 * a send carry several orders instead of one each (BENCHMARKS.md has the counts).
 */
export class AdaptiveLinger {
  private current = 0;
  private readonly firstMs: number;

  /**
   * @param maxMs the longest linger (0: never linger)
   * @param quietMs work that was waited for at least this long ends a busy spell (default maxMs)
   */
  constructor(
    readonly maxMs: number,
    private readonly quietMs = maxMs,
  ) {
    this.firstMs = Math.min(FIRST_LINGER_MS, maxMs);
  }

  /** The linger after work that came `waitedMs` after the previous linger ended. */
  next(waitedMs: number): number {
    if (this.maxMs <= 0 || waitedMs >= this.quietMs) this.current = 0;
    else this.current = Math.min(this.maxMs, Math.max(this.firstMs, this.current * 2));
    return this.current;
  }
}

const FIRST_LINGER_MS = 5;
