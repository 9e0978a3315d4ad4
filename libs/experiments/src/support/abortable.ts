/** Waits `ms`, or rejects with the signal's reason as soon as the run is stopped. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export interface WaitOptions {
  readonly signal: AbortSignal;
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
}

/**
 * Polls `probe` until it returns a value (not undefined): an experiment waits on a condition it
 * can observe (an offset committed, a record read), never a fixed time. A probe that throws is
 * asked again (a broker may be restarting); the timeout's message names the last error. Stops at
 * once when the run is stopped.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  { signal, timeoutMs = 20_000, intervalMs = 100 }: WaitOptions,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    signal.throwIfAborted();
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      const cause = last instanceof Error ? ` (last error: ${last.message})` : '';
      throw new Error(`gave up after ${timeoutMs / 1000} s waiting for ${what}${cause}`);
    }
    await pause(intervalMs, signal);
  }
}

/** The signal's reason when it is an Error (AbortController's default is an AbortError DOMException). */
const abortReason = (signal: AbortSignal): Error =>
  signal.reason instanceof Error
    ? signal.reason
    : new DOMException('The experiment was stopped', 'AbortError');
