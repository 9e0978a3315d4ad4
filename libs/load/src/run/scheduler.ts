/**
 * Arrival models. The open model issues request i at start + i/rate whatever the responses do, and
 * hands the request its *scheduled* time so latency includes any time it spent waiting to be sent
 * (no coordinated omission). When `maxInFlight` requests are outstanding, the due request is dropped
 * and counted, never silently delayed. An aborted signal stops both models at once: no further
 * request starts, and they return without awaiting the requests still in flight.
 */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Resolves when `signal` aborts (never without one). */
export const whenAborted = (signal: AbortSignal | undefined): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted) resolve();
    else signal?.addEventListener('abort', () => resolve(), { once: true });
  });

export const systemClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener('abort', done, { once: true });
    }),
};

/** Offered rate (orders/s) at `elapsedSeconds` into the run; undefined once the run is over. */
export type RateProfile = (elapsedSeconds: number) => number | undefined;

export const constantRate =
  (rate: number, durationSeconds: number): RateProfile =>
  (elapsed) =>
    elapsed < durationSeconds ? rate : undefined;

export const steppedRate =
  (steps: readonly number[], stepSeconds: number): RateProfile =>
  (elapsed) =>
    steps[Math.floor(elapsed / stepSeconds)];

export interface Slot {
  readonly sequence: number;
  /** Epoch milliseconds at which the request should have been sent. */
  readonly scheduledAt: number;
}

export interface OpenModelOptions {
  readonly profile: RateProfile;
  readonly maxInFlight: number;
  readonly clock: Clock;
  /** Called for each request that starts; the promise settles when it completes. */
  readonly send: (slot: Slot) => Promise<void>;
  readonly onDropped: (slot: Slot) => void;
  readonly signal?: AbortSignal;
}

/** The scheduled send times, lazily: each step's rate applies from its own start. */
export function* arrivals(profile: RateProfile, start: number): Generator<number> {
  let elapsed = 0;
  for (;;) {
    const rate = profile(elapsed);
    if (rate === undefined) return;
    if (rate <= 0) {
      elapsed = Math.floor(elapsed) + 1;
      continue;
    }
    yield start + elapsed * 1000;
    // Rounded to the nanosecond so that n steps of 1/rate add up to exactly n/rate.
    elapsed = Math.round((elapsed + 1 / rate) * 1e9) / 1e9;
  }
}

export async function runOpenModel(options: OpenModelOptions): Promise<void> {
  const { clock, send, signal } = options;
  const pending = new Set<Promise<void>>();
  let sequence = 0;
  for (const scheduledAt of arrivals(options.profile, clock.now())) {
    const wait = scheduledAt - clock.now();
    if (wait > 0) await clock.sleep(wait, signal);
    if (signal?.aborted) return;
    const slot = { sequence: sequence++, scheduledAt };
    if (pending.size >= options.maxInFlight) {
      options.onDropped(slot);
      continue;
    }
    const request = send(slot).finally(() => pending.delete(request));
    pending.add(request);
  }
  await Promise.all(pending);
}

export interface ClosedModelOptions {
  readonly clients: number;
  readonly durationSeconds: number;
  readonly clock: Clock;
  readonly send: (slot: Slot) => Promise<void>;
  readonly signal?: AbortSignal;
}

/** N clients, each sending its next request as soon as the previous one completes. */
export async function runClosedModel(options: ClosedModelOptions): Promise<void> {
  const { clock, signal } = options;
  const end = clock.now() + options.durationSeconds * 1000;
  let sequence = 0;
  const client = async (): Promise<void> => {
    while (clock.now() < end && !signal?.aborted)
      await options.send({ sequence: sequence++, scheduledAt: clock.now() });
  };
  await Promise.race([Promise.all(Array.from({ length: options.clients }, client)), whenAborted(signal)]);
}
