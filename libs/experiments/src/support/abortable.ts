/** Thrown when the run's signal aborts a wait: the experiment stops and cleans up. */
export class ExperimentStoppedError extends Error {
  constructor() {
    super('stopped before the criterion was decided');
    this.name = 'ExperimentStoppedError';
  }
}

export function throwIfStopped(signal: AbortSignal): void {
  if (signal.aborted) throw new ExperimentStoppedError();
}

/** Waits `ms`, or less when the signal aborts (then it throws). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  throwIfStopped(signal);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ExperimentStoppedError());
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
  /** What is awaited, for the timeout's message. */
  readonly what: string;
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
}

/** Polls `probe` until it returns a value (not undefined); throws on timeout or abort. */
export async function waitFor<T>(probe: () => Promise<T | undefined>, options: WaitOptions): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let last: unknown;
  for (;;) {
    throwIfStopped(options.signal);
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      const cause = last instanceof Error ? ` (last error: ${last.message})` : '';
      throw new Error(`timed out waiting for ${options.what}${cause}`);
    }
    await pause(options.intervalMs ?? 250, options.signal);
  }
}
