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

/**
 * Waits `ms` in slices, calling `heartbeat` between them so a long backoff does not cost the
 * partition (the group coordinator evicts a member that stays silent past the session
 * timeout). Stops early, returning false, when `shouldContinue` turns false.
 */
export async function waitWithHeartbeat(
  ms: number,
  sliceMs: number,
  heartbeat: () => Promise<void>,
  shouldContinue: () => boolean,
): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!shouldContinue()) return false;
    await sleep(Math.min(sliceMs, deadline - Date.now()));
    await heartbeat();
  }
  return shouldContinue();
}

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
