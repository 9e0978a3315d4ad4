export interface RetryOptions {
  /** Total attempts per record, the first included. */
  readonly attempts: number;
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
  /**
   * How long an event whose dependency is down (isDependencyOutage: an SMTP server refusing
   * connections) keeps waiting, from its first failure, before it is dead-lettered even with its
   * attempts spent. Its partition waits with backoff meanwhile.
   */
  readonly outageWindowMs: number;
}

/**
 * What a consumer does with a failing record unless told otherwise: 3 attempts, 200 ms, 400 ms
 * apart; an event whose dependency is down waits up to 2 minutes.
 */
export const DEFAULT_RETRY: RetryOptions = {
  attempts: 3,
  initialBackoffMs: 200,
  maxBackoffMs: 5_000,
  outageWindowMs: 120_000,
};

/** Delay before attempt `attempt + 1`: initial · 2^(attempt-1), capped, with ±20 % jitter. */
export function backoffDelay(
  attempt: number,
  options: Pick<RetryOptions, 'initialBackoffMs' | 'maxBackoffMs'>,
): number {
  const base = Math.min(options.maxBackoffMs, options.initialBackoffMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
