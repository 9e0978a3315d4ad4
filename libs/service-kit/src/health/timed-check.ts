import type { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';

type HealthIndicatorSession = ReturnType<HealthIndicatorService['check']>;

/** Up (with `details` of the answer) when `probe` answers within `timeoutMs`; down with the reason otherwise. */
export async function timedCheck<T>(
  indicator: HealthIndicatorSession,
  probe: Promise<T>,
  timeoutMs: number,
  what: string,
  details: (answer: T) => Record<string, unknown> = () => ({}),
): Promise<HealthIndicatorResult> {
  try {
    return indicator.up(details(await withTimeout(probe, timeoutMs, what)));
  } catch (error) {
    return indicator.down({ message: error instanceof Error ? error.message : String(error) });
  }
}

/** Rejects with "no answer from <what> within <ms> ms" when `promise` takes longer. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
